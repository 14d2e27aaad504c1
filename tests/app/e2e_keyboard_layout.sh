#!/usr/bin/env bash
# End-to-end (issue 13 points 7 and 8): the window used from the keyboard alone, and its
# layout from 800x600 to 1600x1000 and at QT_SCALE_FACTOR=2, in a real window under Xvfb.
# What the window shows is read from the state files the app writes (KVCHAT_TEST_STATE_FILE
# and, for the layout, the focus and the Tab order, "<that file>.ui.json").
#   1. typing: Shift+Enter is a newline, Ctrl+Tab a tab; Tab leaves the box with the text
#      kept, Shift+Tab comes back; Tab goes round every control (each with an accessible
#      name, the conversations among them) and back to the box;
#   2. Enter sends; Ctrl+N makes a new chat whose box has the focus, wherever it was;
#   3. Ctrl+= / Ctrl++ / Ctrl+- / Ctrl+0 zoom the type; Ctrl+, opens Settings, Ctrl+M
#      hides and shows the memory panel; Ctrl+Q quits cleanly (exit 0, all saved); the
#      zoom is there again after a restart;
#   4. layout at 800x600 (also at zoom 2), 1000x700 (memory panel as a drawer, the chat
#      keeps its room), 1280x800, 1600x1000 and 3840x2160 (docked beside the chat, no overlap, lines
#      capped near 80 characters), the header's buttons inside the window; the same at
#      twice the scale.
# Usage: e2e_keyboard_layout.sh KVCHAT_BINARY ARTIFACT_DIR   (under xvfb-run, a screen of at
# least 3840x2160: 4K, and the 2x sizes)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"

