#!/usr/bin/env bash
# End-to-end, keyboard only (issue 43 point 4): the local server is seen from the main window.
#   1. with the server on (its settings as the app stores them), the header's indicator says
#      it serves, and how many sessions are busy;
#   2. a client (curl, its own User-Agent) asks for a reply;
#   3. Tab to the indicator, Space: the server view opens and shows the URL, the endpoints,
#      the session with the client's User-Agent and address, and the request in the log
#      (route, status 200); never the key or the message's text (the switch is off);
#   4. Esc closes it.
# Usage: e2e_server_view.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"

ui_file="$KVCHAT_TEST_STATE_FILE.ui.json"
fail() {
  echo "e2e-server-view: FAIL: $*" >&2
  import -window root "$artifacts/e2e-server-view-failure.png" 2>/dev/null || true
  [ -f "$ui_file" ] && jq -c '{focus, server_indicator, server_view}' "$ui_file" >&2 || true
  exit 1
}
source "$(dirname "$0")/e2e_lib.sh"
quit_app() {
  xdotool key ctrl+q
  wait_for 15 eval '! kill -0 $app_pid' || fail "Ctrl+Q did not quit"
  wait "$app_pid" || fail "kvchat exited with status $?"
}
view_says() { jq -e --arg t "$1" '.server_view.texts | any(contains($t))' "$ui_file" >/dev/null 2>&1; }

# The server on, at a free port, with a key: as the app stores its settings ("ui/server/...").
start_app
wait_for 30 model_loaded || fail "the demo model did not load"
quit_app
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
key_text=e2e-secret-key-4711
for setting in "ui/server/enabled|true" "ui/server/port|$port" "ui/server/api_key|\"$key_text\""; do
  sqlite3 "$data/kvchat.sqlite" "INSERT INTO settings (key, value_json) VALUES ('${setting%%|*}', '[${setting#*|}]')
    ON CONFLICT(key) DO UPDATE SET value_json = excluded.value_json"
done

# 1. The indicator says it serves.
start_app
wait_for 30 model_loaded || fail "the demo model did not load again"
key Escape  # the first run's welcome, if shown
wait_for 20 eval 'ui .server_indicator | grep -q "Server on"' || fail "the header says '$(ui .server_indicator)'"

# 2. A client asks.
curl -sf -A "e2e-agent/1.0" -H "Authorization: Bearer $key_text" -H "Content-Type: application/json" \
  -d '{"model": "kjv-demo-f16", "max_tokens": 4, "messages": [{"role": "user", "content": "Zebulun whispered"}]}' \
  "http://127.0.0.1:$port/v1/chat/completions" >/dev/null || fail "the server did not answer at port $port"

# 3. Tab to the indicator, Space: the view.
for _ in $(seq 80); do
  [ "$(ui .focus.object_name)" = serverIndicator ] && break
  xdotool key Tab
  sleep 0.15
done
[ "$(ui .focus.object_name)" = serverIndicator ] || fail "Tab did not reach the server indicator (at '$(ui .focus.object_name)')"
key space
wait_for 5 eval '[ "$(ui .server_view.open)" = true ]' || fail "Space did not open the server view"
wait_for 5 view_says "127.0.0.1:$port" || fail "the view does not give the URL"
view_says "/v1/chat/completions" || fail "the view lists neither the endpoint nor the request"
wait_for 5 view_says "e2e-agent/1.0" || fail "the view does not name the client's User-Agent"
view_says "200" || fail "the view does not show the request's status"
if view_says "$key_text"; then fail "the view shows the API key"; fi
if view_says "Zebulun"; then fail "the view shows the message's text while that is off"; fi
sleep 0.3
import -window root "$artifacts/e2e-server-view.png"

# 4. Esc closes it.
key Escape
wait_for 5 eval '[ "$(ui .server_view.open)" = false ]' || fail "Esc did not close the server view"
quit_app
echo "e2e-server-view: PASS"
