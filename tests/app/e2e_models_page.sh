#!/usr/bin/env bash
# End-to-end (issue 15): the Models page against the fake Hub (tests/hub/fake_hub.py on
# 127.0.0.1, through HF_ENDPOINT; nothing touches the internet), in a real window:
#   1. Ctrl+Shift+M opens the page; a search for "kjv-demo" lists kvchat/kjv-demo-GGUF and
#      its file, whose fit is read from the remote header: the figures equal
#      `kvchat-cli memory` on the file once downloaded;
#   2. Ctrl+Shift+D downloads it (through the /resolve/ -> /cdn/ redirect, SHA-256
#      checked): the file is the shared demo model byte for byte, no partial is left, and
#      the app opened it (first of the recent models);
#   3. Esc closes the page and a prompt gets a reply from the downloaded model;
#   4. with the Hub unreachable, the page says so once and the demo model still answers.
# Usage: e2e_models_page.sh KVCHAT KVCHAT_CLI FAKE_HUB SHARED_DIR ARTIFACT_DIR (under xvfb-run)
set -euo pipefail
app=$1
cli=$2
fake_hub=$3
shared=$4
artifacts=$5
source "$(dirname "$0")/e2e_workspace.sh"
models_state="$KVCHAT_TEST_STATE_FILE.models.json"
unset HF_TOKEN

