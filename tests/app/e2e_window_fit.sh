#!/usr/bin/env bash
# End-to-end (issue 26 points 3 and 7): at 1600x1000 and 1000x700, at 100% and 150% zoom,
# after a reply, nothing in the Settings drawer, the memory panel (docked, or its drawer in
# a narrow window) or the sidebar ends past its right edge or is cut with "…" (the window
# reports both, Main.qml overflowOf); Ctrl+, opens and closes Settings (also while it is
# open: no shortcut is blocked by it), Esc closes it too; the memory panel's machine bar
# has a visible caption that is also its accessible name. Keyboard only.
# Usage: e2e_window_fit.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run, 1600x1000)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"

fail() {
  echo "e2e-window-fit: FAIL: $*" >&2
  import -window root "$artifacts/e2e-window-fit-failure.png" 2>/dev/null || true
  [ -f "$ui_file" ] && jq -c '{window_width, window_height, zoom, memory_mode, settings_open, overflow}' "$ui_file" >&2
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
ui_is() { local q=$1 v=$2; wait_for 5 eval '[ "$(ui "$q")" = "$v" ]'; }
fits() {  # fits PANEL WHERE: nothing of .overflow.PANEL past the edge or elided
  local got
  got=$(jq -c ".overflow.$1 | select(. != null) | (.past_edge + .elided)" "$ui_file")
  [ "$got" = "[]" ] || fail "$2: the $1 does not fit: $(jq -c ".overflow.$1" "$ui_file")"
}

# The memory panel's bar under "Machine:" has a visible caption saying what it measures,
# and that caption is its accessible name (issue 26).
machine_bar_labelled() {
  local label
  label=$(ui .machine_bar.label)
  case "$label" in "Bar: RAM in use on this machine by all processes, "*" of "*"%)") ;; *) fail "$1: the machine bar's caption: $label" ;; esac
  [ "$(ui .machine_bar.label_visible)" = true ] || fail "$1: the machine bar's caption is not shown"
  [ "$(ui .machine_bar.accessible_name)" = "$label" ] || fail "$1: the machine bar's accessible name: $(ui .machine_bar.accessible_name)"
}

start_app
wait_for 30 model_loaded || fail "the demo model did not load"
key Escape  # the first run's welcome
xdotool type --delay 15 "Genesis 1"
key Return
replied() { [ "$(state .messages)" = 2 ] && [ "$(state .last_message.stats.stop_reason)" != null ]; }
wait_for 60 replied || fail "no reply"

for size in 1600x1000 1000x700; do
  xdotool windowsize --sync "$window" "${size%x*}" "${size#*x}"
  ui_is .window_width "${size%x*}" || fail "the window did not become $size"
  for zoom in 1 1.5; do
    if [ "$zoom" = 1.5 ]; then key ctrl+equal; key ctrl+equal; key ctrl+equal; fi
    ui_is .zoom "$zoom" || fail "zoom is $(ui .zoom), expected $zoom"
    where="$size at ${zoom}x"
    sleep 0.5
    fits sidebar "$where"
    if [ "$(ui .memory_mode)" = drawer ]; then
      key ctrl+m
      ui_is .memory_visible true || fail "$where: Ctrl+M did not open the memory drawer"
      sleep 0.5
      fits memory "$where"
      machine_bar_labelled "$where"
      import -window root "$artifacts/e2e-window-fit-memory-$size-$zoom.png"
      key Escape
      ui_is .memory_visible false || fail "$where: Esc did not close the memory drawer"
    else
      fits memory "$where"
      machine_bar_labelled "$where"
      import -window root "$artifacts/e2e-window-fit-memory-$size-$zoom.png"
    fi
    key ctrl+comma
    ui_is .settings_open true || fail "$where: Ctrl+, did not open Settings"
    sleep 0.7
    fits settings "$where"
    import -window root "$artifacts/e2e-window-fit-settings-$size-$zoom.png"
    if [ "$zoom" = 1 ]; then key ctrl+comma; else key Escape; fi
    ui_is .settings_open false || fail "$where: Settings did not close"
    if [ "$zoom" = 1.5 ]; then key ctrl+0; fi
  done
done
echo "e2e-window-fit: PASS (Settings, memory panel and sidebar fit at 1600x1000 and 1000x700, 1x and 1.5x)"
