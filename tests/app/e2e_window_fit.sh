#!/usr/bin/env bash
# End-to-end (issue 26 points 3 and 7, issue 43 point 10): at 1600x1000 and 1000x700, at
# 100% and 150% zoom, in English and in Korean (the Settings choice, as the app stores it),
# after a reply, nothing in the header (the model picker, the demo notice, the buttons; the
# last button inside the window), the model picker's list (Ctrl+O, on "Open file…"), the
# Settings drawer, the memory panel (docked, or its drawer in a narrow window) or the
# sidebar ends past its right edge or is cut with "…" (the window reports both, Main.qml
# overflowOf and headerState); the header's buttons keep their words where there is room;
# Ctrl+, opens and closes Settings (also while it is open: no shortcut is blocked by it),
# Esc closes it too; the memory panel's machine bar has a visible caption that is also its
# accessible name (checked in English); the first run's welcome says where the memory
# panel is at each width. Keyboard only.
# Usage: e2e_window_fit.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run, 1600x1000)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"
ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"

fail() {
  echo "e2e-window-fit: FAIL: $*" >&2
  import -window root "$artifacts/e2e-window-fit-failure.png" 2>/dev/null || true
  [ -f "$ui_file" ] && jq -c '{window_width, window_height, zoom, memory_mode, settings_open, overflow, header, model_picker}' "$ui_file" >&2
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

# The header (issue 43): no item cut or squeezed, none past the window's edge (the last
# button's right edge inside it), the demo notice whole or shortened, never cut; the
# picker's details and the buttons' words there when the window has room for them.
header_fits() {  # header_fits WHERE ROOMY
  local ww cut past
  ww=$(ui .window_width)
  cut=$(ui -c '[.header.items[] | select(.cut) | .name]')
  [ "$cut" = "[]" ] || fail "$1: cut in the header: $cut $(ui -c .header)"
  fits header "$1"
  past=$(ui -c "[.header.items[] | select(.right > $ww + 0.5) | .name]")
  [ "$past" = "[]" ] || fail "$1: past the window's right edge: $past $(ui -c .header)"
  awk "BEGIN { exit !($(ui .header_right) <= $ww) }" || fail "$1: the header's last button ends at $(ui .header_right), past $ww"
  [ "$(ui .demo_notice_visible)" = true ] || fail "$1: no demo notice in the header"
  [ "$(ui .demo_notice_elided)" = false ] || fail "$1: the demo notice is cut: $(ui .demo_notice_text)"
  [ "$(ui .model_picker.compact)" = "$([ "$2" = true ] && echo false || echo true)" ] \
    || fail "$1: the model picker's details are $( [ "$(ui .model_picker.compact)" = true ] && echo hidden || echo shown), roomy=$2"
}
# The model picker's list (Ctrl+O opens it on "Open file…"): inside the window, nothing cut,
# and the whole demo notice atop it when the header shows it shortened.
picker_fits() {  # picker_fits WHERE TAG
  local x w ww
  key ctrl+o
  ui_is .model_picker.opened true || fail "$1: Ctrl+O did not open the model picker"
  [ "$(ui .model_picker.current)" = open ] || fail "$1: Ctrl+O opened the picker on '$(ui .model_picker.current)', not on Open file…"
  sleep 0.5
  fits picker "$1"
  x=$(ui .model_picker.x | cut -d. -f1); w=$(ui .model_picker.width | cut -d. -f1); ww=$(ui .window_width)
  [ "$x" -ge 0 ] && [ $((x + w)) -le "$ww" ] || fail "$1: the model picker is drawn at x=$x, $w wide, in a $ww px window"
  if [ "$(ui .demo_notice_compact)" = true ]; then
    [ "$(ui .model_picker.notice_shown)" = true ] || fail "$1: the demo notice is shortened in the header and not in the picker"
  fi
  import -window root "$artifacts/e2e-window-fit-picker-$2.png"
  key Escape
  ui_is .model_picker.opened false || fail "$1: Esc did not close the model picker"
}

# Every size and zoom in the window's language $1 (en, ko).
check_sizes() {
  local lang=$1 size zoom where tag roomy
  for size in 1600x1000 1000x700; do
    xdotool windowsize --sync "$window" "${size%x*}" "${size#*x}"
    ui_is .window_width "${size%x*}" || fail "the window did not become $size"
    for zoom in 1 1.5; do
      if [ "$zoom" = 1.5 ]; then key ctrl+equal; key ctrl+equal; key ctrl+equal; fi
      ui_is .zoom "$zoom" || fail "zoom is $(ui .zoom), expected $zoom"
      where="$lang, $size at ${zoom}x"
      tag="$lang-$size-$zoom"
      roomy=$(awk "BEGIN { print (${size%x*} >= 1000 * $zoom) ? \"true\" : \"false\" }")
      sleep 0.5
      header_fits "$where" "$roomy"
      picker_fits "$where" "$tag"
      fits sidebar "$where"
      if [ "$(ui .memory_mode)" = drawer ]; then
        key ctrl+m
        ui_is .memory_visible true || fail "$where: Ctrl+M did not open the memory drawer"
        sleep 0.5
        fits memory "$where"
        [ "$lang" != en ] || machine_bar_labelled "$where"
        import -window root "$artifacts/e2e-window-fit-memory-$tag.png"
        key Escape
        ui_is .memory_visible false || fail "$where: Esc did not close the memory drawer"
      else
        fits memory "$where"
        [ "$lang" != en ] || machine_bar_labelled "$where"
        import -window root "$artifacts/e2e-window-fit-memory-$tag.png"
      fi
      key ctrl+comma
      ui_is .settings_open true || fail "$where: Ctrl+, did not open Settings"
      sleep 0.7
      fits settings "$where"
      import -window root "$artifacts/e2e-window-fit-settings-$tag.png"
      if [ "$zoom" = 1 ]; then key ctrl+comma; else key Escape; fi
      ui_is .settings_open false || fail "$where: Settings did not close"
      if [ "$zoom" = 1.5 ]; then key ctrl+0; fi
    done
  done
}

start_app
wait_for 30 model_loaded || fail "the demo model did not load"
# The first run's welcome says where the memory panel is: on the right in a wide window,
# behind the Memory button (a drawer) in a narrow one (issue 43 point 2).
welcome_says() { grep -q "$1" <<<"$(jq -r .welcome_text "$ui_file" 2>/dev/null)"; }
for size in 1600x1000 1000x700; do
  xdotool windowsize --sync "$window" "${size%x*}" "${size#*x}"
  ui_is .window_width "${size%x*}" || fail "the window did not become $size"
  if [ "$(ui .memory_mode)" = drawer ]; then want="the Memory button at the top right"; else want="the memory panel on the right"; fi
  wait_for 5 welcome_says "$want" || fail "$size ($(ui .memory_mode)): the welcome says: $(jq -r .welcome_text "$ui_file")"
done
[ "$(ui .memory_mode)" = drawer ] || fail "1000x700 does not take the memory panel as a drawer"
# What the demo model cannot do, and the catalog's chat models for this computer (or why none).
welcome_says "does not follow instructions" || fail "the welcome does not say what the demo model cannot do"
welcome_says "Chat models that fit this computer" || welcome_says "No chat model of the catalog fits" \
  || fail "the welcome recommends nothing and says nothing about it: $(jq -r .welcome_text "$ui_file")"
import -window root "$artifacts/welcome-1000x700.png"
key Escape  # the first run's welcome
xdotool type --delay 15 "Genesis 1"
key Return
replied() { [ "$(state .messages)" = 2 ] && [ "$(state .last_message.stats.stop_reason)" != null ]; }
wait_for 60 replied || fail "no reply"
check_sizes en

# Korean: the Settings choice (written as the app stores it), the app started again on it.
xdotool key ctrl+q
wait_for 15 eval '! kill -0 $app_pid' || fail "Ctrl+Q did not quit"
wait "$app_pid" || fail "kvchat exited with status $?"
sqlite3 "$data/kvchat.sqlite" "INSERT INTO settings (key, value_json) VALUES ('ui/language', '[\"ko\"]')
  ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json"
start_app
wait_for 30 model_loaded || fail "the demo model did not load in Korean"
wait_for 10 eval '[ "$(state .ui.locale)" = ko_KR ]' || fail "the window is in $(state .ui.locale), not Korean"
[ "$(state .ui.memory)" = "메모리" ] || fail "the Memory button says '$(state .ui.memory)' in Korean"
check_sizes ko
echo "e2e-window-fit: PASS (header, model picker, Settings, memory panel and sidebar fit at 1600x1000 and 1000x700, 1x and 1.5x, English and Korean)"
