#!/usr/bin/env python3
"""One unit convention for byte figures (issue 43 point 6): every size the window shows is
written by the one formatter the memory panel uses (app/util/byte_size: util::format_bytes,
Chat.formatBytes in QML: SI units, "4.29 GB"), never by hand. The settings once said
"4,096 MiB" where the memory panel said "4.29 GB" for the same budget.

Fails on, in ui/**/*.qml and app/**/*.{cpp,h} (app/util/byte_size.* excepted):
  - a string literal (outside comments) naming a byte unit: KiB MiB GiB TiB kB KB MB GB TB;
  - code that turns bytes into such a unit by hand: `/ 1048576`, `* 1048576`, `/ 1073741824`,
    `>> 20`, `>> 30`, `/ (1024 * 1024)`.
A line may opt out with the comment `byte-units: ok` and a reason (an input that takes a
number in a unit of its own, say); none needs it today. The checker checks itself first on
known lines, so a broken scanner cannot pass a bad tree.

Usage: check_byte_units.py SOURCE_DIR   (exit 0 when clean; lists every hand-made figure)
"""
import pathlib
import re
import sys

UNIT = re.compile(r"(?<![A-Za-z])(?:KiB|MiB|GiB|TiB|kB|KB|MB|GB|TB)(?![A-Za-z])")
BY_HAND = re.compile(r"[*/]\s*(?:1048576|1073741824)\b|>>\s*(?:20|30)\b|/\s*\(?\s*1024\s*\*\s*1024")
OPT_OUT = "byte-units: ok"


def split_code(text):
    """(code, strings) per line: the code with strings and comments blanked, and the string
    literals (their contents) that start on that line. Handles // and /* */ comments and
    '...', "..." and `...` literals with backslash escapes (QML and C++ alike)."""
    code, strings = [[] for _ in text.splitlines() or [""]], [[] for _ in text.splitlines() or [""]]
    line, i, n = 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if text.find("\n", i) >= 0 else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif c in "'\"`":
            start_line, j, buf = line, i + 1, []
            while j < n and text[j] != c:
                if text[j] == "\\" and j + 1 < n:
                    buf.append(text[j:j + 2])
                    j += 2
                    continue
                if text[j] == "\n":
                    line += 1
                buf.append(text[j])
                j += 1
            strings[start_line].append("".join(buf))
            code[start_line].append('""')
            i = j + 1
        else:
            code[line].append(c)
            i += 1
    return ["".join(c) for c in code], strings


def problems(text):
    out = []
    lines = text.splitlines()
    code, strings = split_code(text)
    for k, raw in enumerate(lines):
        if OPT_OUT in raw:
            continue
        for s in strings[k] if k < len(strings) else []:
            if UNIT.search(s):
                out.append((k + 1, f'a unit written by hand in "{s[:70]}"'))
        if k < len(code) and BY_HAND.search(code[k]):
            out.append((k + 1, f"bytes converted by hand: {code[k].strip()[:70]}"))
    return out


def self_check():
    assert problems('text: qsTr("KV snapshots on disk, MiB (0 = no limit)")')
    assert problems('value: Math.round(MemoryState.snapshotBudgetBytes / 1048576) }')
    assert problems('tr("larger than %2 MiB").arg(cap_ >> 20)')
    assert problems('x = "4.29 GB"')
    assert not problems('// a 50 MiB message is 100 MB of UTF-16 pages')
    assert not problems('/* 1 MiB blocks\n of 5 MB */ int a = 1;')
    assert not problems('SpinBox { to: 1048576; stepSize: 256 }')
    assert not problems('text: Chat.formatBytes(b) + qsTr(" at %1 tokens")')
    assert not problems('label: "MB" // byte-units: ok (the field takes MB)')
    assert not problems('s = "a // b"; t = "MBox"')
    assert len(problems('a = "x"\nb = "3 GB"')) == 1 and problems('a = "x"\nb = "3 GB"')[0][0] == 2


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    self_check()
    root = pathlib.Path(sys.argv[1])
    files = sorted(root.glob("ui/**/*.qml")) + sorted(root.glob("app/**/*.cpp")) + sorted(root.glob("app/**/*.h"))
    files = [f for f in files if f.parent.name != "util" or not f.name.startswith("byte_size.")]
    if len(files) < 20:
        raise SystemExit(f"check_byte_units: only {len(files)} files under {root}: the wrong folder?")
    found = 0
    for f in files:
        for line, what in problems(f.read_text(encoding="utf-8")):
            print(f"{f.relative_to(root)}:{line}: {what}")
            found += 1
    print(f"check_byte_units: {len(files)} files, {found} figure(s) not through util::format_bytes")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
