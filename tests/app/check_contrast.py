#!/usr/bin/env python3
"""Text contrast of the window's theme (issue 13 point 7): every text colour of ui/Theme.qml
over every background it is drawn on, in the light and the dark set, must reach the WCAG 2
contrast ratio 4.5:1 (success criterion 1.4.3, normal text). Issue 43 adds: the marks that
are not text (Theme's uiPairs: a text field's outline) reach 3:1 (1.4.11); the dimming
behind a drawer (Theme's dimOpacity, black over the window) is seen: the window or its
text changes by at least 2:1; and, given MAIN_QML, the window's palette (Main.qml's
`palette.ROLE: Theme.NAME` lines, what Qt's own controls and Qt Quick Dialogs' file dialog
draw with) sets every role they use, its text roles readable on its background roles.

The colour sets are read from Theme.qml itself (its lightColors / darkColors maps, "name":
"#rrggbb" lines) and the pairs from its textColors x textBackgrounds lists and accentPairs.
The WCAG formula is checked first on known values (black on white is 21:1, a colour on
itself 1:1, #767676 on white the classic 4.54:1, #777777 just under 4.5), so a broken
formula cannot pass a bad theme.

Usage: check_contrast.py THEME_QML [MAIN_QML]   (exit 0 when every pair passes; lists every
failure)
"""
import re
import sys

MIN_RATIO = 4.5
MIN_UI_RATIO = 3.0      # WCAG 1.4.11, non-text contrast
MIN_DIM_CHANGE = 2.0    # the dimmed window (or its text) against itself undimmed

# The palette roles Qt Quick Controls' Fusion style and Qt Quick Dialogs' non-native file
# dialog draw with (its path field is palette.light, its rows light / midlight): each must
# be set by the window, else the platform's (a light one in the dark theme) shows through.
PALETTE_TEXT_ROLES = ["windowText", "text", "buttonText", "placeholderText"]
PALETTE_BACKGROUND_ROLES = ["window", "base", "alternateBase", "button", "light", "midlight"]
PALETTE_PAIRS = [("highlightedText", "highlight"), ("toolTipText", "toolTipBase")]
PALETTE_OTHER_ROLES = ["mid", "dark"]


def channel(c8):
    c = c8 / 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(hex_colour):
    h = hex_colour.lstrip("#")
    if len(h) != 6:
        raise ValueError(f"{hex_colour}: expected #rrggbb (an opaque colour)")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg, bg):
    a, b = luminance(fg), luminance(bg)
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


def self_check():
    assert abs(contrast("#000000", "#ffffff") - 21.0) < 1e-9
    assert abs(contrast("#ffffff", "#000000") - 21.0) < 1e-9
    assert abs(contrast("#3a7bd5", "#3a7bd5") - 1.0) < 1e-9
    assert abs(contrast("#767676", "#ffffff") - 4.54) < 0.01
    assert contrast("#777777", "#ffffff") < MIN_RATIO
    # The dark theme's old error text (#c0392b on #2b2d30) that issue 13 measured at ~2.3.
    assert 2.0 < contrast("#c0392b", "#2b2d30") < 2.6


def colour_map(source, name):
    m = re.search(r"property\s+var\s+" + name + r"\s*:\s*\(\{(.*?)\}\)", source, re.S)
    if not m:
        raise SystemExit(f"check_contrast: no '{name}' map in the theme")
    colours = dict(re.findall(r'"(\w+)"\s*:\s*"(#[0-9a-fA-F]{6})"', m.group(1)))
    if not colours:
        raise SystemExit(f"check_contrast: '{name}' has no colours")
    return colours


def name_list(source, name):
    m = re.search(r"property\s+var\s+" + name + r"\s*:\s*\[(.*?)\]\s*$", source, re.S | re.M)
    if not m:
        raise SystemExit(f"check_contrast: no '{name}' list in the theme")
    return re.findall(r'"(\w+)"', m.group(1))


def dimmed(hex_colour, opacity):
    """hex_colour under black at `opacity` (alpha blending, as the scene graph draws it)."""
    h = hex_colour.lstrip("#")
    return "#" + "".join("%02x" % round(int(h[i:i + 2], 16) * (1 - opacity)) for i in (0, 2, 4))


def dim_opacity(source, name):
    m = re.search(r"property\s+var\s+" + name + r"\s*:\s*\(\{(.*?)\}\)", source, re.S)
    o = re.search(r'"dimOpacity"\s*:\s*([0-9.]+)', m.group(1)) if m else None
    return float(o.group(1)) if o else None


