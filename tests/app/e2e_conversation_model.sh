#!/usr/bin/env bash
# End-to-end (issue 26 point 1, "conversations know their model"), keyboard only:
#   1. a conversation on a second model (a copy of stories260K), Ctrl+Q;
#   2. kvchat started again without --model opens that model (not the demo) and the
#      conversation's KV snapshot is restored, not thrown away;
#   3. started on the demo model (--model), the banner says the conversation was written with
#      the other one and offers to open it; the model picker (Tab, Space) lists both under
#      Recent by file name inside the window, and Enter on the other one shows its load
#      options and what they take, loading nothing; Alt+1 loads it and the snapshot restores;
#   4. the model file removed: kvchat starts on the last model that still exists and the
#      banner names the missing path, offering to pick a file or the Models page.
# Usage: e2e_conversation_model.sh KVCHAT_BINARY ARTIFACT_DIR STORIES260K_GGUF DEMO_GGUF
set -euo pipefail
app=$1
artifacts=$2
stories=$3
demo=$4
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e-conversation-model: FAIL: $*" >&2
  import -window root "$artifacts/e2e-conversation-model-failure.png" 2>/dev/null || true
  exit 1
}

story_title="kvchat — story-model"  # the file's name (its general.name, "llama", says no more)
demo_title="kvchat — kjv-demo"
source "$(dirname "$0")/e2e_lib.sh"
is() { [ "$(state "$1")" = "$2" ]; }
loaded() { model_loaded && [ "$(state .model_path)" = "$1" ]; }
restored() { state .snapshot_status | grep -q "restored from the snapshot"; }
quit_app() {
  xdotool key ctrl+q
  wait_for 15 eval '! kill -0 $app_pid' || fail "Ctrl+Q did not quit"
  wait "$app_pid" || fail "kvchat exited with status $?"
}
mkdir -p "$data/elsewhere"
model="$data/elsewhere/story-model.gguf"
cp "$stories" "$model"

# 1. A conversation on the second model.
window_title=$story_title
start_app --model "$model"
wait_for 30 loaded "$model" || fail "the story model did not load: $(state .model_path) $(state .model_error)"
xdotool type --delay 15 "Once upon a time"
xdotool key Return
replied() { [ "$(state .messages)" = 2 ] && [ "$(state .last_message.stats.stop_reason)" != null ]; }
wait_for 60 replied || fail "no reply"
wait_for 10 eval '[ "$(state .snapshot_bytes)" -gt 0 ]' || fail "no snapshot saved"
conversation=$(state .current_conversation)
stored=$(sqlite3 "$data/kvchat.sqlite" "SELECT json_extract(settings_json, '$.model_path') FROM conversations WHERE id = $conversation")
[ "$stored" = "$model" ] || fail "the conversation's model is stored as '$stored'"
quit_app

# 2. Restarted without --model: the same model, the snapshot restored.
start_app
wait_for 30 loaded "$model" || fail "restarted on $(state .model_path) instead of $model"
is .current_conversation "$conversation" || fail "another conversation was reopened"
wait_for 20 restored || fail "the snapshot was not restored: $(state .snapshot_status)"
[ "$(state .notice.kind)" != conversation-model ] || fail "a banner on the conversation's own model: $(state .notice.text)"
echo "e2e-conversation-model: restarted on $(basename "$model"), snapshot restored"
quit_app

