#!/usr/bin/env bash
# End-to-end: the conversation list and what belongs to each conversation, keyboard only.
#   1. a reply in conversation A, Ctrl+N, a reply in B: the memory panel's KV timeline is
#      B's own (it starts at 0 tokens), and comes back as A's when A is opened again from
#      the list (Ctrl+F, Down, Down, Enter), its KV from the RAM tier (B's goes there);
#   2. F2 renames the conversation under the cursor (the name is selected: typing replaces
#      it, Enter keeps it); F2 then Esc leaves it as it was;
#   2b. the Menu key's Export as Markdown / JSON write the stored messages to the path typed;
#   3. Delete hides it at once, Ctrl+Z brings it back with its messages; Delete again and
#      it is gone from the database a few seconds later;
#   4. Ctrl+N twice: one empty "New chat", not two;
#   5. a conversation long enough to scroll, opened again from the list after another one:
#      the message list is at its end (the newest message shown);
#   6. a search typed in the sidebar (Ctrl+F) that only an old conversation matches, then
#      Ctrl+N: the search is cleared, the new conversation is open and listed.
# Usage: e2e_conversations.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e-conversations: FAIL: $*" >&2
  import -window root "$artifacts/e2e-conversations-failure.png" 2>/dev/null || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
is() { [ "$(state "$1")" = "$2" ]; }
db="$data/kvchat.sqlite"
sql() { sqlite3 "$db" "$1"; }
replied() {  # replied N: the open conversation shows N messages, the last one a finished reply
  [ "$(state .messages)" = "$1" ] && [ "$(state .last_message.role)" = assistant ] &&
    [ "$(state .last_message.stats.stop_reason)" != null ]
}

# 1. Conversation A, then B; each timeline is its own.
start_app
xdotool type --delay 15 "Genesis 1"
xdotool key Return
wait_for 60 replied 2 || fail "no reply in A"
a=$(state .current_conversation)
snapshot_saved() { [ "$(state .snapshot_bytes)" -gt 0 ]; }
wait_for 10 snapshot_saved || fail "no snapshot saved for A"
a_tokens=$(state .memory_history_last_tokens)
a_points=$(state .memory_history_points)
# The reply's length varies (a fresh seed per reply, and it may end early): more tokens than
# the prompt's and at least two points, whatever it wrote.
[ "$a_tokens" -gt 4 ] && [ "$a_points" -ge 2 ] || fail "A's timeline: $a_points points, last at $a_tokens tokens"
xdotool key ctrl+n
wait_for 10 is .memory_history_last_tokens 0 || fail "B's timeline does not start empty: $(state .memory_history_last_tokens) tokens"
b=$(state .current_conversation)
[ "$b" != "$a" ] || fail "Ctrl+N did not open a new conversation"
xdotool type --delay 15 "Exodus 2 1 And there went a man of the house of Levi"
xdotool key Return
wait_for 60 replied 2 || fail "no reply in B"
b_tokens=$(state .memory_history_last_tokens)
[ "$b_tokens" -gt 0 ] && [ "$b_tokens" != "$a_tokens" ] || fail "B's timeline ends at $b_tokens tokens (A's at $a_tokens)"
# Open A from the list: Ctrl+F, Down into the list (the cursor on B, the open one), Down, Enter.
xdotool key ctrl+f Down Down Return
wait_for 10 is .current_conversation "$a" || fail "Enter in the list did not open A (open: $(state .current_conversation))"
wait_for 20 is .memory_history_last_tokens "$a_tokens" || fail "A's timeline did not come back: last point at $(state .memory_history_last_tokens) tokens, A had $a_tokens"
[ "$(state .memory_history_points)" -ge "$a_points" ] || fail "A's timeline has $(state .memory_history_points) points, it had $a_points"
# A's KV came back from the RAM tier (0 tokens evaluated), and B waits there now.
state .snapshot_status | grep -q "came back from RAM" || fail "A's snapshot line: $(state .snapshot_status)"
[ "$(state .memory.kv_tokens)" = "$a_tokens" ] || fail "A holds $(state .memory.kv_tokens) tokens from RAM, it had $a_tokens"
wait_for 10 is .memory.ram_tier.conversations 1 || fail "B is not in the RAM tier: $(state '.memory.ram_tier | tostring')"
import -window root "$artifacts/e2e-conversations-timeline.png"
echo "e2e-conversations: timelines per conversation: A $a_points points up to $a_tokens tokens, B up to $b_tokens tokens"

