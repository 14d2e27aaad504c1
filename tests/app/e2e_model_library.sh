#!/usr/bin/env bash
# End-to-end (issue 26): My models, the model files on disk, by keys only in a real window.
#   1. Ctrl+Shift+M opens the Models page, Ctrl+PgDown its My models tab: the loaded demo
#      model (recent) and the two files copied into the data directory's models/ are
#      listed with their figures (name by file: stories260K, not its general.name
#      "llama"; architecture, quantization, size, trained context, never used, the fit);
#   2. Down to stories260K, Enter: the page closes and the window's model is stories260K;
#   3. Ctrl+Shift+M again (My models still shown): Delete on the loaded stories260K is
#      refused, with the reason, the file kept; Delete on the copy of kjv-demo-f16 asks
#      (the file and its size named, the focus on Cancel), Tab + Enter removes it: the
#      file is gone and so is its row.
#   4. (issue 43) The demo model is never offered for deletion: its row is not kvchat's
#      (owned false, demo true); Delete on it asks to Forget it instead, saying why it is
#      not deleted; Tab + Enter takes it off the list and leaves the file on disk.
# Usage: e2e_model_library.sh KVCHAT SHARED_MODELS_DIR ARTIFACT_DIR (under xvfb-run)
set -euo pipefail
app=$1
shared=$2
artifacts=$3
source "$(dirname "$0")/e2e_workspace.sh"
library_state="$KVCHAT_TEST_STATE_FILE.library.json"
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"

