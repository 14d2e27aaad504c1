#!/usr/bin/env bash
# End-to-end: use the app as a person would, in a real window under Xvfb.
#   1. start kvchat with a fresh --data-dir, type a prompt with xdotool, press Enter;
#   2. wait for the reply, take a screenshot (kept in ARTIFACTS);
#   3. check the memory panel's KV-used value against the formula for the tokens in
#      context (2 x 6 layers x 2 kv_heads x 32 head_dim x 2 bytes = 1536 bytes per token);
#   4. quit, restart, and find the conversation and its messages again — in the app's
#      own state and in the SQLite file — with its KV state restored from the snapshot;
#   5. quit, damage the database, restart: the file is moved aside under the name the
#      window shows, and the app runs on a fresh database.
# Usage: e2e_chat.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e: FAIL: $*" >&2
  import -window root "$artifacts/e2e-failure.png" 2>/dev/null || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"

# 1. Type a prompt (the message box has focus on start) and press Enter.
start_app
# 0. The header's demo notice is whole at this width (wrapped, never cut: issue 43); its
# tooltip is the whole notice too.
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
ui() { jq -r "$1" "$ui_file" 2>/dev/null; }
notice_shown() { [ "$(ui .demo_notice_visible)" = true ]; }
wait_for 10 notice_shown || fail "no demo notice in the header"
full_notice="Tiny demo model (2.8M parameters, King James Bible): it continues scripture, it does not answer. Open a real GGUF to chat."
[ "$(ui .demo_notice_text)" = "$full_notice" ] || fail "the demo notice says '$(ui .demo_notice_text)'"
[ "$(ui .demo_notice_elided)" = false ] || fail "the demo notice is cut at 1280 px"
[ "$(ui .demo_notice_compact)" = false ] || fail "the demo notice is shortened at 1280 px"
[ "$(ui .demo_notice_tooltip)" = "$full_notice" ] || fail "the demo notice's tooltip is '$(ui .demo_notice_tooltip)', not the whole notice"
echo "e2e-chat: the demo notice is whole, not cut; its tooltip is the whole notice"
xdotool type --delay 15 "Genesis 1"
xdotool key shift+Return
xdotool type --delay 15 "1 In the beginning"
xdotool key Return
reply_finished() { [ "$(jq -r .reply_finished "$KVCHAT_TEST_STATE_FILE" 2>/dev/null)" = true ]; }
wait_for 60 reply_finished || fail "no reply within 60 s"
sleep 0.5
import -window root "$artifacts/e2e-chat.png"

# 3. The KV-used value the panel shows equals the formula.
tokens=$(state .memory.kv_tokens)
used=$(state .memory.kv_used_bytes)
[ "$tokens" -gt 13 ] || fail "only $tokens tokens in context"
[ "$used" -eq $((1536 * tokens)) ] || fail "KV used $used != 1536 x $tokens"
shown=$(state .kv_used_text)
echo "e2e: $tokens tokens in context, KV used $used bytes, panel shows '$shown'"
# The KV types' quality figures are this model's own, measured in the background
# (stored per model: after the restart they are there at once).
measured() { [ "$(state '.kv_quality.types.q4_0.top1_agreement')" != null ] && [ "$(state .kv_quality.tokens)" -gt 100 ]; }
wait_for 30 measured || fail "the KV types were not measured on the loaded model: $(state .kv_quality)"
echo "e2e: KV quality measured on this model: q4_0 mean KL $(state .kv_quality.types.q4_0.mean_kl), top-1 $(state .kv_quality.types.q4_0.top1_agreement) over $(state .kv_quality.tokens) tokens"

# 4. Quit, restart, find the conversation again.
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
db="$data/kvchat.sqlite"
[ "$(sqlite3 "$db" 'select count(*) from conversations')" -eq 1 ] || fail "conversation not stored"
[ "$(sqlite3 "$db" "select count(*) from messages where role='user' and content like 'Genesis 1%In the beginning'")" -eq 1 ] || fail "user message not stored"
reply=$(sqlite3 "$db" "select content from messages where role='assistant'")
[ -n "$reply" ] || fail "reply not stored"
start_app
wait_for 10 test -s "$KVCHAT_TEST_STATE_FILE" || fail "no state after restart"
[ "$(state .conversations)" -eq 1 ] || fail "the restarted app does not list the conversation"
[ "$(state .messages)" -eq 2 ] || fail "the restarted app does not show both messages"
restored() { state .snapshot_status | grep -q "restored from the snapshot"; }
wait_for 20 restored || fail "the KV state was not restored from its snapshot: $(state .snapshot_status)"
[ "$(state .memory.kv_tokens)" -eq "$tokens" ] || fail "restored $(state .memory.kv_tokens) tokens, expected $tokens"
measured || fail "the stored KV quality figures were not used after the restart"
import -window root "$artifacts/e2e-restarted.png"
echo "e2e: reply of ${#reply} characters stored; found again after restart, KV restored from its snapshot"

# 5. A damaged database at start.
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
rm -f "$db-wal" "$db-shm"
head -c 65536 /dev/urandom > "$data/garbage"
cp "$data/garbage" "$db"
start_app
wait_for 10 test -s "$KVCHAT_TEST_STATE_FILE" || fail "no state after a damaged database"
moved=$(ls "$data"/kvchat.sqlite.corrupt-* 2>/dev/null | head -1)
[ -n "$moved" ] || fail "the damaged database was not moved aside"
cmp -s "$moved" "$data/garbage" || fail "the file moved aside is not the damaged one"
state .startup_notice | grep -qF "$moved" || fail "the window does not name $moved: $(state .startup_notice)"
[ "$(state .conversations)" -eq 0 ] || fail "the fresh database is not empty"
[ "$(sqlite3 "$db" 'pragma integrity_check')" = ok ] || fail "the fresh database is not ok"
import -window root "$artifacts/e2e-damaged-database.png"
echo "e2e: a damaged database was moved aside to $(basename "$moved"), named in the window"
echo "1 passed, 0 failed"
