#!/usr/bin/env bash
# The README's window screenshots (docs/screenshots/): the demo chat after one reply at
# 1000x700 (the memory panel as a drawer: closed in light, open in dark) and 1600x1000
# (docked), light and dark, plus chat-light.png / chat-dark.png at 1280x800, and both sizes
# at 150% zoom (chat-THEME-SIZE-zoom150.png), a reasoning reply (thinking-THEME-*.png) and a
# branched conversation (branches-THEME.png); KVCHAT_SCREENSHOTS_ONLY=thinking|branches takes
# only those.
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
# A reply through a reasoning template (DeepSeek-R1's generation prompt opens "<think>", so the
# demo model's whole reply is its reasoning, cut at the length limit): thinking-THEME-folded.png
# (the block folded, as it is once a reply ends) and thinking-THEME-open.png (Ctrl+Shift+T).
# The template is the model's override in the settings table, written between two starts.
shoot_thinking() {
  local theme=$1 model
  rm -rf "$data"/*
  start_app --theme "$theme"
  wait_for 60 model_loaded || fail "no model loaded"
  model=$(state .model_path)
  xdotool key ctrl+q
  wait "$app_pid" || true
  jq -r '.templates["deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja"]' \
    "$root/../shared/templates/cases.json" > "$data/r1.jinja"
  sqlite3 "$data/kvchat.sqlite" "INSERT INTO settings (key, value_json) VALUES
    ('chat_template_override/$model', json_array(CAST(readfile('$data/r1.jinja') AS TEXT)))
    ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json"
  start_app --theme "$theme"
  wait_for 60 model_loaded || fail "no model loaded"
  xdotool windowsize "$window" 1280 800
  xdotool type --delay 15 "Genesis 1"
  xdotool key shift+Return
  xdotool type --delay 15 "1 In the beginning"
  xdotool key Return
  wait_for 60 eval '[ "$(state .reply_finished)" = true ]' || fail "no reply"
  sleep 1
  import -window "$window" "$out/thinking-$theme-folded.png"
  xdotool key --clearmodifiers ctrl+shift+t
  sleep 1
  import -window "$window" "$out/thinking-$theme-open.png"
  echo "screenshots: $out/thinking-$theme-folded.png, thinking-$theme-open.png"
  xdotool key ctrl+q
  wait "$app_pid" || true
}
# A branched conversation: the first reply regenerated (Ctrl+R: a second branch), then a second
# turn on it, so ‹ 2/2 › stands under an earlier message (branches-THEME.png).
shoot_branches() {
  local theme=$1
  rm -rf "$data"/*
  start_app --theme "$theme"
  wait_for 60 model_loaded || fail "no model loaded"
  xdotool windowsize "$window" 1280 800
  finished() {  # N messages, the last a finished reply showing branch $2 (0-based) of $3
    [ "$(state .messages)" = "$1" ] && [ "$(state .reply.state)" = complete ] &&
      [ "$(state .reply.version)" = "$2" ] && [ "$(state .reply.version_count)" = "$3" ]
  }
  xdotool type --delay 15 "Genesis 1"
  xdotool key shift+Return
  xdotool type --delay 15 "1 In the beginning"
  xdotool key Return
  wait_for 60 finished 2 0 1 || fail "no reply"
  xdotool key ctrl+r
  wait_for 60 finished 2 1 2 || fail "Ctrl+R made no second branch"
  xdotool type --delay 15 "Exodus 1"
  xdotool key shift+Return
  xdotool type --delay 15 "1 Now these are the names"
  xdotool key Return
  wait_for 60 finished 4 0 1 || fail "no second reply"
  sleep 1
  import -window "$window" "$out/branches-$theme.png"
  echo "screenshots: $out/branches-$theme.png"
  xdotool key ctrl+q
  wait "$app_pid" || true
}
case "${KVCHAT_SCREENSHOTS_ONLY:-}" in
  thinking) shoot_thinking light; shoot_thinking dark; exit 0 ;;
  branches) shoot_branches light; shoot_branches dark; exit 0 ;;
esac
shoot light
shoot dark
shoot_thinking light
shoot_thinking dark
shoot_branches light
shoot_branches dark
