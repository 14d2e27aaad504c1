#!/usr/bin/env bash
# kvchat-cli serve: every error status with curl, each in OpenAI's error shape.
# Usage: errors.sh KVCHAT_CLI MODEL
set -euo pipefail
cli=$1 model=$2
out=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$out"' EXIT
"$cli" serve --model "$model" --port 0 --api-key k3y --parallel 1 --ctx 32768 \
  --max-body-bytes 4096 >"$out/stdout" 2>"$out/stderr" &
pid=$!
for _ in $(seq 100); do grep -q '^port ' "$out/stdout" && break; sleep 0.05; done
port=$(sed -n 's/^port //p' "$out/stdout")
base=http://127.0.0.1:$port
fails=0
# check NAME EXPECTED_STATUS EXPECTED_BODY_REGEX curl-args...
check() {
  local name=$1 want=$2 body_re=$3
  shift 3
  local got
  got=$(curl -s -o "$out/body" -w '%{http_code}' "$@")
  if [[ $got != "$want" ]] || ! grep -Eq "$body_re" "$out/body" ||
     ! grep -q '"error":{' "$out/body"; then
    echo "FAIL $name: status $got (want $want): $(head -c 300 "$out/body")"
    fails=$((fails + 1))
  else
    echo "ok   $name: $got"
  fi
}
auth=(-H 'Authorization: Bearer k3y' -H 'Content-Type: application/json')
chat=$base/v1/chat/completions
msg='"messages":[{"role":"user","content":"hi"}]'
check "malformed JSON" 400 '"param":null' "${auth[@]}" -d '{"model":' "$chat"
check "wrong type" 400 '"param":"max_tokens"' "${auth[@]}" \
  -d "{\"model\":\"kjv-demo-f16\",$msg,\"max_tokens\":\"9\"}" "$chat"
check "bad value" 400 '"param":"temperature"' "${auth[@]}" \
  -d "{\"model\":\"kjv-demo-f16\",$msg,\"temperature\":9}" "$chat"
check "n > 1" 400 '"param":"n"' "${auth[@]}" -d "{\"model\":\"kjv-demo-f16\",$msg,\"n\":2}" "$chat"
check "non-UTF-8" 400 'JSON' "${auth[@]}" \
  --data-binary $'{"model":"kjv-demo-f16","messages":[{"role":"user","content":"\xff"}]}' "$chat"
check "no key" 401 'invalid_api_key' -d "{\"model\":\"kjv-demo-f16\",$msg}" "$chat"
check "wrong key" 401 'invalid_api_key' -H 'Authorization: Bearer nope' \
  -d "{\"model\":\"kjv-demo-f16\",$msg}" "$chat"
check "unknown model" 404 'model_not_found' "${auth[@]}" -d "{\"model\":\"gpt-9\",$msg}" "$chat"
check "unknown route" 404 'unknown_url' "${auth[@]}" "$base/v1/nothing"
head -c 5000 /dev/zero | tr '\0' 'a' >"$out/big"
check "body too large" 413 'too large' "${auth[@]}" --data-binary @"$out/big" "$chat"
# 503: the only session streams a long reply meanwhile.
curl -sN "${auth[@]}" -d "{\"model\":\"kjv-demo-f16\",$msg,\"stream\":true,\"max_tokens\":30000,\"stop\":\"@@\"}" \
  "$chat" >/dev/null &
long=$!
for _ in $(seq 100); do
  curl -s -H 'Authorization: Bearer k3y' "$base/health" | grep -q '"busy":1' && break
  sleep 0.02
done
check "busy" 503 'server_busy' -D "$out/headers" "${auth[@]}" -d "{\"model\":\"kjv-demo-f16\",$msg}" "$chat"
if ! grep -qi '^Retry-After: 1' "$out/headers"; then
  echo "FAIL busy: no Retry-After header"
  fails=$((fails + 1))
fi
kill $long 2>/dev/null || true
wait $long 2>/dev/null || true
if grep -q k3y "$out/stderr"; then
  echo "FAIL the key was logged"
  fails=$((fails + 1))
fi
kill -TERM $pid
wait $pid
echo "serve exited $?; $fails failures"
[[ $fails == 0 ]]
