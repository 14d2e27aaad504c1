#!/usr/bin/env bash
# End-to-end (issue 13 points 3 and 4): settings per model and a chat that never ends in an
# empty bubble, as a keyboard user sees them in a real window under Xvfb.
#   1. open stories260K.gguf (head_dim 8) with a q8_0 KV setting: the load fails with the
#      reason in the window's banner, which offers Retry, the demo model and the settings;
#      the first run's welcome says no model is loaded (as the header does);
#   2. Alt+1 (Retry) fails again with the same reason; the demo action (Alt+N) loads the
#      demo model, whose own settings are used (f16), while stories260K keeps its q8_0;
#   3. chat many messages on the demo model under the default context policy: every
#      message gets a non-empty reply, and the memory panel says what was dropped.
# Usage: e2e_models.sh KVCHAT_BINARY ARTIFACT_DIR STORIES260K_GGUF   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
stories=$3
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e: FAIL: $*" >&2
  import -window root "$artifacts/e2e-models-failure.png" 2>/dev/null || true
  exit 1
}

window_title="kvchat"  # no model loaded at first
source "$(dirname "$0")/e2e_lib.sh"

# 1. A KV type the model cannot use: the reason and the way out, in the window.
start_app --model "$stories" --kv-type q8_0
load_failed() { state .model_error | grep -q "head_dim" && [ "$(state .notice.kind)" = load-failed ]; }
wait_for 30 load_failed || fail "no load failure with the reason: error '$(state .model_error)', notice $(state .notice)"
state .notice.text | grep -q "q8_0" || fail "the banner does not name the KV type: $(state .notice.text)"
state .notice.text | grep -q "stories260K.gguf" || fail "the banner does not name the model: $(state .notice.text)"
actions=$(state '[.notice.actions[].id] | join(",")')
for a in retry demo settings; do
  echo ",$actions," | grep -q ",$a," || fail "the banner does not offer '$a' (offers $actions)"
done
[ "$(state .settings_model)" = "$stories" ] || fail "the settings shown are not stories260K's: $(state .settings_model)"
[ "$(state .engine_settings.kv_type)" = q8_0 ] || fail "stories260K's KV type is not q8_0: $(state .engine_settings.kv_type)"
# The first run's welcome says what the header says: no model (not "the demo model is loaded").
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
welcome_says() { jq -r .welcome_text "$ui_file" 2>/dev/null | grep -q "No model is loaded yet"; }
wait_for 5 welcome_says || fail "after the failed load the welcome says: $(jq -r .welcome_text "$ui_file" 2>/dev/null)"
sleep 0.5
import -window root "$artifacts/e2e-models-load-failed.png"
echo "e2e: stories260K with q8_0 refused: $(state .model_error)"
echo "e2e: banner actions: $actions"
# The settings action opens the drawer on stories260K's settings (q8_0 marked, with why).
settings_key=$(state '[.notice.actions[].id] | index("settings") + 1')
xdotool key "alt+$settings_key"
sleep 1
import -window root "$artifacts/e2e-models-settings.png"
xdotool key Escape
sleep 0.5

# 2. Retry (the first action, Alt+1): the same reason again; then the demo model.
rm -f "$KVCHAT_TEST_STATE_FILE"
xdotool key alt+1
wait_for 20 load_failed || fail "Retry did not end in the same failure: $(state .model_error)"
demo_key=$(state '[.notice.actions[].id] | index("demo") + 1')
xdotool key "alt+$demo_key"
demo_loaded() { model_loaded && state .model_path | grep -q "kjv-demo-f16.gguf$"; }
wait_for 30 demo_loaded || fail "the demo action did not load the demo model: $(state .model_path) $(state .model_error)"
[ "$(state .notice)" = "{}" ] || fail "the load failure's banner stayed: $(state .notice)"
[ "$(state .engine_settings.kv_type)" = f16 ] || fail "the demo model does not use its own KV type: $(state .engine_settings.kv_type)"
[ "$(state .engine_settings.context_policy)" = drop-oldest ] || fail "the default policy is $(state .engine_settings.context_policy)"
echo "e2e: Alt+1 retried (same reason), Alt+$demo_key loaded the demo model with its own settings (f16, drop-oldest)"

