#!/usr/bin/env bash
# Fails (exit 1) when qmllint (Qt 6.4, /usr/lib/qt6/bin/qmllint) warns about any QML file
# of ui/ (every *.qml under it). Run by `make test` as the ctest style_qmllint (label
# style). QMLLINT=... picks another binary.
#
# Its types come from the qmltypes files of the QML modules imported: QtQml's
# (qml6-module-qtqml: Timer, Connections, Binding, the Qt namespace's enums) and
# QtQml.Models' (qml6-module-qtqml-models: Instantiator) are not pulled in by the QtQuick
# packages; without them qmllint reports ~90 false warnings (scripts/install-deps.sh
# installs both).
#
# The rule: every qmllint warning of every category fails, unqualified access included
# (delegates read their model roles as `required property`, ids are qualified with the
# component that owns them, a file gets what it needs from another as properties). ONE
# exception: an "Unqualified access" whose identifier is a C++ context property that
# app/main.cpp sets (each `setContextProperty(QStringLiteral("NAME")` there, extracted on
# every run, so the list follows main.cpp). Why those: qmllint 6.4 knows only the types
# of QML modules with qmltypes; it cannot see a context property set from C++ at run
# time, so every bare `chat`, `modelHub`, ... reads to it as unqualified. Making them
# visible would mean typed singletons in a QML module (qt_add_qml_module, generated
# qmltypes): a C++ change of its own.
# A `// qmllint disable` comment that turns unqualified access off (named, or by
# disabling every category) fails too: the exception above is the only one.
#
# How: qmllint writes JSON (--json); the identifier of an unqualified access is the
# source text at its line/column/length. qmllint 6.4 reports only the FIRST unqualified
# access of each binding or function, so a binding that starts with an accepted
# `chat.` could hide a bare name after it: a second run lints a copy of ui/ in which each
# bare context property is replaced by `Object` (a global qmllint knows: reads through it
# give a "method" warning but do not end the analysis), and every unqualified access it
# finds fails, at its place in the real file.
set -euo pipefail
cd "$(dirname "$0")/.."

qmllint="${QMLLINT:-/usr/lib/qt6/bin/qmllint}"
if ! command -v "$qmllint" >/dev/null 2>&1; then
  echo "check_qml.sh: FAIL: $qmllint not found: install qt6-declarative-dev" \
    "(scripts/install-deps.sh)" >&2
  exit 1
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "check_qml.sh: FAIL: python3 not found (it reads qmllint's JSON)" >&2
  exit 1
fi
qml_dir=$("$(dirname "$qmllint")/qtpaths6" --query QT_INSTALL_QML 2>/dev/null \
  || echo /usr/lib/x86_64-linux-gnu/qt6/qml)
for module in QtQml QtQml/Models; do
  if [ ! -f "$qml_dir/$module/plugins.qmltypes" ]; then
    echo "check_qml.sh: FAIL: $qml_dir/$module/plugins.qmltypes is missing: install" \
      "qml6-module-qtqml and qml6-module-qtqml-models (scripts/install-deps.sh)" >&2
    exit 1
  fi
done