# 2. F2 rename (the list still has the focus, its cursor on A).
xdotool key F2
sleep 0.5
xdotool type --delay 15 "Psalms and more"
xdotool key Return
wait_for 10 is '.conversation_titles | index("Psalms and more") != null' true || fail "F2 + Enter did not rename: $(state .conversation_titles)"
[ "$(sql "select title from conversations where id = $a")" = "Psalms and more" ] || fail "the new name is not stored"
xdotool key F2
sleep 0.5
xdotool type --delay 15 "not this"
xdotool key Escape
sleep 1
[ "$(sql "select title from conversations where id = $a")" = "Psalms and more" ] || fail "Esc did not cancel the rename"
echo "e2e-conversations: F2 renamed A; F2 then Esc left it"

# 2b. Export by keyboard: the Menu key, "Export as Markdown…" / "Export as JSON…", a path
# typed over the one proposed, Enter. The files hold the stored messages.
xdotool key Menu
sleep 0.3
xdotool key Down Down Return
sleep 0.5
xdotool key ctrl+a
xdotool type --delay 5 "$data/export.md"
import -window root "$artifacts/e2e-conversations-export.png"
xdotool key Return
wait_for 10 test -s "$data/export.md" || fail "Export as Markdown wrote nothing"
sql "select content from messages where conversation_id = $a order by id" > "$data/stored.txt"
[ "$(head -1 "$data/export.md")" = "# Psalms and more" ] || fail "the Markdown export does not start with the title: $(head -1 "$data/export.md")"
grep -qxF "Genesis 1" "$data/export.md" || fail "the Markdown export lacks the user message"
reply_line=$(sql "select content from messages where conversation_id = $a and role = 'assistant'" | grep -m1 .)
grep -qF "$reply_line" "$data/export.md" || fail "the Markdown export lacks the reply"
xdotool key Menu
sleep 0.3
xdotool key Down Down Down Return
sleep 0.5
xdotool key ctrl+a
xdotool type --delay 5 "$data/export.json"
xdotool key Return
wait_for 10 test -s "$data/export.json" || fail "Export as JSON wrote nothing"
[ "$(jq -r '.messages | length' "$data/export.json")" = 2 ] || fail "the JSON export has $(jq -r '.messages | length' "$data/export.json") messages"
jq -r '.messages[].content' "$data/export.json" > "$data/exported.txt"
cmp -s "$data/stored.txt" "$data/exported.txt" || fail "the JSON export's messages differ from the stored ones"
echo "e2e-conversations: exported A as Markdown ($(wc -c < "$data/export.md") bytes) and JSON, both with the stored messages"

# 3. Delete, undo; delete for good.
xdotool key Delete
wait_for 10 is .pending_delete.title "Psalms and more" || fail "Delete did not delete A: $(state .pending_delete)"
is '.conversation_titles | index("Psalms and more") == null' true || fail "the deleted conversation is still listed"
import -window root "$artifacts/e2e-conversations-undo.png"
xdotool key ctrl+z
wait_for 10 is .pending_delete '{}' || fail "Ctrl+Z did not undo: $(state .pending_delete)"
wait_for 10 is .current_conversation "$a" || fail "the undone conversation is not open again"
[ "$(state .messages)" -eq 2 ] || fail "the undone conversation shows $(state .messages) messages"
[ "$(sql "select count(*) from messages where conversation_id = $a")" -eq 2 ] || fail "A's messages are not all stored"
xdotool key ctrl+f Down Delete
wait_for 10 is .pending_delete.title "Psalms and more" || fail "the second Delete did not delete A"
gone() { [ "$(sql "select count(*) from conversations where id = $a")" = 0 ]; }
wait_for 15 gone || fail "A is still in the database after the undo time"
[ "$(sql "select count(*) from messages where conversation_id = $a")" -eq 0 ] || fail "A's messages were left behind"
echo "e2e-conversations: Delete, Ctrl+Z brought A back with its 2 messages; Delete again removed it from the database"

