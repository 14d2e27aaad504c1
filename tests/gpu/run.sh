#!/usr/bin/env bash
# The GPU check, in one device call of under 8 minutes (H200, sm_90):
#   1. build the engine, kvchat-cli and the `gpu` tests for sm_90 (KVCHAT_GPU_CHECK mode:
#      dependencies from .gpu-deps, filled here beforehand by tests/gpu/prepare.sh);
#   2. run the `gpu` ctest suite (every architecture against the CPU, windows, rope
#      scalings, partial offload: test_cuda_architectures; kernels and backend);
#   3. kvchat-cli bench --backend cuda on synthetic models of real shapes (mkmodel,
#      random weights) and print one table: decode tok/s, bytes read per token, GB/s and
#      share of the device-to-device copy bandwidth; prefill tok/s and TFLOP/s against a
#      cuBLAS GEMM, all measured in the same process;
#   4. partial offload: the 8B Q4_0 file with half its layers on the GPU against the CPU
#      backend alone (decode tok/s, the issue's target: the split is faster).
# Everything it prints and the JSON of each bench lands in $OUT (or /tmp/kvchat-gpu).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/kvchat-gpu}
mkdir -p "$out"
models=${GPU_MODELS:-/tmp/kvchat-models}
mkdir -p "$models"
log() { echo "[$(date +%T)] $*"; }

if [ ! -d .gpu-deps/googletest ]; then
  echo "run.sh: .gpu-deps/ is missing: run tests/gpu/prepare.sh on the build machine and carry .gpu-deps" >&2
  exit 2
fi
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader || true
log "configure + build (sm_90)"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DKVCHAT_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DKVCHAT_GPU_CHECK=ON -DKVCHAT_DEPS_DIR="$PWD/.gpu-deps" \
  -DKVCHAT_SHARED_DIR="$PWD/.gpu-deps/shared" >"$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" >"$out/build.log" 2>&1 || { grep -E "error|FAILED" "$out/build.log" | head -40; exit 1; }

log "gpu tests"
(cd build-gpu && ctest -L gpu --output-on-failure -j "${GPU_TEST_JOBS:-4}" --timeout "${GPU_TEST_TIMEOUT:-240}") 2>&1 |
  tee "$out/ctest.log" | tail -60
tests_rc=${PIPESTATUS[0]}
# GPU_BENCH=0: the tests only (a first look, or a rerun after a fix).
if [ "${GPU_BENCH:-1}" = 0 ]; then
  log "done (gpu tests rc=$tests_rc; benches skipped: GPU_BENCH=0)"
  exit "$tests_rc"
fi

cli=build-gpu/bin/kvchat-cli
bench() {  # name preset type [bench args...]
  local name=$1 preset=$2 type=$3
  shift 3
  local m="$models/$preset-$type.gguf"
  [ -f "$m" ] || $cli mkmodel --preset "$preset" --type "$type" --out "$m" >/dev/null || return 1
  log "bench $name"
  $cli bench --backend cuda --model "$m" --json --bw-mib 2048 "$@" >"$out/bench-$name.json" 2>"$out/bench-$name.err" ||
    { tail -5 "$out/bench-$name.err"; return 1; }
}
split_bench() {  # name backend [bench args...]: decode only, into split-NAME.json
  local name=$1 backend=$2
  shift 2
  log "split bench $name"
  $cli bench --backend "$backend" --model "$models/llama-3-8b-q4_0.gguf" --json --contexts 0 "$@" \
    >"$out/split-$name.json" 2>"$out/split-$name.err" || { tail -5 "$out/split-$name.err"; return 1; }
}
bench llama-3.2-1b-f16 llama-3.2-1b f16 --contexts 512 --tg 256
bench llama-3-8b-f16 llama-3-8b f16 --contexts 512,4096,16384 --kv-types f16,q8_0 --tg 128
bench llama-3-8b-f16-pp2048 llama-3-8b f16 --contexts 2048 --tg 8
rm -f "$models/llama-3-8b-f16.gguf"  # disk: 16 GB
bench llama-3-8b-q8_0 llama-3-8b q8_0 --contexts 512 --tg 128
bench llama-3-8b-q4_0 llama-3-8b q4_0 --contexts 512 --tg 128
split_bench gpu16 cuda --gpu-layers 16 --tg 64
split_bench cpu cpu --tg 32
# The K-types (skipped, with mkmodel's message, where mkmodel cannot write them yet).
bench llama-3.2-1b-q4_k llama-3.2-1b q4_k --contexts 512 --tg 128
bench llama-3.2-1b-q6_k llama-3.2-1b q6_k --contexts 512 --tg 128

log "results"
{
  printf "%-22s %-5s %7s %11s %11s %9s %9s %12s %9s %9s\n" model kv ctx "decode t/s" "MB/token" "GB/s" "%copy" "prefill t/s" "TFLOP/s" "%cuBLAS"
  for f in "$out"/bench-*.json; do
    name=$(basename "$f" .json); name=${name#bench-}
    python3 - "$f" "$name" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for r in j["runs"]:
    mb = (j["weight_bytes_per_token"] + r["kv_bytes_read_per_token_avg"]) / 1e6
    print("%-22s %-5s %7d %11.1f %11.1f %9.0f %8.1f%% %12.0f %9.1f %8.1f%%" % (
        sys.argv[2], r["kv_type"], r["context"], r["decode_tokens_per_second"], mb,
        r["decode_bytes_per_second"] / 1e9, 100 * r["decode_share_of_copy_bandwidth"],
        r["prefill_tokens_per_second"], r["prefill_flops_per_second"] / 1e12,
        100 * r.get("prefill_share_of_gemm_rate", 0)))
print("%-22s copy %.0f GB/s (read+write), cuBLAS f16 GEMM %.0f TFLOP/s, %s" % (
    "", j["copy_bandwidth_bytes_per_second"] / 1e9, j.get("gemm_flops_per_second", 0) / 1e12, j["device"]))
PY
  done
  for f in "$out"/split-*.json; do
    [ -f "$f" ] || continue
    python3 - "$f" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
r = j["runs"][0]
print("%-22s %-5s decode %.1f tok/s (llama-3-8b q4_0, %s)" % (
    "split " + sys.argv[1].rsplit("split-", 1)[1][:-5], r["kv_type"], r["decode_tokens_per_second"],
    j.get("backend", "?")))
PY
  done
} | tee "$out/table.txt"
log "done (gpu tests rc=$tests_rc)"
exit "$tests_rc"
