#!/bin/sh
# Lists the functions longer than LIMIT lines (default 100) in the C++ and CUDA sources of
# app/, engine/src and tools/, longest first, and fails (exit 1) when there is one. Run by
# `make test` as the ctest style_function_length (label style):
#   scripts/long_functions.sh [LIMIT] [TREE]
# Universal Ctags (universal-ctags) finds each function's first and last line; a lambda is
# counted inside the function that holds it.
limit=${1:-100}
cd "${2:-$(dirname "$0")/..}" || exit 1
if ! command -v ctags >/dev/null 2>&1 || ! ctags --version 2>/dev/null | grep -q Universal; then
  echo "long_functions.sh: FAIL: Universal Ctags not found: install universal-ctags" \
    "(scripts/install-deps.sh)" >&2
  exit 1
fi
long=$(find app engine/src tools -name '*.cpp' -o -name '*.cu' -o -name '*.h' -o -name '*.cuh' |
  xargs ctags --language-force=C++ --c++-kinds=f --fields=+ne -o - 2>/dev/null |
  awk -F'\t' -v limit="$limit" '
    $1 !~ /^__anon/ {
      line = ""; end = "";
      for (i = 4; i <= NF; i++) {
        if ($i ~ /^line:/) line = substr($i, 6);
        if ($i ~ /^end:/) end = substr($i, 5);
      }
      if (line != "" && end != "" && end - line + 1 > limit)
        printf "%5d  %s:%s  %s\n", end - line + 1, $2, line, $1;
    }' | sort -rn)
if [ -n "$long" ]; then
  echo "$long"
  echo "long_functions.sh: FAIL: functions over $limit lines (split them by what each part does)"
  exit 1
fi
echo "long_functions.sh: no function over $limit lines in app/, engine/src, tools/"
