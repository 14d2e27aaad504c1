#!/usr/bin/env bash
# Fails (exit 1), listing each file, when a C/C++/CUDA file of the tree
# (scripts/format_files.sh) differs from what clang-format-14 makes of it with the
# repository's .clang-format. Fix with scripts/format.sh. Run by `make test` as the ctest
# style_clang_format (label style). CLANG_FORMAT=... picks another binary.
set -euo pipefail
cd "$(dirname "$0")/.."

clang_format="${CLANG_FORMAT:-clang-format-14}"
if ! command -v "$clang_format" >/dev/null 2>&1; then
  echo "check_format.sh: FAIL: $clang_format not found: install it with" \
    "scripts/install-deps.sh (Debian package clang-format-14)" >&2
  exit 1
fi

mapfile -t files < <(scripts/format_files.sh)
if [ ${#files[@]} -eq 0 ]; then
  echo "check_format.sh: FAIL: no C/C++ files found (run from a kvchat checkout)" >&2
  exit 1
fi

# One clang-format over all the files (not in parallel: the processes' stderr would
# interleave); each file that would change gets one line
# "FILE:LINE:COL: error: code should be clang-formatted" (--ferror-limit=1).
unformatted=$(printf '%s\n' "${files[@]}" | xargs -r -d '\n' \
  "$clang_format" --dry-run -Werror --ferror-limit=1 --style=file 2>&1 \
  | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*/\1/p' | sort -u || true)

if [ -n "$unformatted" ]; then
  count=$(printf '%s\n' "$unformatted" | wc -l)
  echo "check_format.sh: FAIL: $count of ${#files[@]} files are not formatted" \
    "($clang_format, .clang-format):"
  printf '  %s\n' $unformatted
  echo "Format them with scripts/format.sh (or $clang_format -i FILE);" \
    "see a file's changes with: $clang_format FILE | diff FILE -"
  exit 1
fi
echo "check_format.sh: ${#files[@]} files formatted ($clang_format)"
