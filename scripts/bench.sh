#!/usr/bin/env bash
# `make bench`: kvchat-cli bench on the demo model and on synthetic 1B-class models
# (TinyLlama-1.1B shape, random weights, generated once into BUILD/models).
set -euo pipefail
build=${1:-build}
cli="$build/bin/kvchat-cli"
models="$build/models"
mkdir -p "$models"

echo "== kjv-demo f16 (embedded demo model)"
"$cli" bench --model resources/models/kjv-demo-f16.gguf --pp 256 --tg 128

for type in ${BENCH_TYPES:-f16 q8_0 q4_0}; do
  m="$models/tinyllama-1.1b-$type.gguf"
  [ -f "$m" ] || "$cli" mkmodel --preset tinyllama-1.1b --type "$type" --out "$m"
  echo
  echo "== tinyllama-1.1b shape, $type, random weights"
  "$cli" bench --model "$m" --pp "${BENCH_PP:-128}" --tg "${BENCH_TG:-32}"
done
