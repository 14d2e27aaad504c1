#!/usr/bin/env bash
# The installed kvchat is single-instance (run by check_package.sh under Xvfb): started on
# DATA_DIR, a second `kvchat --data-dir DATA_DIR MODEL` exits 0 within seconds and the
# running window loads MODEL (read from its KVCHAT_TEST_STATE_FILE).
# usage: check_single_instance.sh KVCHAT DATA_DIR MODEL
set -euo pipefail
app=$1 data=$2 model=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
export KVCHAT_TEST_STATE_FILE="$data/state.json"
state() { jq -r "$1" "$KVCHAT_TEST_STATE_FILE" 2>/dev/null; }
loaded() { [ "$(state .model_path)" = "$1" ] && [ "$(state .model_loading)" = false ]; }
wait_loaded() {  # wait_loaded PATH: up to 30 s
  for _ in $(seq 300); do loaded "$1" && return 0; sleep 0.1; done
  return 1
}
"$app" --data-dir "$data" &
first=$!
# Killed at the end, the first leaves its socket file, kvchat-<the first 24 hex digits of the
# SHA-256 of the data directory's path>, in a 0700 directory of the user's own: $XDG_RUNTIME_DIR
# when it is set and private, else ${TMPDIR:-/tmp}/kvchat-<uid> (SingleInstance::server_name_for).
socket_dir() {
  if [ -n "${XDG_RUNTIME_DIR:-}" ] && [ ! -L "$XDG_RUNTIME_DIR" ] && [ -d "$XDG_RUNTIME_DIR" ] && [ -O "$XDG_RUNTIME_DIR" ] &&
     [ "$(stat -c %a "$XDG_RUNTIME_DIR")" = 700 ]; then
    echo "$XDG_RUNTIME_DIR"
  else
    echo "${TMPDIR:-/tmp}/kvchat-$(id -u)"
  fi
}
socket_file() { echo "$(socket_dir)/kvchat-$(printf %s "$(realpath "$data")" | sha256sum | cut -c1-24)"; }
cleanup() {
  kill "$first" 2>/dev/null || true
  wait "$first" 2>/dev/null || true
  [ -S "$(socket_file)" ] && rm -f "$(socket_file)"
  return 0
}
trap cleanup EXIT
for _ in $(seq 300); do [ "$(state .model_loading)" = false ] && break; sleep 0.1; done
[ "$(state .model_loading)" = false ] || fail "the first kvchat did not finish loading its model"
start=$SECONDS
timeout 10 "$app" --data-dir "$data" "$model" || fail "the second kvchat exited with status $?"
[ $((SECONDS - start)) -le 5 ] || fail "the second kvchat took $((SECONDS - start)) s"
wait_loaded "$model" || fail "the running kvchat did not open $model: $(state .model_path) $(state .model_error)"
kill -0 "$first" || fail "the first kvchat is gone"
[ -S "$(socket_file)" ] || fail "no socket $(socket_file)"
echo "   single instance: the second launch handed $(basename "$model") to the running window"