def check_non_text(source, colours, theme):
    """Theme's uiPairs at 3:1 and its dimming seen; the number of failures."""
    failures = 0
    ui = name_list(source, "uiPairs")
    if not ui:
        print(f"{theme}: no uiPairs")
        return 1
    for f, b in zip(ui[0::2], ui[1::2]):
        r = contrast(colours[f], colours[b]) if f in colours and b in colours else 0
        if r < MIN_UI_RATIO:
            print(f"{theme}: {f} on {b}: {r:.2f}:1 < {MIN_UI_RATIO}:1 (or missing)")
            failures += 1
    opacity = dim_opacity(source, theme)
    if opacity is None:
        print(f"{theme}: no dimOpacity")
        return failures + 1
    change = max(contrast(colours[c], dimmed(colours[c], opacity)) for c in ("window", "text"))
    print(f"{theme}: {len(ui) // 2} non-text pairs; dimming at {opacity} changes the window by {change:.2f}:1")
    if change < MIN_DIM_CHANGE:
        print(f"{theme}: the dimming ({opacity}) is not seen: {change:.2f}:1 < {MIN_DIM_CHANGE}:1")
        failures += 1
    return failures


def palette_roles(main_source):
    """Main.qml's window palette: role -> Theme name (the ApplicationWindow's own lines)."""
    return dict(re.findall(r"^    palette\.(\w+)\s*:\s*Theme\.(\w+)", main_source, re.M))


def check_palette(roles, colours, theme):
    """The window's palette: every role set, its text roles readable; the failures."""
    failures = 0
    every = PALETTE_TEXT_ROLES + PALETTE_BACKGROUND_ROLES + PALETTE_OTHER_ROLES
    every += [r for pair in PALETTE_PAIRS for r in pair]
    for role in every:
        if role not in roles or roles[role] not in colours:
            print(f"{theme}: the window's palette.{role} is not set to a colour of the theme")
            failures += 1
    pairs = [(f, b) for f in PALETTE_TEXT_ROLES for b in PALETTE_BACKGROUND_ROLES] + PALETTE_PAIRS
    for f, b in pairs:
        if f in roles and b in roles and roles[f] in colours and roles[b] in colours:
            r = contrast(colours[roles[f]], colours[roles[b]])
            if r < MIN_RATIO:
                print(f"{theme}: palette.{f} ({roles[f]}) on palette.{b} ({roles[b]}): {r:.2f}:1")
                failures += 1
    return failures


def main():
    if len(sys.argv) not in (2, 3):
        raise SystemExit(__doc__)
    self_check()
    assert dimmed("#ffffff", 0.5) == "#808080" and dimmed("#204060", 0) == "#204060"
    source = open(sys.argv[1], encoding="utf-8").read()
    roles = None
    if len(sys.argv) == 3:
        roles = palette_roles(open(sys.argv[2], encoding="utf-8").read())
    fgs = name_list(source, "textColors")
    bgs = name_list(source, "textBackgrounds")
    accent = name_list(source, "accentPairs")
    pairs = [(f, b) for f in fgs for b in bgs] + list(zip(accent[0::2], accent[1::2]))
    # A theme that lost its pairs would pass vacuously.
    if len(fgs) < 5 or len(bgs) < 5 or not accent:
        raise SystemExit(f"check_contrast: too few pairs ({len(fgs)} texts, {len(bgs)} backgrounds)")
    failures = 0
    for theme in ("lightColors", "darkColors"):
        colours = colour_map(source, theme)
        worst = None
        for f, b in pairs:
            if f not in colours or b not in colours:
                print(f"{theme}: {f} or {b} missing")
                failures += 1
                continue
            r = contrast(colours[f], colours[b])
            if worst is None or r < worst[0]:
                worst = (r, f, b)
            if r < MIN_RATIO:
                print(f"{theme}: {f} {colours[f]} on {b} {colours[b]}: {r:.2f}:1 < {MIN_RATIO}:1")
                failures += 1
        print(f"{theme}: {len(pairs)} pairs, lowest {worst[0]:.2f}:1 ({worst[1]} on {worst[2]})")
        failures += check_non_text(source, colours, theme)
        if roles is not None:
            failures += check_palette(roles, colours, theme)
    if failures:
        print(f"check_contrast: {failures} failure(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