fail() {
  echo "e2e: FAIL: $*" >&2
  [ -f "$library_state" ] && jq -c '.entries[] | {file_name, name, architecture, quantization, size, n_ctx_train, last_used_text, loaded, error, fit_state}' "$library_state" >&2
  [ -f "$ui_file" ] && jq -c .model_library "$ui_file" >&2
  import -window root "$artifacts/e2e-model-library-failure.png" 2>/dev/null || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
lstate() { jq -r "$1" "$library_state" 2>/dev/null; }
ui() { jq -r "$1" "$ui_file" 2>/dev/null; }
row() { lstate ".entries[] | select(.file_name == \"$1\") | $2"; }
index_of() { lstate "[.entries[].file_name] | index(\"$1\")"; }

mkdir -p "$data/models"
stories="$data/models/stories260K.gguf"
copy="$data/models/kjv-demo-f16.gguf"
cp "$shared/stories260K.gguf" "$stories"
cp "$shared/kjv-demo-f16.gguf" "$copy"
chmod u+w "$stories" "$copy"

# Moves My models' selection to row $1 with Up / Down.
select_row() {
  local want=$1 i
  for i in $(seq 1 20); do
    local at
    at=$(ui .model_library.current_index)
    [ "$at" = "$want" ] && return 0
    if [ "$at" -lt "$want" ]; then xdotool key Down; else xdotool key Up; fi
    sleep 0.4
  done
  fail "the selection did not reach row $want (at $(ui .model_library.current_index))"
}

# 1. The list, with its figures.
start_app
wait_for 30 model_loaded || fail "the demo model did not load"
xdotool key ctrl+shift+m
sleep 1
xdotool key ctrl+Next
on_tab() { [ "$(ui .model_library.tab)" = 1 ] && [ "$(ui .model_library.list_focus)" = true ]; }
wait_for 10 on_tab || fail "My models is not shown with the focus on its list: $(jq -c .model_library "$ui_file")"
listed() { [ -n "$(row stories260K.gguf .name)" ] && [ "$(lstate "[.entries[] | select(.path == \"$copy\")] | length")" = 1 ]; }
wait_for 10 listed || fail "the two files of models/ are not listed"
[ "$(row stories260K.gguf .name)" = stories260K ] || fail "stories260K's name: $(row stories260K.gguf .name)"
for f in stories260K.gguf; do
  [ "$(row $f .architecture)" = llama ] || fail "$f architecture: $(row $f .architecture)"
done
[ "$(row stories260K.gguf .size)" = "$(stat -c %s "$stories")" ] || fail "stories260K's size: $(row stories260K.gguf .size)"
[ "$(row stories260K.gguf .last_used_text)" = never ] || fail "stories260K last used: $(row stories260K.gguf .last_used_text)"
[ "$(row stories260K.gguf .n_ctx_train)" -gt 0 ] || fail "stories260K's trained context: $(row stories260K.gguf .n_ctx_train)"
[ -n "$(row stories260K.gguf .quantization)" ] || fail "stories260K has no quantization"
[ "$(row stories260K.gguf .fit_state)" = done ] || fail "stories260K's fit: $(row stories260K.gguf .fit_state) $(row stories260K.gguf .fit_error)"
copy_row() { lstate ".entries[] | select(.path == \"$copy\") | $1"; }
[ "$(copy_row .name)" = kjv-demo-f16 ] || fail "the copy's name: $(copy_row .name)"
[ "$(copy_row .architecture)" = llama ] || fail "the copy's architecture: $(copy_row .architecture)"
[ "$(copy_row .quantization)" = F16 ] || fail "the copy's quantization: $(copy_row .quantization)"
[ "$(copy_row .size)" = "$(stat -c %s "$copy")" ] || fail "the copy's size: $(copy_row .size)"
[ "$(copy_row .n_ctx_train)" -gt 0 ] || fail "the copy's trained context: $(copy_row .n_ctx_train)"
[ "$(copy_row .loaded)" = false ] || fail "the copy is said to be loaded"
[ "$(lstate '.entries[0].loaded')" = true ] || fail "the loaded demo model is not first: $(lstate '.entries[0].path')"
[ "$(lstate '.entries[0].recent_rank')" = 0 ] || fail "the first row is not the last one used"
demo=$(state .model_path)
[ "$(lstate '.entries[0].demo')" = true ] || fail "the demo model's row is not marked demo"
[ "$(lstate '.entries[0].owned')" = false ] || fail "the demo model is offered for deletion"
[ "$(copy_row .owned)" = true ] || fail "the copy in models/ is not kvchat's"
import -window root "$artifacts/e2e-model-library-list.png"
echo "e2e: listed: $(lstate '[.entries[] | "\(.name) \(.architecture) \(.quantization) \(.size_text) ctx \(.n_ctx_train) last used \(.last_used_text)"] | join("; ")')"

# 2. Open stories260K from the list.
select_row "$(index_of stories260K.gguf)"
xdotool key Return
stories_loaded() { [ "$(state .model_path)" = "$stories" ] && [ "$(state .model_loading)" = false ]; }
wait_for 30 stories_loaded || fail "the window's model is $(state .model_path), not $stories"
[ "$(row stories260K.gguf .loaded)" = true ] || fail "the list does not show stories260K as loaded"
[ "$(row stories260K.gguf .recent_rank)" = 0 ] || fail "stories260K is not the last one used now"
[ -n "$(row stories260K.gguf .last_used)" ] || fail "no time stored for stories260K's use"
echo "e2e: opened from My models: $(state .model_path)"

# 3. Remove: refused for the loaded model; the copy, with the confirmation.
xdotool key ctrl+shift+m
sleep 1
wait_for 10 on_tab || fail "My models is not shown again: $(jq -c .model_library "$ui_file")"
select_row "$(index_of stories260K.gguf)"
xdotool key Delete
refused() { ui .model_library.refusal | grep -q "loaded"; }
wait_for 5 refused || fail "removing the loaded model was not refused"
[ "$(ui .model_library.visible)" = false ] || fail "a confirmation was asked for the loaded model"
[ -f "$stories" ] || fail "the loaded model's file is gone"
echo "e2e: refused: $(ui .model_library.refusal)"

select_row "$(lstate "[.entries[].path] | index(\"$copy\")")"
xdotool key Delete
asked() { [ "$(ui .model_library.visible)" = true ]; }
wait_for 5 asked || fail "no confirmation"
ui .model_library.text | grep -qF "kjv-demo-f16.gguf" || fail "the confirmation does not name the file: $(ui .model_library.text)"
ui .model_library.text | grep -qF "$(copy_row .size_text)" || fail "the confirmation does not give the size: $(ui .model_library.text)"
[ "$(ui .model_library.focus_on_remove)" = false ] || fail "the focus starts on Remove"
import -window root "$artifacts/e2e-model-library-confirm.png"
xdotool key Tab
sleep 0.4
[ "$(ui .model_library.focus_on_remove)" = true ] || fail "Tab did not reach Remove"
xdotool key Return
gone() { [ ! -e "$copy" ]; }
wait_for 5 gone || fail "the copy is still on disk"
no_row() { [ "$(lstate "[.entries[] | select(.path == \"$copy\")] | length")" = 0 ]; }
wait_for 5 no_row || fail "the removed file is still listed"
[ -f "$stories" ] || fail "stories260K went too"
sqlite3 "$data/kvchat.sqlite" "select value_json from settings where key='recent_models'" | grep -qF "$copy" \
  && fail "the removed file is still a recent model"
echo "e2e: removed: $(lstate .message)"
import -window root "$artifacts/e2e-model-library-removed.png"

# 4. The demo model: Forget, never Remove from disk.
demo_index() { lstate "[.entries[].path] | index(\"$demo\")"; }
select_row "$(demo_index)"
xdotool key Delete
wait_for 5 asked || fail "no question for the demo model (refusal: $(ui .model_library.refusal))"
[ "$(ui .model_library.forgetting)" = true ] || fail "the demo model is offered for deletion: $(ui .model_library.text)"
ui .model_library.text | grep -qF "demo" || fail "the question does not say it is the demo model: $(ui .model_library.text)"
[ "$(ui .model_library.focus_on_remove)" = false ] || fail "the focus starts on Forget"
xdotool key Tab
sleep 0.4
[ "$(ui .model_library.focus_on_remove)" = true ] || fail "Tab did not reach Forget"
xdotool key Return
demo_gone() { [ "$(demo_index)" = null ]; }
wait_for 5 demo_gone || fail "the forgotten demo model is still listed"
[ -f "$demo" ] || fail "the demo model's file was deleted"
echo "e2e: forgot the demo model: $(lstate .message)"
echo "1 passed, 0 failed"
