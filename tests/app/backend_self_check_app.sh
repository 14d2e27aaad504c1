#!/usr/bin/env bash
# The backend self-check in the window (issue 12): kvchat with a deliberately wrong CUDA
# backend (the fake plugin, every logit row off by 5%) runs on the CPU and its message
# banner says why, with the numbers; with the unchanged fake no banner appears and the
# fake is used. Reads what the window shows from KVCHAT_TEST_STATE_FILE.
# Usage: backend_self_check_app.sh KVCHAT_BINARY FAKE_PLUGIN ARTIFACT_DIR  (under xvfb-run)
set -euo pipefail
app=$1
plugin=$2
artifacts=$3
mkdir -p "$artifacts"
data=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$data"' EXIT
export KVCHAT_TEST_STATE_FILE="$data/state.json" KVCHAT_CUDA_PLUGIN="$plugin"

fail() {
  echo "backend self-check: FAIL: $*" >&2
  import -window root "$artifacts/self-check-failure.png" 2>/dev/null || true
  exit 1
}
source "$(dirname "$0")/e2e_lib.sh"

run_with_fault() {  # run_with_fault FAULT DATA_SUBDIR: start the app, wait for its backend
  rm -f "$KVCHAT_TEST_STATE_FILE"
  KVCHAT_FAKE_CUDA_FAULT=$1 "$app" --data-dir "$data/$2" &
  app_pid=$!
  has_backend() { [ -n "$(state '.memory.backend // empty')" ]; }
  wait_for 60 has_backend || fail "($1) no model loaded within 60 s"
  sleep 1  # the banner's message arrives with the model; let the window draw it
}

run_with_fault offset:0.05 wrong
[ "$(state .memory.backend)" = cpu ] || fail "the wrong backend was used: $(state .memory.backend)"
banner=$(state .documents.message)
for part in "Backend: using the CPU backend" "failed its self-check" "up to 5%" "tolerance 1%"; do
  [[ $banner == *"$part"* ]] || fail "the banner lacks '$part': $banner"
done
import -window root "$artifacts/self-check-banner.png" 2>/dev/null || true
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true

run_with_fault none right
[ "$(state .memory.backend)" = fake-cuda ] || fail "the correct backend was not used: $(state .memory.backend)"
[ -z "$(state '.documents.message // empty')" ] || fail "a banner without cause: $(state .documents.message)"
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
echo "backend self-check: ok ($banner)"
