#!/usr/bin/env bash
# End-to-end: the window's language, in a real window under Xvfb.
#   1. LANG=ko_KR.UTF-8: the window speaks Korean (words it shows, read from the state the
#      app writes), a chat still works, screenshot kept in ARTIFACTS;
#   2. LANG=C: English;
#   3. the Settings choice (stored in SQLite) overrides the system: "en" under ko_KR.
# Usage: e2e_language.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e: FAIL: $*" >&2
  import -window root "$artifacts/e2e-language-failure.png" 2>/dev/null || true
  exit 1
}

# Found by "kjv-demo" alone: where the locale is not installed in glibc (CI), X's legacy
# WM_NAME cannot carry the title's "—", and xdotool reads that one.
window_title="kjv-demo"
source "$(dirname "$0")/e2e_lib.sh"
# The app under a given locale ($ui_lang), the test's own tools (xdotool) under the caller's.
real_app=$app
app="$data/kvchat-in-locale"
printf '#!/bin/sh\nLANG="$ui_lang" LC_ALL= LC_MESSAGES= exec "%s" "$@"\n' "$real_app" > "$app"
chmod +x "$app"
export ui_lang
stop_app() { kill "$app_pid"; wait "$app_pid" 2>/dev/null || true; }
expect_ui() {  # expect_ui LOCALE SEND NEW_CHAT MEMORY
  wait_for 10 test -s "$KVCHAT_TEST_STATE_FILE" || fail "no state"
  [ "$(state .ui.locale)" = "$1" ] || fail "locale $(state .ui.locale), expected $1"
  [ "$(state .ui.send)" = "$2" ] || fail "the Send button says '$(state .ui.send)', expected '$2'"
  [ "$(state .ui.new_chat)" = "$3" ] || fail "New chat says '$(state .ui.new_chat)', expected '$3'"
  [ "$(state .ui.memory)" = "$4" ] || fail "Memory says '$(state .ui.memory)', expected '$4'"
}

# 1. Korean from the system locale, and a chat in it.
ui_lang=ko_KR.UTF-8 start_app
expect_ui ko_KR "보내기" "새 대화" "메모리"
# A first run (empty data directory): the welcome is up, the message box still has the focus.
[ "$(state .ui.welcome_seen)" = false ] || fail "a first run does not show the welcome"
import -window root "$artifacts/e2e-first-run-korean.png"
xdotool type --delay 15 "Genesis 1"
xdotool key shift+Return
xdotool type --delay 15 "1 In the beginning"
xdotool key Return
reply_finished() { [ "$(jq -r .reply_finished "$KVCHAT_TEST_STATE_FILE" 2>/dev/null)" = true ]; }
wait_for 60 reply_finished || fail "no reply within 60 s in the Korean window"
sleep 0.5
import -window root "$artifacts/e2e-korean.png"
stop_app
echo "e2e: LANG=ko_KR.UTF-8 -> Korean window, chat works"

# 2. English under the C locale.
# Sending the first message dismissed the welcome for good.
[ "$(sqlite3 "$data/kvchat.sqlite" "select value_json from settings where key = 'ui/welcome_seen'")" = "[true]" ] \
  || fail "the first message did not dismiss the welcome"
ui_lang=C start_app
expect_ui en_US "Send" "New chat" "Memory"
[ "$(state .ui.welcome_seen)" = true ] || fail "the welcome is shown again after it was dismissed"
stop_app
echo "e2e: LANG=C -> English window"

# 3. A choice in Settings (here written as the app stores it) beats the system locale. The
# welcome shown again (its setting removed) is closed for good by Esc, as a keyboard user would.
sqlite3 "$data/kvchat.sqlite" "INSERT INTO settings (key, value_json) VALUES ('ui/language', '[\"en\"]')
  ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json;
  DELETE FROM settings WHERE key = 'ui/welcome_seen'"
ui_lang=ko_KR.UTF-8 start_app
expect_ui en_US "Send" "New chat" "Memory"
[ "$(state .ui.welcome_seen)" = false ] || fail "the welcome is not shown with its setting removed"
xdotool key Escape
welcome_closed() { [ "$(sqlite3 "$data/kvchat.sqlite" "select value_json from settings where key = 'ui/welcome_seen'")" = "[true]" ]; }
wait_for 5 welcome_closed || fail "Esc did not close the welcome"
stop_app
echo "e2e: the Settings choice 'en' overrides LANG=ko_KR.UTF-8"
echo "1 passed, 0 failed"