# 3. Started on the demo model: said, and Alt+1 opens the conversation's model.
window_title=$demo_title
start_app --model "$demo"
wait_for 30 loaded "$demo" || fail "the demo model did not load"
wait_for 10 is .notice.kind conversation-model || fail "no banner about the conversation's model: $(state .notice)"
state .notice.text | grep -q "story-model.gguf" || fail "the banner does not name the model: $(state .notice.text)"
[ "$(state '.notice.actions[0].id')" = conversation_model ] || fail "first action: $(state '.notice.actions[0]')"
sleep 0.3
import -window root "$artifacts/e2e-conversation-model-other.png"
# The model picker by keys (Tab to its button, Space; issue 43): drawn inside the window,
# both models under Recent by file name (neither is in the data folder's models/).
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
ui() { jq -r "$1" "$ui_file" 2>/dev/null; }
n=$(ui '[.tab_order[].object_name] | index("modelPicker")')
[ "$n" != null ] || fail "no model picker in the Tab order"
for _ in $(seq 1 "$n"); do xdotool key --clearmodifiers Tab; sleep 0.05; done
wait_for 5 eval '[ "$(ui .focus.object_name)" = modelPicker ]' || fail "$n Tabs reached '$(ui .focus.name)'"
xdotool key --clearmodifiers space
wait_for 5 eval '[ "$(ui .model_picker.opened)" = true ]' || fail "Space did not open the model picker"
x=$(ui .model_picker.x | cut -d. -f1); w=$(ui .model_picker.width | cut -d. -f1); ww=$(ui .window_width)
[ "$x" -ge 0 ] && [ $((x + w)) -le "$ww" ] || fail "the model picker is drawn at x=$x, $w wide, in a $ww px window"
[ "$(ui '.model_picker.items | join(",")')" = "kjv-demo-f16.gguf,story-model.gguf" ] || fail "the picker lists $(jq -c .model_picker "$ui_file")"
[ "$(ui '.model_picker.sections | join(",")')" = "recent,recent" ] || fail "the picker's sections: $(ui -c .model_picker.sections)"
# Opened on the loaded model; Down goes to the other one, Enter shows its load options
# with what they take (its trained context at most, f16 by default) before any load.
[ "$(ui .model_picker.current)" = model ] || fail "the picker opened on '$(ui .model_picker.current)', not the loaded model"
import -window root "$artifacts/e2e-conversation-model-picker.png"
xdotool key --clearmodifiers Down
sleep 0.2
xdotool key --clearmodifiers Return
wait_for 5 eval '[ "$(ui .model_picker.view)" = options ]' || fail "Enter did not show the load options"
[ "$(basename "$(ui .model_picker.options.path)")" = story-model.gguf ] || fail "the options are for $(ui .model_picker.options.path)"
[ "$(ui .model_picker.options.kv_type)" = f16 ] || fail "KV type $(ui .model_picker.options.kv_type)"
awk "BEGIN { exit !($(ui .model_picker.options.total_bytes) > $(ui .model_picker.options.kv_bytes) && $(ui .model_picker.options.kv_bytes) > 0) }" \
  || fail "the options' memory: $(ui -c .model_picker.options)"
[ -n "$(ui .model_picker.options.fit_text)" ] || fail "no sentence on what the options take"
[ "$(state .model_path)" = "$demo" ] || fail "choosing a model loaded it before Load: $(state .model_path)"
import -window root "$artifacts/e2e-conversation-model-options.png"; jq -c .model_picker "$ui_file" >&2
xdotool key Escape
wait_for 5 eval '[ "$(ui .model_picker.opened)" = false ]' || fail "Esc did not close the model picker"
xdotool key alt+1
wait_for 30 loaded "$model" || fail "Alt+1 did not load the conversation's model: $(state .model_path)"
wait_for 20 restored || fail "the snapshot was not restored after Alt+1: $(state .snapshot_status)"
wait_for 5 eval '[ "$(state .notice.kind)" != conversation-model ]' || fail "the banner stayed: $(state .notice.text)"
quit_app

# 4. The file gone: the last model that exists, and the missing path said.
rm "$model"
start_app
wait_for 30 loaded "$demo" || fail "did not start on the demo model: $(state .model_path) $(state .model_error)"
wait_for 10 is .notice.kind conversation-model || fail "no banner for the missing model: $(state .notice)"
state .notice.text | grep -qF "$model" || fail "the banner does not name the missing path: $(state .notice.text)"
actions=$(state '[.notice.actions[].id] | join(",")')
[ "$actions" = "pick_model,models_page,new_chat" ] || fail "actions offered: $actions"
sleep 0.3
import -window root "$artifacts/e2e-conversation-model-missing.png"
quit_app
echo "e2e-conversation-model: PASS"
