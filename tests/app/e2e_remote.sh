#!/usr/bin/env bash
# End-to-end, keyboard only (issue 48 point 5): a model served elsewhere, in the window.
#   1. kvchat-cli serve runs the demo model with an API key: a real OpenAI-compatible
#      endpoint on this machine;
#   2. Ctrl+Shift+M, Ctrl+PgDown twice: Models → Remote, the focus in the address field;
#      the URL, Tab, the key, Enter adds the endpoint; its model is listed and its Open has
#      the focus; Space opens it (the key kept in a 0600 file: KVCHAT_KEYRING=off);
#   3. a message: the reply streams from the server; the memory panel shows the server's
#      /health (its sessions, KV bytes) and this conversation's tokens;
#   4. a second endpoint, tests/remote/fake_openai_server.py streaming slowly: its model
#      opened the same way; a message, then Esc stops it: the reply keeps what came,
#      marked stopped;
#   5. the window closes and starts again: the conversation is back on its remote model,
#      its messages from SQLite.
# Usage: e2e_remote.sh KVCHAT_BINARY ARTIFACT_DIR KVCHAT_CLI MODEL FAKE_SERVER  (under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
cli=$3
model=$4
fake=$5
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e-remote: FAIL: $*" >&2
  import -window root "$artifacts/e2e-remote-failure.png" 2>/dev/null || true
  [ -f "$KVCHAT_TEST_STATE_FILE" ] && jq -c '{model_path, model_error, notice, remote, reply: {state: .reply.state, stats: .reply.stats, content: .reply.content}}' "$KVCHAT_TEST_STATE_FILE" >&2 || true
  [ -f "$KVCHAT_TEST_STATE_FILE.ui.json" ] && jq -c '{focus, remote_models}' "$KVCHAT_TEST_STATE_FILE.ui.json" >&2 || true
  exit 1
}
source "$(dirname "$0")/e2e_lib.sh"
export KVCHAT_KEYRING=off
db="$data/kvchat.sqlite"
focused() { ui .focus.object_name; }
state_c() { jq -c "$1" "$KVCHAT_TEST_STATE_FILE" 2>/dev/null; }

# 1. The endpoint: kvchat-cli serve with a key.
key_text="sk-e2e-remote-$$"
(umask 077 && echo "$key_text" >"$data/server.key")
"$cli" serve --model "$model" --port 0 --api-key-file "$data/server.key" --parallel 2 \
  >"$data/serve.out" 2>"$data/serve.err" &
wait_for 20 grep -q '^port ' "$data/serve.out" || fail "kvchat-cli serve did not start: $(cat "$data/serve.err")"
url="http://127.0.0.1:$(sed -n 's/^port //p' "$data/serve.out")/v1"
served=$(basename "$model" .gguf)
start_app
wait_for 30 model_loaded || fail "the demo model did not load"

