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
status=$?

# Beyond loopback (issue 40 point 5): refused without a key unless --allow-no-key, and a
# warning whenever the bind is beyond loopback. The key from a file or the environment
# (never on the command line, where /proc/PID/cmdline shows it to every user).
# serve_once NAME ARGS...: starts serve, waits for "port" or its exit, stops it.
serve_once() {
  local name=$1
  shift
  "$@" >"$out/$name.out" 2>"$out/$name.err" &
  local p=$!
  for _ in $(seq 100); do
    grep -q '^port ' "$out/$name.out" 2>/dev/null && break
    kill -0 $p 2>/dev/null || break
    sleep 0.05
  done
  kill -TERM $p 2>/dev/null || true
  wait $p 2>/dev/null
}
expect() {  # expect NAME CONDITION-COMMAND...
  local name=$1
  shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
serve_once open "$cli" serve --model "$model" --host 0.0.0.0 --port 0 || true
expect "0.0.0.0 without a key is refused" \
  bash -c "! grep -q '^port ' '$out/open.out' && grep -q 'without an API key' '$out/open.err'"
serve_once consent "$cli" serve --model "$model" --host 0.0.0.0 --port 0 --allow-no-key || true
expect "0.0.0.0 --allow-no-key serves, with a warning" \
  bash -c "grep -q '^port ' '$out/consent.out' && grep -q 'warning: listening on 0.0.0.0' '$out/consent.err'"
printf 'f1le-k3y\n' >"$out/key"
chmod 600 "$out/key"
serve_once keyfile "$cli" serve --model "$model" --host 0.0.0.0 --port 0 --api-key-file "$out/key" || true
expect "0.0.0.0 with --api-key-file serves, with a warning" \
  bash -c "grep -q '^port ' '$out/keyfile.out' && grep -q 'warning: listening on 0.0.0.0' '$out/keyfile.err'"
KVCHAT_API_KEY=env-k3y "$cli" serve --model "$model" --port 0 >"$out/env.out" 2>"$out/env.err" &
envpid=$!
for _ in $(seq 100); do grep -q '^port ' "$out/env.out" && break; sleep 0.05; done
envport=$(sed -n 's/^port //p' "$out/env.out")
expect "KVCHAT_API_KEY is the key" bash -c "
  [[ \$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer env-k3y' http://127.0.0.1:$envport/v1/models) == 200 ]] &&
  [[ \$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$envport/v1/models) == 401 ]]"
expect "the key is not in the command line" bash -c "! tr '\\0' ' ' </proc/$envpid/cmdline | grep -q env-k3y"
kill -TERM $envpid
wait $envpid || true

echo "serve exited $status; $fails failures"
[[ $status == 0 && $fails == 0 ]]
