#!/usr/bin/env bash
# The README's window screenshots (docs/screenshots/): the demo chat after one reply at
# 1000x700 (the memory panel as a drawer: closed in light, open in dark) and 1600x1000
# (docked), light and dark, plus chat-light.png / chat-dark.png at 1280x800, and both sizes
# at 150% zoom (chat-THEME-SIZE-zoom150.png).
# Usage: scripts/take_screenshots.sh [KVCHAT_BINARY] [OUT_DIR]   (needs xvfb-run, xdotool,
# imagemagick; default build/bin/kvchat and docs/screenshots)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
app=$(realpath "${1:-$root/build/bin/kvchat}")
out=$(realpath -m "${2:-$root/docs/screenshots}")
mkdir -p "$out"
if [ -z "${KVCHAT_SCREENSHOTS_IN_XVFB:-}" ]; then
  KVCHAT_SCREENSHOTS_IN_XVFB=1 exec xvfb-run -a -s "-screen 0 1920x1200x24 -noreset" "$0" "$app" "$out"
fi
data=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$data"' EXIT
export KVCHAT_TEST_STATE_FILE="$data/state.json"
fail() { echo "screenshots: $*" >&2; exit 1; }
source "$root/tests/app/e2e_lib.sh"
shoot() {  # shoot THEME: one run, the four sizes
  local theme=$1
  rm -rf "$data"/*
  start_app --theme "$theme"
  xdotool type --delay 15 "Genesis 1"
  xdotool key shift+Return
  xdotool type --delay 15 "1 In the beginning"
  xdotool key Return
  wait_for 60 eval '[ "$(state .reply_finished)" = true ]' || fail "no reply"
  for size in 1280x800 1000x700 1600x1000; do
    xdotool windowsize "$window" "${size%x*}" "${size#*x}"
    sleep 1
    local name="chat-$theme-$size.png"
    [ "$size" = 1280x800 ] && name="chat-$theme.png"
    if [ "$size" = 1000x700 ] && [ "$theme" = dark ]; then
      xdotool key ctrl+m; sleep 1  # the memory drawer, open
    fi
    import -window "$window" "$out/$name"
    if [ "$size" = 1000x700 ] && [ "$theme" = dark ]; then xdotool key ctrl+m; sleep 0.5; fi
    echo "screenshots: $out/$name"
  done
  # At 150% zoom (Ctrl+= three times: 1.1, 1.25, 1.5), both sizes.
  xdotool key --clearmodifiers ctrl+equal ctrl+equal ctrl+equal
  wait_for 5 eval '[ "$(jq -r .zoom "$KVCHAT_TEST_STATE_FILE.ui.json")" = 1.5 ]' || fail "zoom did not reach 1.5"
  for size in 1000x700 1600x1000; do
    xdotool windowsize "$window" "${size%x*}" "${size#*x}"
    sleep 1
    import -window "$window" "$out/chat-$theme-$size-zoom150.png"
    echo "screenshots: $out/chat-$theme-$size-zoom150.png"
  done
  xdotool key --clearmodifiers ctrl+0
  xdotool key ctrl+q
  wait "$app_pid" || true
}
shoot light
shoot dark
