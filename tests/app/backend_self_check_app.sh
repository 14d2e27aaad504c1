#!/usr/bin/env bash
# The backend self-check in the window (issue 12): kvchat with a deliberately wrong CUDA
# backend (the fake plugin, every logit row off by 5%) runs on the CPU and its message
# banner says why, with the numbers; with the unchanged fake no banner appears and the
# fake is used. A prompt is typed in each (the state file the window writes has the
# memory report's backend once a reply is done); self-check-banner.png shows the window.
# Usage: backend_self_check_app.sh KVCHAT_BINARY FAKE_PLUGIN ARTIFACT_DIR  (under xvfb-run)
set -euo pipefail
app=$1
plugin=$2
artifacts=$3
mkdir -p "$artifacts"
root=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$root"' EXIT
export KVCHAT_TEST_STATE_FILE="$root/state.json" KVCHAT_CUDA_PLUGIN="$plugin"

fail() {
  echo "backend self-check: FAIL: $*" >&2
  import -window root "$artifacts/self-check-failure.png" 2>/dev/null || true
  exit 1
}
source "$(dirname "$0")/e2e_lib.sh"

run_with_fault() {  # run_with_fault FAULT: start the app, send a prompt, wait for the reply
  export KVCHAT_FAKE_CUDA_FAULT=$1
  data=$(mktemp -d -p "$root")
  start_app
  if [ "$1" != none ]; then
    # The banner, and the error dialog every errorOccurred opens: a screenshot, then close it.
    has_banner() { [ -n "$(state '.documents.message // empty')" ]; }
    wait_for 30 has_banner || fail "($1) no message in the banner within 30 s"
    sleep 0.5
    import -window root "$artifacts/self-check-banner.png" 2>/dev/null || true
    xdotool key Escape
    sleep 0.3
  fi
  xdotool type --delay 15 "In the beginning"
  xdotool key Return
  reply_finished() { [ "$(state .reply_finished)" = true ]; }
  wait_for 60 reply_finished || fail "($1) no reply within 60 s"
  sleep 0.5
}

run_with_fault offset:0.05
[ "$(state .memory.backend)" = cpu ] || fail "the wrong backend was used: $(state .memory.backend)"
banner=$(state .documents.message)
for part in "Backend: using the CPU backend" "failed its self-check" "up to 5%" "tolerance 1%"; do
  [[ $banner == *"$part"* ]] || fail "the banner lacks '$part': $banner"
done
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true

run_with_fault none
[ "$(state .memory.backend)" = fake-cuda ] || fail "the correct backend was not used: $(state .memory.backend)"
[ -z "$(state '.documents.message // empty')" ] || fail "a banner without cause: $(state .documents.message)"
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
echo "backend self-check: ok ($banner)"