# 3. Many messages on the demo model (context 512): every one answered, none empty.
verses=("Genesis 1" "Exodus 3" "Psalms 23" "John 1" "Ruth 1" "Isaiah 40" "Matthew 5" "Acts 2" "Romans 8" "Job 38")
n=0
for verse in "${verses[@]}"; do
  n=$((n + 1))
  xdotool type --delay 10 "$verse"
  xdotool key shift+Return
  xdotool type --delay 10 "1 And it came to pass"
  xdotool key Return
  answered() { [ "$(state .messages)" -eq $((2 * n)) ] && [ "$(state .reply_finished)" = true ] && [ "$(state .last_message.role)" = assistant ]; }
  wait_for 90 answered || fail "message $n was not answered: $(state .messages) messages, notice $(state .notice)"
  chars=$(state .last_message.chars)
  [ "$chars" -gt 0 ] || fail "reply $n is empty"
  [ "$(state .empty_replies)" -eq 0 ] || fail "$(state .empty_replies) empty reply bubbles after message $n"
  [ "$(state .notice)" = "{}" ] || fail "a banner after message $n: $(state .notice)"
done
dropped=$(state .context_notice)
echo "$dropped" | grep -q "Oldest turns dropped to make room" || fail "the panel does not say what was dropped: '$dropped'"
sleep 0.5
import -window root "$artifacts/e2e-models-long-chat.png"
echo "e2e: $n messages answered on the demo model, no empty reply; panel: $dropped"

# stories260K keeps its own setting (q8_0) while the demo model runs with f16.
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
stored=$(sqlite3 "$data/kvchat.sqlite" "select value_json from settings where key='model_settings'" 2>/dev/null || true)
echo "$stored" | grep -q "q8_0" || fail "the per-model settings were not stored: $stored"

# 4. Under `stop` (chosen for the demo model, 128 tokens): a full context keeps the message
#    (the long conversation of step 3 goes on) with no empty bubble after it and offers
#    its actions; "Summarize and continue" (Alt+N)
#    opens a new conversation with the summary as its system prompt, where the message is
#    answered.
window_title="kvchat — kjv-demo"
start_app --ctx 128 --context-policy stop
wait_for 30 demo_loaded || fail "the demo model did not load again"
conversations=$(state .conversations)
n=0
context_full() { [ "$(state .notice.kind)" = context-full ]; }
unanswered() { [ "$(state .last_message.role)" = user ] && context_full; }
until unanswered; do
  n=$((n + 1))
  [ $n -le 6 ] || fail "no message was left unanswered by a full context: $(state .notice)"
  before=$(state .messages)
  xdotool type --delay 10 "${verses[$n]}"
  xdotool key shift+Return
  xdotool type --delay 10 "1 And it came to pass"
  xdotool key Return
  ended() { [ "$(state .messages)" -gt "$before" ] && [ "$(state .reply_finished)" = true ]; }
  wait_for 60 ended || fail "message $n did not end: $(state .messages) messages"
  [ "$(state .empty_replies)" -eq 0 ] || fail "an empty reply bubble after message $n"
done
actions=$(state '[.notice.actions[].id] | join(",")')
for a in new_chat summarize change_policy; do
  echo ",$actions," | grep -q ",$a," || fail "a full context does not offer '$a' (offers $actions)"
done
state .notice.text | grep -q "kept" || fail "the banner does not say the message is kept: $(state .notice.text)"
sleep 0.5
import -window root "$artifacts/e2e-models-context-full.png"
echo "e2e: context full after $n messages (stop, 128 tokens): the message kept, no empty bubble; actions $actions"
summarize_key=$(state '[.notice.actions[].id] | index("summarize") + 1')
xdotool key "alt+$summarize_key"
continued() { [ "$(state .conversations)" -eq $((conversations + 1)) ] && [ "$(state .messages)" -eq 2 ] && [ "$(state .reply_finished)" = true ] && [ "$(state .last_message.chars)" -gt 0 ]; }
wait_for 60 continued || fail "summarize and continue did not answer in a new conversation: $(state .conversations) conversations, $(state .messages) messages, notice $(state .notice)"
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
prompt=$(sqlite3 "$data/kvchat.sqlite" "select system_prompt from conversations where title like 'Continued: %'")
grep -q "A summary of the conversation so far:" <<<"$prompt" || fail "the new conversation's system prompt is not the summary: '$prompt'"
echo "e2e: summarized into a new conversation (system prompt of ${#prompt} characters), the message answered there"
echo "1 passed, 0 failed"
