#!/usr/bin/env bash
# End-to-end, keyboard only (issue 26 point 5): a user message is edited in place.
#   1. send a message, wait for the reply;
#   2. Shift+Tab back to the message's Edit button, Space: the bubble's text becomes an edit
#      field holding it, with the focus (typing goes there) and the cursor at its end;
#   3. Shift+Enter adds a newline there, Enter resends: the edited text is the user message
#      (shown and stored) and a new reply follows it (still two messages);
#   4. Up in the empty message box edits it again; emptied, Enter resends nothing;
#   5. Esc cancels: nothing changes, the bubble shows its text, the focus is back in the
#      message box;
#   6. Alt+Left shows the first branch again, Alt+Right the edited one: each time the KV of
#      the branch shown comes back from the RAM tier (issue 46: 0 tokens evaluated again),
#      holding the tokens it held when it was left.
# Usage: e2e_edit_message.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"

ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
fail() {
  echo "e2e-edit-message: FAIL: $*" >&2
  import -window root "$artifacts/e2e-edit-message-failure.png" 2>/dev/null || true
  [ -f "$ui_file" ] && jq -c '{focus, editing_row, edit_text, input_text}' "$ui_file" >&2 || true
  [ -f "$KVCHAT_TEST_STATE_FILE" ] && jq -c '{messages, reply: .reply.shown_texts}' "$KVCHAT_TEST_STATE_FILE" >&2 || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
db="$data/kvchat.sqlite"
ui() { jq -r "$@" "$ui_file" 2>/dev/null; }
is_ui() { [ "$(ui "$1")" = "$2" ]; }
focused() { ui .focus.object_name; }
# The user message shown (the path shown; an edit keeps the old text as another branch).
stored_user() { sqlite3 "$db" "select content from messages where role='user' and shown = 1 order by id"; }
# The last reply is finished (not streaming) and there are two messages.
replied() {
  [ "$(state .messages)" = 2 ] && [ "$(state .reply.role)" = assistant ] &&
    [ "$(state .reply.state)" = complete ] && [ "$(state .reply_finished)" = true ]
}

# 1. A message and its reply.
start_app
wait_for 30 model_loaded || fail "the demo model did not load"
wait_for 10 is_ui .focus.object_name messageInput || fail "the message box does not have the focus at start"
first="Genesis 1:1"
xdotool type --delay 15 "$first"
xdotool key Return
wait_for 60 replied || fail "no reply within 60 s"
reply1=$(state .reply.content)
wait_for 10 eval '[ "$(state .memory.kv_tokens)" -gt 0 ]' || fail "no KV tokens after the reply"
tokens1=$(state .memory.kv_tokens)
[ "$(stored_user)" = "$first" ] || fail "the message was stored as '$(stored_user)'"
echo "e2e-edit-message: sent '$first', replied"

# 2. Shift+Tab back to the Edit button (waited for at each step), Space.
edit_focused() { ui .focus.name | grep -qx "Edit\( your message\)\?"; }
for presses in $(seq 1 40); do
  edit_focused && break
  before=$(ui -c .focus)
  xdotool key shift+Tab
  wait_for 3 eval '[ "$(ui -c .focus)" != "$before" ]' || fail "Shift+Tab $presses did not move the focus from $before"
done
edit_focused || fail "no Edit button on the Tab order (40 Shift+Tabs)"
echo "e2e-edit-message: Edit reached with $presses Shift+Tab(s)"
xdotool key space
wait_for 5 is_ui .focus.object_name editMessageField || fail "Edit did not put the focus in an edit field (focus: $(focused))"
is_ui .editing_row 0 || fail "the user message (row 0) is not the one edited: $(ui .editing_row)"
is_ui .edit_text "$first" || fail "the edit field does not hold the message: '$(ui .edit_text)'"
is_ui .edit_cursor "${#first}" || fail "the cursor is not at the end: $(ui .edit_cursor)"
sleep 0.3
import -window root "$artifacts/e2e-edit-message-editing.png"

# 3. Typing goes there, Shift+Enter is a newline, Enter resends.
xdotool type --delay 15 " edited"
xdotool key shift+Return
xdotool type --delay 15 "second line"
edited="$first edited
second line"
wait_for 5 is_ui .edit_text "$edited" || fail "typing did not go into the edit field: '$(ui .edit_text)'"
is_ui .input_text "" || fail "typing went into the message box: '$(ui .input_text)'"
[ "$(state .messages)" = 2 ] || fail "Shift+Enter resent"
[ "$(stored_user)" = "$first" ] || fail "the message changed before Enter"
xdotool key Return
edited_and_replied() { replied && [ "$(state '.reply.shown_texts[0]')" = "$edited" ] && [ "$(state .reply.content)" != "$reply1" ]; }
wait_for 60 edited_and_replied || fail "Enter did not resend the edited text with a new reply"
[ "$(stored_user)" = "$edited" ] || fail "the stored user message is '$(stored_user)'"
[ "$(sqlite3 "$db" 'select count(*) from messages where shown = 1')" = 2 ] || fail "not two stored messages shown"
[ "$(sqlite3 "$db" "select count(*) from messages where shown = 0 and content = '$first'")" = 1 ] || fail "the text before the edit is not kept as the other branch"
wait_for 5 is_ui .editing_row -1 || fail "the edit field stayed open after resending"
wait_for 5 is_ui .focus.object_name messageInput || fail "after resending the focus is on $(focused), not the message box"
sleep 0.3
import -window root "$artifacts/e2e-edit-message-resent.png"
echo "e2e-edit-message: Enter resent the edited text (2 lines); a new reply followed"

# 4. Up in the empty box edits the last user message; an empty text is not resent.
reply2=$(state .reply.content)
xdotool key Up
wait_for 5 is_ui .focus.object_name editMessageField || fail "Up in the empty box did not edit the last message (focus: $(focused))"
is_ui .edit_text "$edited" || fail "Up: the edit field holds '$(ui .edit_text)'"
is_ui .edit_cursor "${#edited}" || fail "Up: the cursor is not at the end: $(ui .edit_cursor)"
xdotool key ctrl+a BackSpace space space
wait_for 5 is_ui .edit_text "  " || fail "the edit field was not emptied: '$(ui .edit_text)'"
is_ui .edit_can_resend false || fail "a whitespace-only text can be resent"
xdotool key Return
sleep 1
is_ui .focus.object_name editMessageField || fail "Enter on an empty text closed the edit field"
[ "$(state .reply.content)" = "$reply2" ] && [ "$(stored_user)" = "$edited" ] || fail "Enter resent an empty text"

# 5. Esc cancels: the text as it was, the focus back in the message box.
xdotool key Escape
wait_for 5 is_ui .editing_row -1 || fail "Esc did not close the edit field"
wait_for 5 is_ui .focus.object_name messageInput || fail "after Esc the focus is on $(focused), not the message box"
[ "$(state '.reply.shown_texts[0]')" = "$edited" ] || fail "after Esc the bubble shows '$(state '.reply.shown_texts[0]')'"
[ "$(stored_user)" = "$edited" ] && [ "$(state .messages)" = 2 ] && [ "$(state .reply.content)" = "$reply2" ] ||
  fail "Esc changed the conversation"
xdotool type --delay 15 "x"
wait_for 5 is_ui .input_text x || fail "after Esc typing does not go into the message box: '$(ui .input_text)'"
echo "e2e-edit-message: Up edits the last message; an empty text is not resent; Esc cancels"

# 6. Branch switches by keyboard: the branch left waits in the RAM tier, the one shown
# comes back from it with every token it held, nothing evaluated again.
tokens2=$(state .memory.kv_tokens)
xdotool key BackSpace
wait_for 5 is_ui .input_text "" || fail "the message box was not emptied: '$(ui .input_text)'"
from_ram() { state .snapshot_status | grep -q "came back from RAM"; }
first_shown() { [ "$(state '.reply.shown_texts[0]')" = "$first" ] && [ "$(state .reply.content)" = "$reply1" ]; }
xdotool key alt+Left
wait_for 10 first_shown || fail "Alt+Left did not show the first branch: '$(state '.reply.shown_texts[0]')'"
wait_for 10 from_ram || fail "the first branch's KV did not come back from RAM: $(state .snapshot_status)"
wait_for 5 eval '[ "$(state .memory.kv_tokens)" = "$tokens1" ]' ||
  fail "the first branch holds $(state .memory.kv_tokens) tokens from RAM, it had $tokens1"
edited_shown() { [ "$(state '.reply.shown_texts[0]')" = "$edited" ] && [ "$(state .reply.content)" = "$reply2" ]; }
xdotool key alt+Right
wait_for 10 edited_shown || fail "Alt+Right did not show the edited branch: '$(state '.reply.shown_texts[0]')'"
wait_for 10 from_ram || fail "the edited branch's KV did not come back from RAM: $(state .snapshot_status)"
wait_for 5 eval '[ "$(state .memory.kv_tokens)" = "$tokens2" ]' ||
  fail "the edited branch holds $(state .memory.kv_tokens) tokens from RAM, it had $tokens2"
echo "e2e-edit-message: Alt+Left / Alt+Right switched branches, each KV back from RAM ($tokens1 and $tokens2 tokens)"
echo "1 passed, 0 failed"
