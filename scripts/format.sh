#!/usr/bin/env bash
# Formats in place every C/C++/CUDA file of the tree (scripts/format_files.sh: the tracked
# ones under app/ engine/ tests/ tools/, less the generated) with clang-format-14 and the
# repository's .clang-format. `make test` checks the result (scripts/check_format.sh).
# CLANG_FORMAT=... picks another binary (the style is settled against version 14).
set -euo pipefail
cd "$(dirname "$0")/.."

clang_format="${CLANG_FORMAT:-clang-format-14}"
if ! command -v "$clang_format" >/dev/null 2>&1; then
  echo "format.sh: $clang_format not found: install it with scripts/install-deps.sh" \
    "(Debian package clang-format-14)" >&2
  exit 1
fi

scripts/format_files.sh | xargs -r -d '\n' -n 32 -P "$(nproc)" "$clang_format" -i --style=file
scripts/format_files.sh | wc -l | xargs printf 'format.sh: %s files formatted\n'
