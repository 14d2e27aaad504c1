#!/usr/bin/env bash
# kvchat-cli chat --remote against kvchat-cli serve (a real OpenAI-compatible endpoint with
# a key): a reply, /regenerate (greedy: the same text), /continue, /edit, /undo, /memory
# (the server's /health: its sessions; the KV estimate from --shape-from), and the
# refusals: a model it does not serve, a wrong key, what needs local weights.
# Usage: cli_chat_remote.sh KVCHAT_CLI MODEL
set -euo pipefail
cli=$1 model=$2
out=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$out"' EXIT
umask 077
echo "sk-cli-remote-1" >"$out/key"
echo "sk-wrong" >"$out/wrong"
"$cli" serve --model "$model" --port 0 --api-key-file "$out/key" --parallel 2 \
  >"$out/stdout" 2>"$out/stderr" &
pid=$!
for _ in $(seq 200); do grep -q '^port ' "$out/stdout" && break; sleep 0.05; done
url=http://127.0.0.1:$(sed -n 's/^port //p' "$out/stdout")
name=$(basename "$model" .gguf)
fails=0
expect() {  # expect DESCRIPTION JQ-CONDITION FILE
  if jq -e -s "$2" "$3" >/dev/null; then echo "ok   $1"; else
    echo "FAIL $1: $(head -c 600 "$3")"; fails=$((fails + 1)); fi
}
printf '%s\n' "In the beginning" /regenerate /continue "/edit 1 And God said" /undo /memory \
  /summarize /messages |
  "$cli" chat --remote "$url" --model "$name" --api-key-file "$out/key" -n 12 --temp 0 \
    --shape-from "$model" --json >"$out/chat.jsonl" 2>"$out/chat.err" && rc=0 || rc=$?
expect "a reply streamed" 'map(select(.event=="reply"))[0] | (.text|length>0) and .completion_tokens==12' "$out/chat.jsonl"
expect "regenerate gives the same greedy text" '(map(select(.event=="reply"))[0].text) == (map(select(.event=="regenerate"))[0].text)' "$out/chat.jsonl"
expect "continue went on with the reply" 'map(select(.event=="continue"))[0] | (.text|length>0) and .prompt_tokens>12' "$out/chat.jsonl"
expect "edit replied to the new text, undo took it back" 'map(select(.event=="undone"))[0].messages==0' "$out/chat.jsonl"
expect "/memory: the server's sessions and the estimate" 'map(select(.event=="memory"))[0] | .source=="kvchat" and (.sessions_busy+.sessions_idle)==2 and .estimate_kv_bytes>0' "$out/chat.jsonl"
expect "/summarize refused by name" 'map(select(.event=="error"))[0].message | test("needs the model.s weights")' "$out/chat.jsonl"
[[ $rc == 1 ]] && echo "ok   exit 1 after the refused /summarize" || { echo "FAIL exit status $rc"; fails=$((fails + 1)); }
# A model it does not serve; a wrong key (not shown).
if echo hi | "$cli" chat --remote "$url" --model no-such --api-key-file "$out/key" 2>"$out/err1"; then
  echo "FAIL a model it does not serve was accepted"; fails=$((fails + 1))
elif grep -q "does not serve 'no-such'; it serves: $name" "$out/err1"; then echo "ok   unknown model named"; else
  echo "FAIL unknown model: $(cat "$out/err1")"; fails=$((fails + 1)); fi
echo hi | "$cli" chat --remote "$url" --model "$name" --api-key-file "$out/wrong" --json \
  >"$out/wrong.jsonl" 2>"$out/err2" || true
if grep -q "refused the API key (HTTP 401)" "$out/err2" && ! grep -q "sk-wrong" "$out/err2"; then
  echo "ok   a wrong key refused in words"; else echo "FAIL wrong key: $(cat "$out/err2")"; fails=$((fails + 1)); fi
exit $fails