# 4. No empty duplicates.
xdotool key ctrl+n
sleep 0.5
xdotool key ctrl+n
sleep 0.5
xdotool key ctrl+n
sleep 1
[ "$(sql "select count(*) from conversations")" -eq 2 ] || fail "Ctrl+N three times left $(sql "select count(*) from conversations") conversations (expected B and one new)"
echo "e2e-conversations: Ctrl+N three times: one empty conversation"

# 5. A long conversation C (the new one, open): several replies, more than the list shows.
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
ui() { jq -r "$1" "$ui_file" 2>/dev/null; }
c=$(state .current_conversation)
n=0
for verse in "Genesis 1 1" "Exodus 3 14" "Psalms 23 1" "Isaiah 40 31" "Matthew 5 3" "John 1 1"; do
  xdotool type --delay 15 "$verse"
  xdotool key Return
  n=$((n + 2))
  wait_for 60 replied $n || fail "no reply $n in C"
done
taller() { [ "$(ui '.message_list_content_height > 2 * .message_list_height')" = true ]; }
wait_for 10 taller || fail "C does not scroll: content $(ui .message_list_content_height) px in a list of $(ui .message_list_height) px"
# Open B (Ctrl+F, Down onto C, Down onto B, Enter), then C again (Ctrl+F, Down onto B, Up, Enter).
xdotool key ctrl+f Down Down Return
wait_for 10 is .current_conversation "$b" || fail "Enter in the list did not open B (open: $(state .current_conversation))"
wait_for 10 is .messages 2 || fail "B shows $(state .messages) messages"
sleep 0.5
xdotool key ctrl+f Down Up Return
wait_for 10 is .current_conversation "$c" || fail "Enter in the list did not open C (open: $(state .current_conversation))"
shown_all() { [ "$(ui .message_list_count)" = "$n" ]; }
wait_for 10 shown_all || fail "C's list shows $(ui .message_list_count) messages, expected $n"
sleep 1  # the window's own repositioning is done by now; the list must stay at its end
at_end() { [ "$(ui .message_list_at_end)" = true ]; }
wait_for 5 at_end || fail "C opened away from its newest message: contentY $(ui .message_list_content_y) of $(ui .message_list_content_height) px (list $(ui .message_list_height) px)"
import -window root "$artifacts/e2e-conversations-scrolled.png"
echo "e2e-conversations: C ($n messages, $(ui .message_list_content_height) px in $(ui .message_list_height) px) opened again at its newest message"

# 6. A search that only B matches (its typed words: the sampled replies of the demo model
# can hold any word of the Bible, "Levi" too), then Ctrl+N: the new chat is not hidden.
xdotool key ctrl+f
xdotool type --delay 15 "Exodus 2 1"
wait_for 10 is .conversations 1 || fail "the search 'Exodus 2 1' lists $(state .conversations) conversations (expected B alone)"
wait_for 5 is .search_text "Exodus 2 1" || fail "the state does not show the search: $(state .search_text)"
xdotool key ctrl+n
new_open() { [ "$(state .current_conversation)" != "$c" ] && [ "$(state .current_conversation)" != "$b" ]; }
wait_for 10 new_open || fail "Ctrl+N with a search did not open a new conversation (open: $(state .current_conversation))"
wait_for 10 is .current_listed true || fail "the new conversation is not listed under the search: $(state .conversation_titles)"
wait_for 5 is .conversations 3 || fail "after Ctrl+N the list shows $(state .conversations) conversations: $(state .conversation_titles) (expected B, C and the new one)"
is '.conversation_titles | index("New chat") != null' true || fail "'New chat' is not listed: $(state .conversation_titles)"
wait_for 5 is .search_text "" || fail "the search is still '$(state .search_text)' after Ctrl+N"
field_empty() { [ "$(ui .sidebar_search_text)" = "" ]; }
wait_for 5 field_empty || fail "the search field still shows '$(ui .sidebar_search_text)'"
import -window root "$artifacts/e2e-conversations-new-under-search.png"
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
echo "e2e-conversations: Ctrl+N under the search 'Exodus 2 1' cleared it: the new chat is open and listed"
echo "1 passed, 0 failed"
