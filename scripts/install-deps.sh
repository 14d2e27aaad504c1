#!/usr/bin/env bash
# Installs the Debian 12 packages kvchat needs to build and test. Idempotent:
# installs only what is missing; uses sudo when not root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  clang libclang-rt-14-dev            # libFuzzer + sanitizers
  libgtest-dev libgmock-dev libbenchmark-dev
  libsentencepiece-dev sentencepiece  # tokenizer equivalence tests
  unicode-data                        # scripts/gen_unicode_tables.py (BPE pre-tokenizer tables)
  python3-regex                       # scripts/gen_pre_tokenizer_golden.py (pre-tokenizer truth)
  nlohmann-json3-dev                  # kvchat-cli JSON output, reference parsing
  libcpp-httplib-dev                  # kvchat-cli serve: the OpenAI-compatible HTTP server
  bible-kjv                           # `bible`: the Book of Genesis for the summarize end-to-end test
  python3-numpy                       # tests/reference: the float64 forward pass per architecture
  # The desktop app: Qt 6 Core/Sql/Quick/QML, SQLite driver, Qt Quick Controls 2
  qt6-base-dev qt6-declarative-dev libqt6sql6-sqlite qt6-charts-dev
  qt6-pdf-dev                         # text layers of PDF documents (Qt PDF)
  qtkeychain-qt6-dev                  # a remote endpoint's API key in the system keyring
  libsqlite3-dev                      # the disk-fault test's SQLite VFS (the library QSQLITE uses)
  qml6-module-qtquick qml6-module-qtquick-controls qml6-module-qtquick-layouts
  qml6-module-qtquick-window qml6-module-qtquick-templates qml6-module-qtqml-workerscript
  qml6-module-qtquick-dialogs qml6-module-qt-labs-folderlistmodel qml6-module-qtcore qml6-module-qtcharts
  qml6-module-qtqml qml6-module-qtqml-models  # their qmltypes: qmllint (scripts/check_qml.sh)
  xvfb xdotool imagemagick sqlite3 jq # the end-to-end test drives the real window
  librsvg2-bin                        # the PNG icons, rendered from the SVG at build time
  qt6-l10n-tools qt6-tools-dev        # lupdate/lrelease: the translations (i18n/*.ts)
  fonts-nanum                         # Korean glyphs for the Korean window and its screenshot
  lintian desktop-file-utils appstream  # `make test` checks the .deb and its metadata
  clang-format-14                     # `make test` checks the C++ style (scripts/check_format.sh)
  universal-ctags                     # ... and the functions' lengths (scripts/long_functions.sh)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# tests/server runs the official OpenAI JavaScript SDK: Node.js and npm. A
# machine may already have them from outside Debian (NodeSource's nodejs
# bundles npm and conflicts with Debian's npm package), so ask for the
# commands, not the packages.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
