#!/usr/bin/env bash
# End-to-end, keyboard only (issue 26 point 2): a reply cut off by a SIGKILL of the app is
# stored interrupted, and at the next start its bubble offers Continue and Regenerate as a
# reply cut at the length limit does.
#   1. a first run makes the data directory; long replies (max tokens 2000) are set in it;
#   2. a message is sent and the app is killed (SIGKILL) while the reply streams (some of
#      its text already saved);
#   3. restarted: the reply is "interrupted", with its saved text, and the last bubble
#      offers "continue" and "regenerate";
#   4. Ctrl+Shift+E (Continue's shortcut) continues it in place: still 2 messages, the
#      reply longer and starting with the interrupted text.
# Usage: e2e_kill_reply.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e-kill-reply: FAIL: $*" >&2
  import -window root "$artifacts/e2e-kill-reply-failure.png" 2>/dev/null || true
  [ -f "$KVCHAT_TEST_STATE_FILE" ] && jq -c .reply "$KVCHAT_TEST_STATE_FILE" >&2 || true
  [ -f "$KVCHAT_TEST_STATE_FILE.ui.json" ] && jq -c .last_bubble_actions "$KVCHAT_TEST_STATE_FILE.ui.json" >&2 || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
db="$data/kvchat.sqlite"
sql() { sqlite3 "$db" "$1"; }
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
ui() { jq -r "$1" "$ui_file" 2>/dev/null; }
actions() { jq -c .last_bubble_actions "$ui_file" 2>/dev/null; }

# 1. A first run makes the data directory; then long replies.
start_app
wait_for 30 model_loaded || fail "the demo model did not load"
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
sql "insert or replace into settings values ('sampling', '[{\"temperature\":0.8,\"top_k\":40,\"top_p\":0.95,\"min_p\":0.05,\"repeat_penalty\":1.0,\"seed\":-1,\"max_tokens\":2000}]')"

# 2. Send, and kill the app while the reply streams (once some of it is saved). A sampled
#    reply can end (end of text) before any of it is saved while streaming: then the
#    conversation is removed and the step tried again, at most three times.
saved_streaming() { [ "$(sql "select length(content) from messages where role = 'assistant' and state = 'streaming'")" -gt 0 ]; }
ended() { [ "$(sql "select count(*) from messages where role = 'assistant' and state = 'complete'")" -gt 0 ]; }
streaming_or_ended() { saved_streaming || ended; }
#    A context of 4096 (kept for the model): on a fast machine the demo model fills its own 512
#    in 0.27 s, about one save interval (250 ms), so the reply could end before it was saved.
for attempt in 1 2 3; do
  start_app --ctx 4096
  wait_for 30 model_loaded || fail "the demo model did not load on start $((attempt + 1))"
  xdotool type --delay 15 "Genesis 1"
  xdotool key Return
  wait_for 30 streaming_or_ended || fail "no streaming reply was saved (state: $(sql "select state, length(content) from messages where role = 'assistant'"))"
  if saved_streaming; then
    kill -KILL "$app_pid"; wait "$app_pid" 2>/dev/null || true
    break
  fi
  echo "e2e-kill-reply: the reply ended before any of it was saved streaming (attempt $attempt); again"
  kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
  sql "delete from messages; delete from conversations"
  [ "$attempt" -lt 3 ] || fail "three replies ended before any of them was saved streaming"
done
[ "$(sql "select state from messages where role = 'assistant'")" = streaming ] || fail "the reply was not streaming when the app was killed"
killed_text=$(sql "select content from messages where role = 'assistant'")
echo "e2e-kill-reply: killed while streaming, ${#killed_text} characters saved"

# 3. Restart: interrupted, with Continue and Regenerate offered.
start_app
interrupted() { [ "$(state .reply.role)" = assistant ] && [ "$(state .reply.state)" = interrupted ]; }
wait_for 20 interrupted || fail "after the restart the reply is not interrupted"
[ "$(state .messages)" -eq 2 ] || fail "after the restart $(state .messages) messages are shown"
[ "$(state .reply.content)" = "$killed_text" ] || fail "the interrupted reply is not the text saved before the kill"
offers() { [ "$(ui '.last_bubble_actions | index("continue") != null and index("regenerate") != null')" = true ]; }
wait_for 10 offers || fail "the interrupted reply's bubble offers $(actions), not Continue and Regenerate"
sleep 0.3
import -window root "$artifacts/e2e-kill-reply-interrupted.png"
echo "e2e-kill-reply: after the restart the interrupted reply offers $(actions)"

# 4. Continue by its shortcut: the same reply, longer.
xdotool key ctrl+shift+e
continued() {
  [ "$(state .reply.state)" = complete ] && [ "$(state .reply.stats.continued)" = 1 ]
}
wait_for 120 continued || fail "Ctrl+Shift+E did not continue the interrupted reply"
whole=$(state .reply.content)
[ "${whole:0:${#killed_text}}" = "$killed_text" ] && [ ${#whole} -gt ${#killed_text} ] ||
  fail "the continued reply (${#whole} characters) does not extend the interrupted one (${#killed_text})"
[ "$(state .messages)" -eq 2 ] || fail "Continue added a message: $(state .messages) shown"
gone() { [ "$(ui '.last_bubble_actions | index("regenerate") == null')" = true ]; }
wait_for 5 gone || fail "the continued reply still offers $(actions)"
import -window root "$artifacts/e2e-kill-reply-continued.png"
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
echo "e2e-kill-reply: Continue extended the interrupted reply from ${#killed_text} to ${#whole} characters"
echo "1 passed, 0 failed"
