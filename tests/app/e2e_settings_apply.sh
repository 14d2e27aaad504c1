#!/usr/bin/env bash
# End-to-end, keyboard only (issue 43 point 6): Settings applies one way and stays out of
# the header's way.
#   1. Ctrl+, opens the drawer below the header (its top at or under the header's bottom,
#      its dimming too, so the header's buttons are neither covered nor dimmed), with a
#      dimming that is seen (Theme.dim's alpha), the rule said at its top and the Apply bar
#      pinned at its bottom, saying that nothing waits;
#   2. Tab to the KV type, Down (f16 -> q8_0): the engine change waits, the bar says Apply
#      reloads the model and is still at the drawer's bottom (the panel scrolled to the
#      choice); Apply (Tab, Space) closes Settings and reloads the model with q8_0;
#   3. in the dark theme the drawer starts under the header too and dims more.
# The status line's "Reloading …" is checked by test_model_settings (aReloadIsSaidAsItStarts):
# the demo model reloads faster than the state file is written.
# Usage: e2e_settings_apply.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"

ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
fail() {
  echo "e2e-settings-apply: FAIL: $*" >&2
  import -window root "$artifacts/e2e-settings-apply-failure.png" 2>/dev/null || true
  [ -f "$ui_file" ] && jq -c '{focus, settings_open, header_bottom, settings_layout}' "$ui_file" >&2 || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
focused() { ui .focus.object_name; }
is_focused() { [ "$(focused)" = "$1" ]; }
# Tab until the item named $1 has the focus, at most 150 presses.
tab_to() {
  local presses before
  for presses in $(seq 1 150); do
    is_focused "$1" && return 0
    before=$(ui -c .focus)
    xdotool key Tab
    wait_for 3 eval '[ "$(ui -c .focus)" != "$before" ]' || fail "Tab did not move the focus from $before"
  done
  is_focused "$1" || fail "$1 is not on the Tab order (150 presses)"
}
# jq's answer to a test on the state file is "true".
holds() { [ "$(ui "$1")" = true ]; }
open_settings() {
  key ctrl+comma
  wait_for 5 eval '[ "$(ui .settings_open)" = true ]' || fail "Ctrl+, did not open Settings"
  sleep 0.5
}
# The drawer and its dimming start at or under the header's bottom; the dimming is seen;
# the Apply bar is inside the drawer, at its bottom, inside the window.
below_header_and_pinned() {  # below_header_and_pinned WHERE MIN_DIM_ALPHA
  holds '.settings_layout.top >= .header_bottom - 0.5' \
    || fail "$1: the drawer's top $(ui .settings_layout.top) is above the header's bottom $(ui .header_bottom)"
  holds '.settings_layout.dim_top >= .header_bottom - 0.5' \
    || fail "$1: the dimming starts at $(ui .settings_layout.dim_top), over the header (bottom $(ui .header_bottom))"
  holds ".settings_layout.dim_alpha >= $2" || fail "$1: the dimming's alpha $(ui .settings_layout.dim_alpha) < $2"
  holds '(.settings_layout.apply_bar_bottom - .settings_layout.bottom) as $d | $d * $d <= 4' \
    || fail "$1: the Apply bar ends at $(ui .settings_layout.apply_bar_bottom), the drawer at $(ui .settings_layout.bottom)"
  holds '.settings_layout.bottom <= .window_height + 1' || fail "$1: the drawer ends past the window"
  holds '.settings_layout.apply_bar_top > .settings_layout.top' || fail "$1: the Apply bar is not inside the drawer"
}

# 1. Light: under the header, the rule, nothing waiting.
start_app --theme light
wait_for 30 model_loaded || fail "the demo model did not load"
key Escape  # the first run's welcome
open_settings
below_header_and_pinned light 0.3
ui .settings_layout.rule | grep -q "apply at once" || fail "the rule is not said: $(ui .settings_layout.rule)"
[ "$(ui .settings_layout.engine_pending)" = false ] || fail "an engine change waits before any was made"
[ "$(ui .settings_layout.apply_enabled)" = false ] || fail "Apply is enabled with nothing to apply"
import -window root "$artifacts/e2e-settings-apply-open.png"
echo "e2e-settings-apply: drawer at $(ui .settings_layout.top) under the header's $(ui .header_bottom), Apply bar pinned"

# 2. An engine change waits for Apply, which says what it does; Apply reloads.
[ "$(state .engine_settings.kv_type)" = f16 ] || fail "the demo model's KV type is $(state .engine_settings.kv_type)"
tab_to kvTypeChoice
key Down
wait_for 5 holds '.settings_layout.engine_pending' || fail "the KV type change does not wait for Apply"
ui .settings_layout.apply_note | grep -q "Apply reloads kjv-demo" || fail "the Apply bar says: $(ui .settings_layout.apply_note)"
[ "$(ui .settings_layout.apply_enabled)" = true ] || fail "Apply is not enabled with a change waiting"
[ "$(state .engine_settings.kv_type)" = f16 ] || fail "the KV type applied before Apply"
below_header_and_pinned "with the panel scrolled" 0.3
tab_to applySettings
key space
wait_for 5 eval '[ "$(ui .settings_open)" = false ]' || fail "Apply did not close Settings"
wait_for 30 eval '[ "$(state .engine_settings.kv_type)" = q8_0 ]' || fail "Apply did not keep q8_0: $(state .engine_settings.kv_type)"
wait_for 30 model_loaded || fail "the model did not load again after Apply"
echo "e2e-settings-apply: q8_0 waited for Apply, which reloaded the model"
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true

# 3. Dark: the same place, a deeper dimming.
start_app --theme dark
wait_for 30 model_loaded || fail "the demo model did not load (dark)"
open_settings
[ "$(ui .dark)" = true ] || fail "--theme dark is not dark"
below_header_and_pinned dark 0.5
import -window root "$artifacts/e2e-settings-apply-dark.png"
echo "e2e-settings-apply: PASS"