mapfile -t files < <(find ui -name '*.qml' | sort)
if [ ${#files[@]} -eq 0 ]; then
  echo "check_qml.sh: FAIL: no QML files under ui/ (run from a kvchat checkout)" >&2
  exit 1
fi

exec python3 - "$qmllint" app/main.cpp "${files[@]}" <<'PY'
import json, os, re, shutil, subprocess, sys, tempfile

qmllint, main_cpp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(main_cpp, encoding="utf-8") as f:
    context = sorted(set(re.findall(
        r'setContextProperty\(\s*QStringLiteral\(\s*"(\w+)"\s*\)', f.read())))
if not context:
    sys.exit(f"check_qml.sh: FAIL: no setContextProperty(QStringLiteral(\"...\")) in {main_cpp}")

def lint(root):
    """qmllint over the files under root; its JSON report, by path relative to root."""
    fd, out = tempfile.mkstemp(suffix=".json"); os.close(fd)
    try:
        # It exits non-zero on a warning: the JSON says which, so its status is not used.
        subprocess.run([qmllint, "--ignore-settings", "--unqualified", "warning", "--json", out]
                       + [os.path.join(root, f) for f in files],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        with open(out, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"check_qml.sh: FAIL: qmllint wrote no readable JSON ({e})")
    finally:
        os.remove(out)
    return {os.path.relpath(e.get("filename", "?"), root): e for e in report.get("files", [])}

def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().split("\n")

def hints(w):
    h = [s["message"].split("\n")[0].strip() for s in w.get("suggestions", []) if s.get("message")]
    return f" ({'; '.join(h)})" if h else ""

failures, accepted = {}, 0
sources = {f: read_lines(f) for f in files}

# 1. The files as they are: everything fails but a bare context property.
report = lint(".")
for name in files:
    entry = report.get(name)
    if entry is None:
        failures[(name, 0, 0)] = f"{name}: qmllint did not report on it"
        continue
    if not entry.get("success", True) and not entry.get("warnings"):
        failures[(name, 0, 0)] = f"{name}: qmllint failed on it"
    for w in entry.get("warnings", []):
        line, col, msg = w.get("line", 0), w.get("column", 0), w.get("message", "")
        if msg == "Unqualified access":
            text = sources[name][line - 1] if 0 < line <= len(sources[name]) else ""
            ident = text[col - 1:col - 1 + w.get("length", 0)] if col > 0 else ""
            if ident in context:
                accepted += 1
                continue
            msg = f"Unqualified access: {ident or '?'}"
        failures[(name, line, col)] = f"{name}:{line}:{col}: {w.get('type', 'warning')}: {msg}{hints(w)}"

# 2. A copy with each bare context property as `Object`: the unqualified accesses that
# the accepted ones hid. Strings and comments are left as they are.
token = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`|//.*$')
bare = re.compile(r'(?<![.\w$])(' + '|'.join(context) + r')\b(?!\s*:(?!:))')
tmp = tempfile.mkdtemp(prefix="check_qml.")
shifts = {}  # (file, line) -> [(column in the copy, columns added)]
try:
    shutil.copytree("ui", os.path.join(tmp, "ui"))
    for name in files:
        lines = list(sources[name])
        for i, text in enumerate(lines):
            out, pos, moved = [], 0, []
            def code(seg, base):
                def sub(m):
                    at = base + m.start() + sum(d for _, d in moved)
                    moved.append((at, len("Object") - len(m.group(1))))
                    return "Object"
                return bare.sub(sub, seg)
            for m in token.finditer(text):
                out += [code(text[pos:m.start()], pos), m.group(0)]
                pos = m.end()
            out.append(code(text[pos:], pos))
            lines[i] = "".join(out)
            if moved:
                shifts[(name, i + 1)] = moved
        with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    report = lint(tmp)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
for name in files:
    for w in (report.get(name) or {}).get("warnings", []):
        if w.get("message") != "Unqualified access":
            continue
        line, col = w.get("line", 0), w.get("column", 0)
        col -= sum(d for at, d in shifts.get((name, line), []) if at < col - 1)
        text = sources[name][line - 1] if 0 < line <= len(sources[name]) else ""
        ident = re.match(r"[\w$]*", text[col - 1:]).group(0) if col > 0 else ""
        failures.setdefault((name, line, col),
                            f"{name}:{line}:{col}: warning: Unqualified access: {ident or '?'}{hints(w)}")

# 3. No comment may switch unqualified access off.
directive = re.compile(r"//\s*qmllint\s+disable\b(.*)$")
for name in files:
    for i, text in enumerate(sources[name]):
        m = directive.search(text)
        if m and (not m.group(1).split() or "unqualified" in m.group(1).split()):
            failures[(name, i + 1, m.start() + 1)] = \
                f"{name}:{i + 1}:{m.start() + 1}: a qmllint directive disables unqualified access"

if failures:
    print("\n".join(failures[k] for k in sorted(failures)))
    print(f"check_qml.sh: FAIL: qmllint: {len(failures)} problems over {len(files)} QML files"
          f" (accepted bare, as context properties of {main_cpp}: {', '.join(context)})")
    sys.exit(1)
print(f"check_qml.sh: {len(files)} QML files, no qmllint warnings ({accepted} bare reads of"
      f" the {len(context)} context properties of {main_cpp} accepted)")
PY
