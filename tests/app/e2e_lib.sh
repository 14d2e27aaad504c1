# Shared by the end-to-end scripts (sourced): waiting, starting the app in its window,
# reading the state file the app writes under KVCHAT_TEST_STATE_FILE.
# Expects: $app (the kvchat binary), $data (the data directory), fail().

wait_for() {  # wait_for SECONDS COMMAND...
  local until=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $until ] || return 1
    sleep 0.1
  done
}

# The window's title, as xdotool matches it ($window_title overrides).
window_title=${window_title:-"kvchat — kjv-demo"}

start_app() {  # start_app [kvchat arguments...]: fresh state file, window found and focused
  rm -f "$KVCHAT_TEST_STATE_FILE"
  "$app" --data-dir "$data" "$@" &
  app_pid=$!
  wait_for 30 xdotool search --onlyvisible --name "$window_title" || fail "no window titled '$window_title'"
  # A window found may be gone a moment later (a short-lived one of the same title while the
  # app starts): find it again until one can be activated.
  local tries
  for tries in 1 2 3 4 5 6 7 8 9 10; do
    window=$(xdotool search --onlyvisible --name "$window_title" 2>/dev/null | head -1)
    if [ -n "$window" ] && { xdotool windowactivate --sync "$window" 2>/dev/null ||
                             xdotool windowfocus --sync "$window" 2>/dev/null; }; then
      break
    fi
    [ "$tries" -lt 10 ] || fail "no window titled '$window_title' could be activated"
    sleep 0.3
  done
  sleep 0.5
}

state() { jq -r "$1" "$KVCHAT_TEST_STATE_FILE" 2>/dev/null; }
# The window has a model loaded (not loading one).
model_loaded() { [ -n "$(state .model_path)" ] && [ "$(state .model_loading)" = false ]; }
# The QML side's state file (layout, focus, Tab order): ui JQ, or ui -c JQ for compact JSON.
ui_file="${KVCHAT_TEST_STATE_FILE}.ui.json"
ui() { if [ "$1" = -c ]; then jq -c "$2" "$ui_file" 2>/dev/null; else jq -r "$1" "$ui_file" 2>/dev/null; fi; }
key() { xdotool key --clearmodifiers "$@"; sleep 0.3; }  # keys, then a moment for the window
