#!/usr/bin/env bash
# End-to-end (issue 26 points 4 and 6), keyboard only, the memory panel docked:
#   1. after a reply, Tab reaches the memory panel's last section ("How many conversations
#      fit"): the panel scrolls so that its "?" is inside the window;
#   2. Space opens its popup, drawn inside the window (not past its bottom edge);
#   3. while it is open the window's shortcuts still work (Ctrl+= zooms in);
#   4. Esc closes it.
# Usage: e2e_help_popups.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"

fail() {
  echo "e2e-help-popups: FAIL: $*" >&2
  import -window root "$artifacts/e2e-help-popups-failure.png" 2>/dev/null || true
  [ -f "$ui_file" ] && jq -c 'del(.tab_order)' "$ui_file" >&2
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"

start_app
wait_for 30 model_loaded || fail "the demo model did not load"
xdotool type --delay 15 "Genesis 1"
key Return
replied() { [ "$(state .messages)" = 2 ] && [ "$(state .last_message.stats.stop_reason)" != null ]; }
wait_for 60 replied || fail "no reply"
wait_for 5 eval '[ "$(ui .memory_mode)" = docked ]' || fail "the memory panel is $(ui .memory_mode)"

# 1. Tab to the last section's "?" (the Tab order's stop named so).
target="What is this? How many conversations fit"
wait_for 5 eval '[ "$(ui "[.tab_order[].name] | index(\"$target\")")" != null ]' || { jq -c "[.tab_order[].name]" "$ui_file" >&2; fail "no '$target' in the Tab order"; }
n=$(ui "[.tab_order[].name] | index(\"$target\")")
for _ in $(seq 1 "$n"); do xdotool key --clearmodifiers Tab; sleep 0.05; done
wait_for 5 eval '[ "$(ui .focus.name)" = "$target" ]' || fail "$n Tabs reached '$(ui .focus.name)'"
height=$(ui .window_height)
inside() { local y; y=$(ui .focus.y); [ "$y" -ge 0 ] && [ $((y + 22)) -le "$height" ]; }
wait_for 5 inside || fail "the focused '?' is at y=$(ui .focus.y), outside the $height px window"

# 2. Its popup, inside the window.
key space
wait_for 5 eval '[ "$(ui .help_popups_open)" = 1 ]' || fail "Space did not open the popup"
bottom=$(ui .help_popup_bottom | cut -d. -f1)
[ "$bottom" -le "$height" ] || fail "the popup ends at y=$bottom, below the $height px window"
import -window root "$artifacts/e2e-help-popup-open.png"

# 3. A shortcut while it is open.
zoom=$(ui .zoom)
key ctrl+equal
wait_for 5 eval '[ "$(ui .zoom)" != "$zoom" ]' || fail "Ctrl+= did nothing while the popup was open (zoom $zoom)"
key ctrl+0

# 4. Esc closes it.
key Escape
wait_for 5 eval '[ "$(ui .help_popups_open)" = 0 ]' || fail "Esc did not close the popup (focus: $(ui -c .focus 2>/dev/null; jq -c .focus "$ui_file"))"
echo "e2e-help-popups: PASS (popup bottom $bottom of $height, zoom $zoom -> Ctrl+= worked)"
