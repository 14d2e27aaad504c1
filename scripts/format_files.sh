#!/usr/bin/env bash
# Prints, one a line, the C/C++/CUDA files that .clang-format governs: the tracked ones
# (git ls-files) under app/ engine/ tests/ tools/, less the generated ones. Shared by
# scripts/format.sh and scripts/check_format.sh. Outside a git checkout (a source tarball),
# the same folders are searched with find.
set -euo pipefail
cd "$(dirname "$0")/.."

dirs=(app engine tests tools)
# Generated: written by a script, never by hand (regenerate instead of formatting).
excluded='^engine/src/tokenizer/unicode_tables\.cpp$'

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -- "${dirs[@]/%//*.h}" "${dirs[@]/%//*.hpp}" "${dirs[@]/%//*.cpp}" \
    "${dirs[@]/%//*.cc}" "${dirs[@]/%//*.c}" "${dirs[@]/%//*.inl}" "${dirs[@]/%//*.cu}" \
    "${dirs[@]/%//*.cuh}"
else
  existing=()
  for d in "${dirs[@]}"; do [ -d "$d" ] && existing+=("$d"); done
  [ ${#existing[@]} -eq 0 ] || find "${existing[@]}" -type f \( -name '*.h' -o -name '*.hpp' \
    -o -name '*.cpp' -o -name '*.cc' -o -name '*.c' -o -name '*.inl' -o -name '*.cu' \
    -o -name '*.cuh' \) | sort
fi | grep -Ev "$excluded" | while IFS= read -r f; do
  # A tracked file deleted in the working tree is not there to format.
  [ -f "$f" ] && printf '%s\n' "$f"
done