fail() {
  echo "e2e: FAIL: $*" >&2
  [ -f "$models_state" ] && cat "$models_state" >&2
  import -window root "$artifacts/e2e-models-failure.png" 2>/dev/null || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
mstate() { jq -r "$1" "$models_state" 2>/dev/null; }

# The fake Hub, on a free port it prints first.
coproc HUB { exec /usr/bin/python3 "$fake_hub" --shared "$shared"; }
read -r -t 30 port <&"${HUB[0]}" || fail "the fake Hub did not start"
export HF_ENDPOINT="http://127.0.0.1:$port"

# 1. Search, and the fit of the file before it is downloaded.
start_app
xdotool key ctrl+shift+m
sleep 1
xdotool type --delay 15 "kjv-demo"
xdotool key Return
fitted() { [ "$(mstate '.files[0].fit_state')" = done ]; }
wait_for 30 fitted || fail "no fit for the repository's file"
[ "$(mstate '.search_results[0]')" = kvchat/kjv-demo-GGUF ] || fail "search results: $(mstate .search_results)"
[ "$(mstate '.current_repo')" = kvchat/kjv-demo-GGUF ] || fail "repository not opened"
[ "$(mstate '.files[0].path')" = kjv-demo-f16.gguf ] || fail "files: $(mstate '.files')"
[ "$(mstate '.files[0].fit.runnable')" = true ] || fail "not runnable: $(mstate '.files[0].fit.why_not')"
[ "$(mstate '.files[0].fit.architecture')" = llama ] || fail "architecture $(mstate '.files[0].fit.architecture')"
import -window root "$artifacts/e2e-models-fit.png"
echo "e2e: remote fit: $(mstate '.files[0].fit | {weights_bytes, kv_bytes, total_bytes, max_ctx, concurrent_conversations, bytes_read}' | tr -d '\n ')"

# 2. Download the selected (first) file; the app opens it.
xdotool key ctrl+shift+d
downloaded() { [ "$(mstate '.downloads[0].status')" = done ] && [ "$(mstate '.opened | length')" -ge 1 ]; }
wait_for 60 downloaded || fail "the download did not finish"
file="$data/models/kjv-demo-f16.gguf"
[ "$(mstate '.opened[0]')" = "$file" ] || fail "opened $(mstate '.opened[0]'), expected $file"
cmp -s "$file" "$shared/models/kjv-demo-f16.gguf" || fail "the downloaded file differs from the Hub's"
[ -z "$(ls -A "$data/models" | grep -v '^kjv-demo-f16.gguf$' || true)" ] || fail "left in models/: $(ls -A "$data/models")"
[ "$(sqlite3 "$data/kvchat.sqlite" "select status from downloads")" = done ] || fail "download row not done"
import -window root "$artifacts/e2e-models-downloaded.png"
# The finished download's bar is full, filled in the accent colour (issue 26: in the
# window's pale selection tint a full bar looked empty).
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
bar_full() { [ "$(jq -r '.download_bars[0].position' "$ui_file" 2>/dev/null)" = 1 ]; }
wait_for 10 bar_full || fail "the finished download's bar is not full: $(jq -c .download_bars "$ui_file" 2>/dev/null)"
[ "$(jq -r '.download_bars[0].status' "$ui_file")" = done ] || fail "bar status: $(jq -c .download_bars "$ui_file")"
[ "$(jq -r '.download_bars[0].fill' "$ui_file")" = "$(jq -r '.download_bars[0].accent' "$ui_file")" ] \
  || fail "the bar's fill is not the accent colour: $(jq -c .download_bars "$ui_file")"
[ "$(jq -r '.download_bars[0].accessible_name' "$ui_file")" = "Download finished" ] \
  || fail "the bar's accessible name: $(jq -c .download_bars "$ui_file")"
echo "e2e: the finished download's bar: $(jq -c '.download_bars[0]' "$ui_file")"

# The fit read from the header equals kvchat-cli memory on the downloaded file.
ctx=$(mstate '.files[0].fit.n_ctx')
kv=$(mstate '.files[0].fit.kv_type')
budget=$(mstate '.files[0].fit.free_bytes')
cli_json=$("$cli" memory --model "$file" --ctx "$ctx" --kv-type "$kv" --budget-bytes "$budget" --json)
for key in weights_bytes kv_bytes total_bytes max_ctx max_ctx_capped concurrent_conversations; do
  remote=$(mstate ".files[0].fit.$key")
  local_value=$(jq -r ".$key" <<<"$cli_json")
  [ "$(printf '%.0f' "$remote")" = "$local_value" ] || fail "$key: remote header $remote, kvchat-cli memory $local_value"
done
echo "e2e: the remote fit equals kvchat-cli memory (ctx $ctx, $kv, budget $budget)"

# 3. Chat with the downloaded model.
xdotool key Escape
sleep 0.5
model_open() { sqlite3 "$data/kvchat.sqlite" "select value_json from settings where key='recent_models'" | grep -qF "[\"$file\""; }
wait_for 30 model_open || fail "the downloaded model is not the one open: $(sqlite3 "$data/kvchat.sqlite" "select value_json from settings where key='recent_models'")"
sleep 1
xdotool type --delay 15 "Genesis 1"
xdotool key shift+Return
xdotool type --delay 15 "1 In the beginning"
xdotool key Return
reply_finished() { [ "$(jq -r .reply_finished "$KVCHAT_TEST_STATE_FILE" 2>/dev/null)" = true ]; }
wait_for 60 reply_finished || fail "no reply from the downloaded model within 60 s"
reply=$(sqlite3 "$data/kvchat.sqlite" "select content from messages where role='assistant'")
[ -n "$reply" ] || fail "no reply stored"
import -window root "$artifacts/e2e-models-chat.png"
echo "e2e: the downloaded model replied (${#reply} characters)"

# 4. Offline: said once, the demo keeps working.
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
kill "$HUB_PID" 2>/dev/null || true
export HF_ENDPOINT="http://127.0.0.1:$port"  # nobody listens there now
start_app
xdotool key ctrl+shift+m
sleep 1
xdotool type --delay 15 "qwen"
xdotool key Return
offline() { [ -n "$(mstate '.offline_notice')" ] && [ "$(mstate '.offline_notice')" != null ]; }
wait_for 40 offline || fail "no offline notice"
[ -z "$(mstate '.message')" ] || fail "offline also shown as an error: $(mstate '.message')"
[ "$(mstate '.catalog')" -ge 10 ] || fail "the catalog is not listed"
import -window root "$artifacts/e2e-models-offline.png"
echo "e2e: offline: $(mstate '.offline_notice')"
echo "1 passed, 0 failed"