# 2. Models → Remote, by keyboard; an endpoint added, its model opened.
add_endpoint() {  # add_endpoint URL KEY: the Remote tab's form, by keyboard
  key ctrl+shift+m
  wait_for 5 eval '[ "$(ui .remote_models.open)" = true ]' || fail "Ctrl+Shift+M did not open the Models page"
  for _ in 1 2 3; do
    [ "$(ui .remote_models.tab)" = 2 ] && break
    key ctrl+Next
  done
  wait_for 5 eval '[ "$(focused)" = remoteUrlField ]' || fail "the address field does not have the focus: $(focused)"
  xdotool type --delay 10 "$1"
  key Tab
  [ "$(focused)" = remoteKeyField ] || fail "Tab did not reach the key field: $(focused)"
  [ -z "$2" ] || xdotool type --delay 10 "$2"
  key Return
}
open_listed_model() {  # open_listed_model ENDPOINT_INDEX MODEL_ID
  wait_for 15 eval '[ "$(state ".remote.endpoints['"$1"'].state")" = ready ]' ||
    fail "the endpoint's models were not listed: $(state_c ".remote.endpoints[$1]")"
  [ "$(state ".remote.endpoints[$1].models[0].id")" = "$2" ] || fail "its model is not $2: $(state_c ".remote.endpoints[$1].models")"
  wait_for 5 eval '[ "$(focused)" = remoteOpenButton ]' || fail "Open does not have the focus: $(focused)"
  key space
  wait_for 20 eval '[ "$(state .remote.active)" = true ] && [ "$(state .model_loading)" = false ]' ||
    fail "the remote model did not open: $(state .model_error)"
  [[ "$(state .model_path)" == remote://* ]] || fail "the loaded model is not remote: $(state .model_path)"
  key Escape
}
add_endpoint "$url" "$key_text"
[ -z "$(state .remote.endpoints[0].key)" ] && fail "the key was not kept"
[ "$(state .remote.endpoints[0].key)" = file ] || fail "the key is not in the file: $(state .remote.endpoints[0].key)"
[ "$(stat -c %a "$data/remote_keys.json")" = 600 ] || fail "remote_keys.json is not 0600: $(stat -c %a "$data/remote_keys.json")"
! grep -q "$key_text" "$data/remote_endpoints.json" || fail "the key is in remote_endpoints.json"
open_listed_model 0 "$served"
echo "e2e-remote: $url added by keyboard, its key in a 0600 file, $served opened"

# 3. A message: the reply streams from the server; the panel shows its /health.
xdotool type --delay 15 "In the beginning"
xdotool key Return
finished() { [ "$(state .reply_finished)" = true ] && [ "$(state .reply.state)" != streaming ]; }
wait_for 60 finished || fail "no reply within 60 s"
[ -n "$(state .reply.content)" ] || fail "the reply is empty"
[ "$(state .reply.stats.generated_tokens)" -gt 0 ] || fail "no tokens counted: $(state_c .reply.stats)"
reply_text=$(state .reply.content)
wait_for 15 eval '[ "$(state .remote.memory.source)" = kvchat ]' || fail "the panel has no figures from /health: $(state_c .remote.memory)"
[ "$(state '.remote.memory.sessions_busy + .remote.memory.sessions_idle')" = 2 ] || fail "the server's sessions: $(state_c .remote.memory)"
[ "$(state .remote.memory.conversation_tokens)" -gt 0 ] || fail "the conversation's tokens are not counted"
sleep 0.5
import -window root "$artifacts/e2e-remote-reply.png"
echo "e2e-remote: replied '$(head -c 50 <<<"$reply_text")'; the panel reads the server's /health"

# 4. A slow endpoint: Esc stops its reply, what came is kept.
python3 "$fake" slow-stream "$data/fake.log" >"$data/fake.out" 2>/dev/null &
wait_for 10 eval '[ "$(wc -l <"$data/fake.out")" -ge 2 ]' || fail "the fake endpoint did not start"
add_endpoint "http://127.0.0.1:$(head -1 "$data/fake.out")/v1" ""
open_listed_model 1 fake-model
xdotool type --delay 15 "Tell me slowly"
xdotool key Return
wait_for 10 eval '[[ "$(state .reply.content)" == *w1* ]]' || fail "the slow reply did not stream: $(state .reply.content)"
key Escape
wait_for 10 eval '[ "$(state .reply.state)" != streaming ]' || fail "Esc did not stop the reply"
[ "$(state .reply.stats.stop_reason)" = cancelled ] || fail "the stopped reply: $(state_c .reply.stats)"
stopped_text=$(state .reply.content)
[[ "$stopped_text" == w0\ w1* ]] || fail "the stopped reply lost its text: $stopped_text"
[[ "$stopped_text" != *w49* ]] || fail "the reply was not stopped"
messages=$(state .messages)
echo "e2e-remote: the slow reply stopped by Esc at '$stopped_text'"

# 5. Closed and started again: the conversation is back on its remote model.
key ctrl+q
wait_for 20 eval '! kill -0 $app_pid' || fail "the window did not close"
window_title="kvchat — fake-model"
start_app
wait_for 30 eval '[ "$(state .remote.active)" = true ] && [ "$(state .model_loading)" = false ]' ||
  fail "the conversation's remote model did not open again: $(state .model_path) $(state .model_error)"
[[ "$(state .model_path)" == remote://*/fake-model ]] || fail "another model opened: $(state .model_path)"
[ "$(state .messages)" = "$messages" ] || fail "the conversation has $(state .messages) messages, not $messages"
wait_for 10 eval '[ "$(state .remote.memory.conversation_tokens)" -gt 0 ]' ||
  fail "the panel does not count the reopened conversation's tokens: $(state_c .remote.memory)"
[ "$(sqlite3 "$db" "select count(*) from messages where content like 'w0 w1%'")" -ge 1 ] || fail "the stopped reply is not stored"
sleep 0.5
import -window root "$artifacts/e2e-remote-reopened.png"
echo "e2e-remote: after a restart the conversation is on fake-model again; PASS"