fail() {
  echo "e2e: FAIL: $*" >&2
  import -window root "$artifacts/e2e-keyboard-layout-failure.png" 2>/dev/null || true
  [ -f "$ui_file" ] && jq -c 'del(.tab_order)' "$ui_file" >&2
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
ui() { if [ "$1" = -c ]; then jq -c "$2" "$ui_file" 2>/dev/null; else jq -r "$1" "$ui_file" 2>/dev/null; fi; }
# ui_is JQ VALUE: waits (3 s) until the window reports VALUE for JQ.
ui_is() { local q=$1 v=$2; wait_for 3 eval '[ "$(ui "$q")" = "$v" ]'; }
expect_ui() { ui_is "$1" "$2" || fail "$3: $1 is '$(ui "$1")', expected '$2'"; }
key() { xdotool key --clearmodifiers "$@"; sleep 0.3; }
focused() { ui .focus.object_name; }

start_app --theme light
wait_for 10 test -s "$ui_file" || fail "the window wrote no UI state"
expect_ui .focus.object_name messageInput "at start"

# 1. Typing, and leaving the box.
xdotool type --delay 15 "Genesis 1"
key shift+Return
xdotool type --delay 15 "1 In the beginning"
expect_ui .input_text $'Genesis 1\n1 In the beginning' "Shift+Enter"
key ctrl+Tab
expect_ui .input_text $'Genesis 1\n1 In the beginning\t' "Ctrl+Tab"
key BackSpace
key Tab
sleep 0.4
[ "$(focused)" != messageInput ] || fail "Tab did not leave the message box"
expect_ui .input_text $'Genesis 1\n1 In the beginning' "after Tab (the text is kept)"
key shift+Tab
expect_ui .focus.object_name messageInput "Shift+Tab back"
echo "e2e: Shift+Enter newline, Ctrl+Tab tab, Tab leaves the box and Shift+Tab returns, text kept"

# 2. Enter sends; a new chat with Ctrl+N takes what is typed next.
key Return
reply_finished() { [ "$(state .reply_finished)" = true ]; }
wait_for 60 reply_finished || fail "no reply within 60 s"
expect_ui .input_text "" "after sending"
[ "$(state .conversations)" -eq 1 ] || fail "$(state .conversations) conversations after the first message"
# Tab round the window: every stop named, the conversation and the main controls on it,
# and back to the box.
stops=$(ui '.tab_order | length')
[ "$stops" -ge 10 ] || fail "only $stops stops in the Tab order"
# A name says something in words ("✕" or "?" alone does not).
unnamed=$(ui '[.tab_order[] | select(.name | test("\\p{L}") | not)] | map(.type + " " + .object_name + " \u0027" + .name + "\u0027") | join(", ")')
[ -z "$unnamed" ] || fail "controls without an accessible name: $unnamed"
for control in messageInput sendButton attachButton regenerateButton messageList modelPicker \
               settingsButton memoryButton modelInfoButton; do
  [ "$(ui "[.tab_order[] | select(.object_name == \"$control\")] | length")" -ge 1 ] \
    || fail "$control is not on the Tab order"
done
# The conversations: their list is one stop (Up/Down move in it, Enter opens).
[ "$(ui '[.tab_order[] | select(.name == "Conversations")] | length')" -ge 1 ] \
  || fail "the conversation list is not on the Tab order"
# Each Tab moves the focus on (waited for, so a slow machine cannot drop one); the round
# ends back in the message box after exactly as many Tabs as there are stops.
presses=0
while :; do
  before=$(ui -c .focus)
  xdotool key --clearmodifiers Tab
  presses=$((presses + 1))
  wait_for 3 eval '[ "$(ui -c .focus)" != "$before" ]' || fail "Tab $presses did not move the focus from $before"
  [ "$(focused)" = messageInput ] && break
  [ "$presses" -le "$stops" ] || fail "$presses Tabs and not back in the message box"
done
[ "$presses" -eq "$stops" ] || fail "back in the message box after $presses Tabs, expected $stops"
echo "e2e: Tab goes round $stops controls, each named, and back to the message box"
key Tab
key Tab
sleep 0.4
[ "$(focused)" != messageInput ] || fail "the focus did not move away before Ctrl+N"
key ctrl+n
wait_for 5 eval '[ "$(state .conversations)" -eq 2 ]' || fail "Ctrl+N made no new chat"
expect_ui .focus.object_name messageInput "after Ctrl+N"
xdotool type --delay 15 "And God said"
expect_ui .input_text "And God said" "typed after Ctrl+N"
echo "e2e: Ctrl+N made a new chat and its message box took what was typed"

# 3. Zoom, Settings, the memory panel, quit.
expect_ui .zoom 1 "zoom at start"
size=$(ui .font_size)
key ctrl+equal
expect_ui .zoom 1.1 "Ctrl+="
key ctrl+plus
expect_ui .zoom 1.25 "Ctrl++"
[ "$(ui .font_size)" -gt "$size" ] || fail "zoomed type $(ui .font_size) px is not larger than $size px"
key ctrl+minus
expect_ui .zoom 1.1 "Ctrl+-"
key ctrl+0
expect_ui .zoom 1 "Ctrl+0"
expect_ui .font_size "$size" "Ctrl+0"
key ctrl+equal
expect_ui .zoom 1.1 "Ctrl+= again"
echo "e2e: zoom 1 -> 1.1 -> 1.25 -> 1.1 -> 1 -> 1.1, type $size px -> $(ui .font_size) px"
key ctrl+comma
expect_ui .settings_open true "Ctrl+,"
key Escape
expect_ui .settings_open false "Escape closes Settings"
expect_ui .memory_mode docked "1280x800"
key ctrl+m
expect_ui .memory_mode hidden "Ctrl+M hides the memory panel"
key ctrl+m
expect_ui .memory_mode docked "Ctrl+M shows the memory panel"
key ctrl+q
wait_for 10 eval '! kill -0 $app_pid' || fail "Ctrl+Q did not quit within 10 s"
code=0; wait "$app_pid" || code=$?
[ "$code" -eq 0 ] || fail "Ctrl+Q: exit status $code"
db="$data/kvchat.sqlite"
[ "$(sqlite3 "$db" "select value_json from settings where key = 'ui/zoom'")" = "[1.1]" ] \
  || fail "the zoom was not saved: $(sqlite3 "$db" "select value_json from settings where key = 'ui/zoom'")"
[ "$(sqlite3 "$db" "select count(*) from messages where role = 'assistant'")" -eq 1 ] || fail "the reply was not saved"
echo "e2e: Ctrl+, opened Settings, Ctrl+M hid and showed the panel, Ctrl+Q quit with status 0"
start_app --theme light
wait_for 10 test -s "$ui_file" || fail "no UI state after the restart"
expect_ui .zoom 1.1 "after the restart"
key ctrl+0
echo "e2e: the zoom 1.1 was there again after the restart"

# 4. Layout. check_layout W H MIN_CHAT: the window at W x H (physical pixels); the chat at
# least MIN_CHAT wide; docked: the panel right of the chat, no overlap; the message column
# within the chat and capped near 80 characters.
check_layout() {
  local w=$1 h=$2 min_chat=$3 scale=${4:-1}
  local lw=$((w / scale)) lh=$((h / scale))
  xdotool windowsize --sync "$window" "$w" "$h" 2>/dev/null || xdotool windowsize "$window" "$w" "$h"
  ui_is .window_width "$lw" || fail "the window is $(ui .window_width) wide, expected $lw"
  sleep 0.5
  local chat_x chat_w col mode mem_x cap
  chat_x=$(ui .chat_x); chat_w=$(ui .chat_width); col=$(ui .message_column_width)
  mode=$(ui .memory_mode); mem_x=$(ui .memory_x); cap=$(ui .line_max_width)
  [ "$(ui .device_pixel_ratio)" = "$scale" ] || fail "device pixel ratio $(ui .device_pixel_ratio), expected $scale"
  [ "$(ui .window_height)" = "$lh" ] || fail "the window is $(ui .window_height) high, expected $lh"
  [ "${chat_w%.*}" -ge "$min_chat" ] || fail "${lw}x${lh}: the chat is $chat_w px wide, expected >= $min_chat"
  awk "BEGIN { exit !($(ui .header_right) <= $lw) }" \
    || fail "${lw}x${lh}: the header's buttons run past the window (to $(ui .header_right))"
  # The side panes give way: the conversations at most a quarter of the window.
  awk "BEGIN { exit !($(ui .sidebar_width) <= $lw / 4) }" \
    || fail "${lw}x${lh}: the conversation list keeps $(ui .sidebar_width) px of $lw"
  [ "${col%.*}" -le "${chat_w%.*}" ] || fail "${lw}x${lh}: the message column ($col) is wider than the chat ($chat_w)"
  [ "${col%.*}" -le $((cap + 100)) ] || fail "${lw}x${lh}: the message column ($col) exceeds 80 characters ($cap + margins)"
  if [ "$lw" -lt 1100 ]; then
    [ "$mode" = drawer ] || fail "${lw}x${lh}: the memory panel is '$mode', expected a drawer"
    [ "$(ui .memory_visible)" = false ] || fail "${lw}x${lh}: the memory drawer covers the chat unasked"
  else
    [ "$mode" = docked ] || fail "${lw}x${lh}: the memory panel is '$mode', expected docked"
    awk "BEGIN { exit !($chat_x + $chat_w <= $mem_x) }" \
      || fail "${lw}x${lh}: the chat ($chat_x + $chat_w) runs under the memory panel (at $mem_x)"
    awk "BEGIN { exit !($mem_x + $(ui .memory_width) <= $lw) }" \
      || fail "${lw}x${lh}: the memory panel ends past the window"
    awk "BEGIN { exit !($(ui .memory_width) <= $lw / 3) }" \
      || fail "${lw}x${lh}: the memory panel keeps $(ui .memory_width) px of $lw"
  fi
  echo "e2e: ${lw}x${lh} at ${scale}x: sidebar $(ui .sidebar_width), chat $chat_w (column $col, cap $cap + margins), memory $mode"
}
check_layout 800 600 560
import -window root "$artifacts/e2e-layout-800x600.png"
# Narrow: the drawer opens with Ctrl+M over the chat and closes again.
key ctrl+m
expect_ui .memory_visible true "Ctrl+M opens the memory drawer"
key ctrl+m
expect_ui .memory_visible false "Ctrl+M closes the memory drawer"
# At twice the type size nothing is pushed out of the window either.
key ctrl+plus; key ctrl+plus; key ctrl+plus; key ctrl+plus; key ctrl+plus
expect_ui .zoom 2 "five times Ctrl++"
check_layout 800 600 560
import -window root "$artifacts/e2e-layout-800x600-zoom2.png"
key ctrl+0
check_layout 1000 700 600
import -window root "$artifacts/e2e-layout-1000x700.png"
check_layout 1280 800 560
check_layout 1600 1000 700
col=$(ui .message_column_width); cap=$(ui .line_max_width)
[ "${col%.*}" -eq $((cap + 100)) ] || fail "at 1600x1000 the message column ($col) is not capped ($cap + 100)"
import -window root "$artifacts/e2e-layout-1600x1000.png"
check_layout 3840 2160 700  # 4K
col=$(ui .message_column_width)
[ "${col%.*}" -eq $((cap + 100)) ] || fail "at 3840x2160 the message column ($col) is not capped ($cap + 100)"
key ctrl+q
wait "$app_pid" || fail "Ctrl+Q: exit status $?"

# Twice the scale: the same logical sizes on twice the pixels.
QT_SCALE_FACTOR=2 start_app --theme dark
wait_for 10 test -s "$ui_file" || fail "no UI state at 2x"
check_layout 1600 1200 560 2
check_layout 2000 1400 600 2
import -window root "$artifacts/e2e-layout-1000x700-2x.png"
check_layout 3200 2000 700 2
key ctrl+q
wait "$app_pid" || fail "Ctrl+Q at 2x: exit status $?"
echo "1 passed, 0 failed"
