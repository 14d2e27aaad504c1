#!/usr/bin/env bash
# Fails (exit 1) when qmllint (Qt 6.4, /usr/lib/qt6/bin/qmllint) warns about any QML file
# of ui/ (every *.qml under it): every warning of every category, unqualified access
# included, with no exception. Run by `make test` as the ctest style_qmllint (label style):
#   scripts/check_qml.sh BUILD_DIR/app
# BUILD_DIR/app holds the QML module kvchat as the build writes it (kvchat/qmldir and
# kvchat/kvchat.qmltypes: the controllers as typed singletons, app/window/qml_singletons.h),
# so qmllint checks every `Chat.…`, `Models.…` against the C++ types. QMLLINT=... picks
# another binary.
#
# Its types also come from the qmltypes files of the QML modules imported: QtQml's
# (qml6-module-qtqml: Timer, Connections, Binding, the Qt namespace's enums) and
# QtQml.Models' (qml6-module-qtqml-models: Instantiator) are not pulled in by the QtQuick
# packages; without them qmllint reports ~90 false warnings (scripts/install-deps.sh
# installs both). A `// qmllint disable` comment that turns unqualified access off (by name,
# or by naming no category) fails too; one naming another category (Qt 6.4's "type" and
# "deferred-property-id" false positives, on that line) is read as it says.
set -euo pipefail
cd "$(dirname "$0")/.."

module_dir="${1:-}"
if [ -z "$module_dir" ] || [ ! -f "$module_dir/kvchat/qmldir" ]; then
  echo "check_qml.sh: FAIL: give the build's app directory (BUILD_DIR/app, holding" \
    "kvchat/qmldir: build the target kvchat first)" >&2
  exit 1
fi
module_dir=$(cd "$module_dir" && pwd)
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

exec python3 - "$qmllint" "$module_dir" "${files[@]}" <<'PY'
import filecmp, json, os, re, subprocess, sys, tempfile

qmllint, module_dir, files = sys.argv[1], sys.argv[2], sys.argv[3:]
# qmllint reads the module's own copies (module_dir/kvchat/..., with its qmldir: the
# Theme singleton, the C++ types); each must be the file of ui/ as it is now.
copies = os.path.join(module_dir, "kvchat")
rel = {f: os.path.relpath(f, "ui") for f in files}
stale = [f for f in files if not os.path.isfile(os.path.join(copies, rel[f]))
         or not filecmp.cmp(f, os.path.join(copies, rel[f]), shallow=False)]
if stale:
    sys.exit(f"check_qml.sh: FAIL: the build's copies of {', '.join(stale)} are not the sources:"
             " build the target kvchat first")

fd, out = tempfile.mkstemp(suffix=".json"); os.close(fd)
try:
    # It exits non-zero on a warning: the JSON says which, so its status is not used.
    subprocess.run([qmllint, "--ignore-settings", "--unqualified", "warning", "-I", module_dir,
                    "--json", out] + [rel[f] for f in files], cwd=copies,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    with open(out, encoding="utf-8") as f:
        report = json.load(f)
except (OSError, ValueError) as e:
    sys.exit(f"check_qml.sh: FAIL: qmllint wrote no readable JSON ({e})")
finally:
    os.remove(out)
by_file = {os.path.join("ui", os.path.relpath(e.get("filename", "?"), copies))
           if os.path.isabs(e.get("filename", "")) else os.path.join("ui", e.get("filename", "?")): e
           for e in report.get("files", [])}

def hints(w):
    h = [s["message"].split("\n")[0].strip() for s in w.get("suggestions", []) if s.get("message")]
    return f" ({'; '.join(h)})" if h else ""

failures = []
directive = re.compile(r"//\s*qmllint\s+disable\b(.*)$")
for name in files:
    entry = by_file.get(name)
    if entry is None:
        failures.append(f"{name}: qmllint did not report on it")
        continue
    if not entry.get("success", True) and not entry.get("warnings"):
        failures.append(f"{name}: qmllint failed on it")
    for w in entry.get("warnings", []):
        failures.append(f"{name}:{w.get('line', 0)}:{w.get('column', 0)}: "
                        f"{w.get('type', 'warning')}: {w.get('message', '')}{hints(w)}")
    with open(name, encoding="utf-8") as f:
        for i, text in enumerate(f.read().split("\n")):
            m = directive.search(text)
            if m and (not m.group(1).split() or "unqualified" in m.group(1).split()):
                failures.append(f"{name}:{i + 1}: a qmllint directive switches unqualified"
                                " access (or every check) off")

if failures:
    print("\n".join(failures))
    print(f"check_qml.sh: FAIL: qmllint: {len(failures)} problems over {len(files)} QML files")
    sys.exit(1)
print(f"check_qml.sh: {len(files)} QML files, no qmllint warnings")
PY
