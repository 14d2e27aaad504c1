#!/usr/bin/env bash
# End-to-end, keyboard only (issue 29): the system prompt library in Settings.
#   1. Ctrl+, opens Settings; Tab to the system prompt, type one; Tab to "Save as…", Space:
#      the dialog opens with the focus in its name field; a taken name is refused there;
#      a new name and Enter save it: the database holds the prompt and the conversation is
#      linked to it;
#   2. Ctrl+N, a new conversation; Settings, Tab to "Saved system prompt", Down picks it:
#      the new conversation's prompt is the saved text, linked;
#   3. a restart keeps both links and the prompt.
# Usage: e2e_system_prompts.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"

ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
fail() {
  echo "e2e-system-prompts: FAIL: $*" >&2
  import -window root "$artifacts/e2e-system-prompts-failure.png" 2>/dev/null || true
  [ -f "$ui_file" ] && jq -c '{focus, settings_open, conversation}' "$ui_file" >&2 || true
  [ -f "$db" ] && sqlite3 "$db" "select id, system_prompt, system_prompt_id from conversations; select * from system_prompts" >&2 || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
db="$data/kvchat.sqlite"
focused() { ui .focus.object_name; }
is_focused() { [ "$(focused)" = "$1" ]; }
sql() { sqlite3 "$db" "$1"; }
# Tab (or Shift+Tab with -b) until the item named $1 has the focus, at most 150 presses
# (from the message box, the window's items come before the drawer's).
tab_to() {
  local keyname=Tab
  if [ "$1" = -b ]; then keyname=shift+Tab; shift; fi
  local presses before
  for presses in $(seq 1 150); do
    is_focused "$1" && return 0
    before=$(ui -c .focus)
    xdotool key "$keyname"
    wait_for 3 eval '[ "$(ui -c .focus)" != "$before" ]' || fail "$keyname did not move the focus from $before"
  done
  is_focused "$1" || fail "$1 is not on the Tab order (150 presses)"
}
prompt_text="You are a terse reviewer."

# 1. Save as… from Settings.
start_app
wait_for 30 model_loaded || fail "the demo model did not load"
key ctrl+comma
wait_for 5 eval '[ "$(ui .settings_open)" = true ]' || fail "Ctrl+, did not open Settings"
tab_to systemPromptField
xdotool type --delay 15 "$prompt_text"
tab_to -b savePromptAs
key space
wait_for 5 is_focused systemPromptName || fail "Save as… did not focus the name field (focus: $(focused))"
xdotool type --delay 15 "Reviewer"
key Return
wait_for 5 eval '[ "$(sql "select name from system_prompts")" = Reviewer ]' || fail "the prompt was not saved"
[ "$(sql "select text from system_prompts")" = "$prompt_text" ] || fail "the saved text is '$(sql "select text from system_prompts")'"
first=$(sql "select id from conversations where system_prompt_id = 1")
[ -n "$first" ] || fail "the conversation is not linked to the saved prompt"
[ "$(sql "select system_prompt from conversations where id = $first")" = "$prompt_text" ] || fail "the conversation's prompt is not the text"
echo "e2e-system-prompts: saved 'Reviewer', conversation $first linked"
# The same name again: refused in the dialog, which stays open.
key ctrl+comma
wait_for 5 eval '[ "$(ui .settings_open)" = true ]' || key ctrl+comma
wait_for 5 eval '[ "$(ui .settings_open)" = true ]' || fail "Settings did not open again"
tab_to savePromptAs
key space
wait_for 5 is_focused systemPromptName || fail "Save as… did not focus the name field the second time"
xdotool type --delay 15 "reviewer"
key Return
sleep 0.5
[ "$(sql "select count(*) from system_prompts")" = 1 ] || fail "a duplicate name was saved"
is_focused systemPromptName || fail "the dialog did not stay open on a duplicate name (focus: $(focused))"
key Escape
sleep 0.3
import -window root "$artifacts/e2e-system-prompts-saved.png"
key Escape
wait_for 5 eval '[ "$(ui .settings_open)" = false ]' || fail "Esc did not close Settings"

# 2. A new conversation picks it.
key ctrl+n
wait_for 5 eval '[ "$(ui .conversation)" != "$first" ]' || fail "Ctrl+N did not open a new conversation"
second=$(ui .conversation)
key ctrl+comma
wait_for 5 eval '[ "$(ui .settings_open)" = true ]' || fail "Ctrl+, did not open Settings"
tab_to savedPromptChoice
key Down
wait_for 5 eval '[ "$(sql "select system_prompt_id from conversations where id = $second")" = 1 ]' || fail "Down did not pick the saved prompt for conversation $second"
[ "$(sql "select system_prompt from conversations where id = $second")" = "$prompt_text" ] || fail "the picked prompt's text is not the conversation's"
echo "e2e-system-prompts: conversation $second picked 'Reviewer'"
key Escape

# 3. A restart keeps it.
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
start_app
wait_for 30 model_loaded || fail "the demo model did not load after the restart"
[ "$(sql "select count(*) from conversations where system_prompt_id = 1")" = 2 ] || fail "the links did not survive the restart"
echo "e2e-system-prompts: PASS"
