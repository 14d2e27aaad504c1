#!/usr/bin/env bash
# End-to-end (issue 26 point 2): a full context, keyboard only, with a 128-token context.
#   1. a reply fills the context: one banner says so, with its ways out;
#   2. Continue (Ctrl+Shift+E) on it finds no room: no dialog, one banner in words (how
#      full, why, what to do), the reply as it was (not "interrupted", no error), and what
#      is typed meanwhile stays in the message box;
#   3. a new message is answered (the oldest turn dropped);
#   4. editing that message (Up in the empty box, Enter) is answered too, not refused with
#      "no room for a reply"; never a second banner (the message banner stays empty).
# At every step (issue 43 point 1) the context meter beside the message box, the status
# line and the banner say one figure: the status line's context sentence is the meter's,
# live (never a "full" or a percentage from before), and the banner names the meter's
# figure; what is typed shows its cost on the meter before it is sent.
# Usage: e2e_context_full.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"

fail() {
  echo "e2e-context-full: FAIL: $*" >&2
  import -window root "$artifacts/e2e-context-full-failure.png" 2>/dev/null || true
  jq -c '{messages, notice, documents: .documents.message, last_message}' "$KVCHAT_TEST_STATE_FILE" >&2 || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
finished() {  # finished N: N messages, the last a reply that ended
  [ "$(state .messages)" = "$1" ] && [ "$(state .last_message.role)" = assistant ] &&
    [ "$(state .last_message.stats.stop_reason)" != null ]
}
# The status line, when it speaks of the context, says the meter's sentence now.
same_context_words() {  # same_context_words STEP
  local line sentence
  wait_for 5 eval '[ "$(ui .context_meter.visible)" = true ]' || fail "$1: no context meter: $(ui -c .context_meter)"
  sentence=$(ui .context_meter.sentence)
  [ -n "$sentence" ] || fail "$1: the meter says nothing"
  line=$(ui .status_line)
  case "$line" in
    *%*) [[ "$line" == *"$sentence" ]] || fail "$1: the status line says '$line', the meter '$sentence'" ;;
  esac
  ui .context_meter.text | grep -qE '^[0-9,]+ / 128 tokens' || fail "$1: the meter reads '$(ui .context_meter.text)'"
}
one_banner() { [ -z "$(state .documents.message)" ] || fail "$1: a second banner: $(state .documents.message)"; }

start_app --ctx 128
wait_for 30 model_loaded || fail "the demo model did not load"
key Escape  # the first run's welcome

# 1. A reply that fills the context.
xdotool type --delay 15 "Genesis 1"
key Return
wait_for 60 finished 2 || fail "no reply"
[ "$(state .last_message.stats.stop_reason)" = context-full ] || fail "the reply ended by $(state .last_message.stats.stop_reason), not a full context"
[ "$(state .notice.kind)" = context-full ] || fail "no full-context banner: $(state .notice)"
one_banner "a full reply"
wait_for 5 eval '[ "$(ui .context_meter.level)" = full ]' || fail "the meter says '$(ui .context_meter.level)' after a full reply"
same_context_words "a full reply"
usage=$(ui .context_meter.sentence | grep -oE '[0-9,]+ of 128 tokens \([0-9]+%\)')
state .notice.text | grep -qF "$usage" || fail "the banner '$(state .notice.text)' does not say the meter's '$usage'"
chars=$(state .last_message.chars)

# 2. Continue: no room. Typing meanwhile goes on in the box.
key ctrl+shift+e
xdotool type --delay 15 "abc"
continue_refused() { state .notice.text | grep -q "cannot be continued"; }
wait_for 20 continue_refused || fail "no banner saying the reply cannot be continued: $(state .notice.text)"
state .notice.text | grep -q "128 of 128 tokens" || fail "the banner does not say how full: $(state .notice.text)"
wait_for 5 eval '[ "$(ui .input_text)" = abc ]' || fail "what was typed is '$(ui .input_text)', not 'abc'"
[ "$(state .last_message.chars)" = "$chars" ] || fail "the reply changed: $(state .last_message.chars) chars, was $chars"
[ "$(state .last_message.stats.error)" = null ] || fail "the reply carries an error: $(state .last_message.stats.error)"
[ "$(state .reply.state)" != interrupted ] || fail "the reply is marked interrupted"
one_banner "a refused Continue"
same_context_words "a refused Continue"
# What is typed shows its cost, and that it does not fit in a full context.
wait_for 5 eval 'ui .context_meter.text | grep -q "this message +"' || fail "the meter shows no cost for what is typed: '$(ui .context_meter.text)'"
ui .context_meter.summary | grep -q "more than the 0 left" || fail "the meter does not say the message will not fit: '$(ui .context_meter.summary)'"
sleep 0.3
import -window root "$artifacts/e2e-context-full-continue.png"

# 3. A new message is answered.
key ctrl+a BackSpace
xdotool type --delay 15 "And God said"
key Return
wait_for 60 finished 4 || fail "the new message got no reply"
one_banner "a new message"
same_context_words "a new message"

# 4. Its edit is answered too.
key Up
wait_for 5 eval '[ "$(ui .editing_row)" = 2 ]' || fail "Up did not edit the last message (editing row $(ui .editing_row))"
key ctrl+a
xdotool type --delay 15 "And the earth was"
key Return
last_user() { sqlite3 "$data/kvchat.sqlite" "SELECT content FROM messages WHERE role = 'user' AND shown = 1 ORDER BY position DESC LIMIT 1"; }
edited() { finished 4 && [ "$(last_user)" = "And the earth was" ]; }
wait_for 60 edited || fail "the edited message got no reply (last user message '$(last_user)'): $(state .notice.text)"
state .notice.text | grep -q "no room for a reply" && fail "the edit was refused: $(state .notice.text)"
one_banner "an edit"
same_context_words "an edit"
echo "e2e-context-full: PASS"
