#!/usr/bin/env bash
# Issue 41 point 3: the host emulation loads through the real plugin path
# (KVCHAT_CUDA_PLUGIN + --backend cuda) and anyone can run a model through it:
# `info --json` says it is the host emulation; greedy generation through it writes the
# same text as the CPU backend, and `logits --decode` (each token a decode step through the
# paged cache) agree within 1e-3 of the largest |logit|.
# Usage: cli_host_plugin.sh KVCHAT_CLI PLUGIN MODEL...
set -euo pipefail
cli=$1 plugin=$2
shift 2
fail() { echo "FAIL: $*" >&2; exit 1; }
err=$(mktemp)
trap 'rm -f "$err"' EXIT
info=$(KVCHAT_CUDA_PLUGIN=$plugin "$cli" info --json --model "$1" 2>/dev/null)
[ "$(echo "$info" | jq -r .cuda.plugin.host_emulation)" = true ] \
  || fail "info --json does not say the plugin is the host emulation: $(echo "$info" | jq -c .cuda)"
for model in "$@"; do
  name=$(basename "$model")
  cpu=$("$cli" generate --model "$model" --prompt "In the beginning" -n 24 --temp 0 --backend cpu 2>/dev/null | head -c 4000)
  emu=$(KVCHAT_CUDA_PLUGIN=$plugin "$cli" generate --model "$model" --prompt "In the beginning" -n 24 --temp 0 --backend cuda 2>"$err" | head -c 4000) \
    || fail "$name: the emulated CUDA backend failed: $(cat "$err")"
  [ -n "$cpu" ] || fail "$name: the CPU backend wrote nothing"
  [ "$cpu" = "$emu" ] || fail "$name: greedy text differs: cpu [$cpu] vs emulated cuda [$emu]"
  echo "   $name: 24 greedy tokens identical through the host plugin"
  "$cli" logits --model "$model" --ids 1,20,30,40,50,60,70 --decode --backend cpu > /tmp/kvchat-logits-cpu.$$ 2>/dev/null
  KVCHAT_CUDA_PLUGIN=$plugin "$cli" logits --model "$model" --ids 1,20,30,40,50,60,70 --decode --backend cuda > /tmp/kvchat-logits-cuda.$$ 2>/dev/null
  python3 - /tmp/kvchat-logits-cpu.$$ /tmp/kvchat-logits-cuda.$$ "$name" <<'PY' || { rm -f /tmp/kvchat-logits-*.$$; fail "$name: logits differ"; }
import json, sys
def last(path):
    return json.load(open(path))["logits"][-1]
a, b = last(sys.argv[1]), last(sys.argv[2])
assert len(a) == len(b) and a, (len(a), len(b))
scale = max(abs(x) for x in a)
worst = max(abs(x - y) for x, y in zip(a, b))
print(f"   {sys.argv[3]}: logits max |diff| {worst:.3g} of max |logit| {scale:.3g}")
sys.exit(0 if worst <= 1e-3 * scale else 1)
PY
  rm -f /tmp/kvchat-logits-*.$$
done
echo PASS
