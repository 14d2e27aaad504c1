#!/usr/bin/env python3
"""Text contrast of the window's theme (issue 13 point 7): every text colour of ui/Theme.qml
over every background it is drawn on, in the light and the dark set, must reach the WCAG 2
contrast ratio 4.5:1 (success criterion 1.4.3, normal text).

The colour sets are read from Theme.qml itself (its lightColors / darkColors maps, "name":
"#rrggbb" lines) and the pairs from its textColors x textBackgrounds lists and accentPairs.
The WCAG formula is checked first on known values (black on white is 21:1, a colour on
itself 1:1, #767676 on white the classic 4.54:1, #777777 just under 4.5), so a broken
formula cannot pass a bad theme.

Usage: check_contrast.py THEME_QML   (exit 0 when every pair passes; lists every failure)
"""
import re
import sys

MIN_RATIO = 4.5


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


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    self_check()
    source = open(sys.argv[1], encoding="utf-8").read()
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
    if failures:
        print(f"check_contrast: {failures} pair(s) below {MIN_RATIO}:1")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
