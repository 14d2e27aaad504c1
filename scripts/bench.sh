#!/usr/bin/env bash
# `make bench`: kvchat-cli bench on the two tiny real models and on synthetic 1B-class
# models (TinyLlama-1.1B shape, random weights, generated once into BUILD/models), each
# with the machine's read bandwidth and f32 FMA peak measured in the same run. Each
# measurement runs BENCH_REPEAT times (default 3): the figures are medians (min–max).
set -euo pipefail
build=${1:-build}
cli="$build/bin/kvchat-cli"
models="$build/models"
shared=${KVCHAT_SHARED_DIR:-../shared}
repeat=${BENCH_REPEAT:-3}
mkdir -p "$models"

echo "== kjv-demo f16 (embedded demo model)"
"$cli" bench --model resources/models/kjv-demo-f16.gguf --pp 128 --tg 256 --repeat "$repeat"
if [ -f "$shared/models/stories260K.gguf" ]; then
  echo
  echo "== stories260K f32"
  "$cli" bench --model "$shared/models/stories260K.gguf" --pp 128 --tg 256 --repeat "$repeat"
fi

for type in ${BENCH_TYPES:-f16 q8_0 q4_0 q4_k_m}; do
  m="$models/tinyllama-1.1b-$type.gguf"
  [ -f "$m" ] || "$cli" mkmodel --preset tinyllama-1.1b --type "$type" --out "$m"
  echo
  echo "== tinyllama-1.1b shape, $type, random weights"
  "$cli" bench --model "$m" --pp "${BENCH_PP:-128}" --tg "${BENCH_TG:-32}" --repeat "$repeat"
done

if [ -z "${BENCH_NO_DEPTH:-}" ]; then
  echo
  m="$models/tinyllama-1.1b-f16.gguf"
  [ -f "$m" ] || "$cli" mkmodel --preset tinyllama-1.1b --type f16 --out "$m"
  # One sample: each repeat would redo the 4096-token prefill (over a minute on 2 cores).
  echo "== tinyllama-1.1b shape, f16, decode after 4096 tokens of context (f16 KV)"
  "$cli" bench --model "$m" --contexts 0,4096 --tg 32
fi

echo
echo "== kvchat-cli serve, GET /health latency (kept-alive connection vs fresh ones)"
python3 tests/server/latency.py "$cli" resources/models/kjv-demo-f16.gguf --requests 200
