#!/usr/bin/env bash
# End-to-end, keyboard only (issue 47 point 6): a tool call in the window.
#   1. an mcp.json names a tool server (tests/mcp/fake_mcp_server.py, one tool: add); the
#      window starts it (Settings → Tools would show it ready);
#   2. Ctrl+T opens the conversation's tools: Space offers the server, Tab to "The model
#      must call a tool", Space, Esc;
#   3. a message: the demo model's call is constrained to add's schema; its block shows
#      the call, waiting, with the focus on Allow; nothing ran yet;
#   4. Space allows it: the result block shows the server's answer (the sum of the
#      arguments), the reply goes on (a second call is denied with Tab Tab Space, a third
#      stopped with Esc) and ends; the memory panel counts the definitions and the result;
#   5. the window closes and starts again: the conversation shows the block, its call and
#      its result, from SQLite.
# Usage: e2e_tools.sh KVCHAT_BINARY ARTIFACT_DIR FAKE_SERVER   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
server=$3
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e-tools: FAIL: $*" >&2
  import -window root "$artifacts/e2e-tools-failure.png" 2>/dev/null || true
  [ -f "$KVCHAT_TEST_STATE_FILE" ] && jq -c '{messages, notice, reply: {state: .reply.state, stats: .reply.stats, content: .reply.content, steps: .reply.tool_steps}, tools: .tools.prompt}' "$KVCHAT_TEST_STATE_FILE" >&2 || true
  [ -f "$KVCHAT_TEST_STATE_FILE.ui.json" ] && jq -c '{focus, tools_popup_open, tool_blocks_shown}' "$KVCHAT_TEST_STATE_FILE.ui.json" >&2 || true
  exit 1
}
source "$(dirname "$0")/e2e_lib.sh"
db="$data/kvchat.sqlite"
focused() { ui .focus.object_name; }
state_c() { jq -c "$1" "$KVCHAT_TEST_STATE_FILE" 2>/dev/null; }

# 1. The server, as a user's mcp.json names it.
log="$data/server-calls.log"
jq -n --arg py "$(command -v python3)" --arg server "$server" --arg log "$log" \
  '{mcpServers: {fake: {command: $py, args: [$server, "only-add"], env: {FAKE_MCP_LOG: $log}}}}' \
  > "$data/mcp.json"
start_app --ctx 2048
wait_for 30 model_loaded || fail "the demo model did not load"
wait_for 30 eval '[ "$(state '"'"'.tools.servers[0].state'"'"')" = ready ]' || fail "the server did not start"
[ "$(state '.tools.servers[0].tools | length')" = 1 ] || fail "the server's tools: $(state_c .tools.servers[0].tools)"
[ "$(state '.tools.conversation_servers | length')" = 0 ] || fail "a conversation offers tools by default"
echo "e2e-tools: the server is ready with its tool"

# 2. Ctrl+T: the conversation's tools, by keyboard.
key ctrl+t
wait_for 5 eval '[ "$(ui .tools_popup_open)" = true ]' || fail "Ctrl+T did not open the tools"
wait_for 5 eval '[ "$(focused)" = toolServerCheck ]' || fail "the server's box does not have the focus: $(focused)"
key space
wait_for 5 eval '[ "$(state '"'"'.tools.conversation_servers[0]'"'"')" = fake ]' || fail "Space did not offer the server"
key Tab
wait_for 5 eval '[ "$(focused)" = toolsRequiredCheck ]' || fail "Tab did not reach 'must call': $(focused)"
key space
wait_for 5 eval '[ "$(state .tools.required)" = true ]' || fail "Space did not require a call"
key Escape
wait_for 5 eval '[ "$(ui .tools_popup_open)" = false ]' || fail "Esc did not close the tools"
echo "e2e-tools: the conversation offers fake's tools, a call required"

# 3. A message; the call waits for consent.
xdotool type --delay 15 "Say it back"
xdotool key Return
asking() { [ "$(state .tools.prompt.kind)" = consent ]; }
wait_for 60 asking || fail "no consent asked within 60 s"
[ "$(state .tools.prompt.call.name)" = add ] || fail "the call is not add: $(state_c .tools.prompt)"
wait_for 5 eval '[ "$(focused)" = toolAllowButton ]' || fail "Allow does not have the focus: $(focused)"
wait_for 5 eval '[ "$(ui .tool_blocks_shown)" -ge 1 ]' || fail "no call block shown"
[ ! -s "$log" ] || fail "the tool ran before consent"
arguments=$(state .tools.prompt.call.arguments)
text=$(jq -r '.a + .b' <<<"$arguments")
sleep 0.3
import -window root "$artifacts/e2e-tools-consent.png"
echo "e2e-tools: the call add($arguments) waits for consent, Allow focused"

# 4. Allow: the result, then the reply goes on. A later call is denied (Tab twice: Deny).
key space
ran() { [ "$(state '.reply.tool_steps[0].calls[0].state')" = done ]; }
wait_for 30 ran || fail "the call did not run after Allow"
[ "$(state '.reply.tool_steps[0].calls[0].result')" = "$text" ] ||
  fail "the result '$(state '.reply.tool_steps[0].calls[0].result')' is not the sum $text"
# The reply goes on after the result: the model answers, or (the demo model likes its one
# tool) calls again: that call is denied (Tab Tab: Deny, Space), and a third is stopped
# with Esc (the reply ends there, its calls kept).
ended() { [ "$(state .reply.state)" != streaming ] &&
          { [ "$(state .reply_finished)" = true ] || [ "$(state .reply.stats.error)" != null ]; }; }
denied=0
for i in $(seq 1 600); do
  ended && break
  if asking; then
    wait_for 5 eval '[ "$(focused)" = toolAllowButton ]' || fail "Allow does not have the focus again"
    if [ $denied = 0 ]; then
      key Tab Tab
      [ "$(focused)" = toolDenyButton ] || fail "Tab Tab did not reach Deny: $(focused)"
      key space
      denied=1
      wait_for 10 eval '[ "$(state ".reply.tool_steps[1].calls[0].state")" = denied ]' || fail "Deny did not deny the second call"
      [ "$(state '.reply.tool_steps[1].calls[0].result')" = "The user did not allow this call of add; it was not run." ] ||
        fail "the model did not read the refusal: $(state '.reply.tool_steps[1].calls[0].result')"
    else
      key Escape
      wait_for 10 eval '[ "$(state ".reply.tool_steps[2].calls[0].state")" = stopped ]' || fail "Esc did not stop the third call"
    fi
  fi
  sleep 0.2
done
wait_for 60 ended || fail "the reply did not end after the result"
[ "$(state '.reply.tool_steps | length')" -ge 2 ] || [ -n "$(state .reply.content)" ] ||
  fail "the reply did not go on after the result"
[ "$(wc -l < "$log")" = 1 ] || fail "the server ran $(wc -l < "$log") calls, not the one allowed"
steps_json=$(state_c .reply.tool_steps)
wait_for 5 eval '[ "$(state .tools.memory.definition_tokens)" -gt 0 ]' || fail "the definitions are not counted"
[ "$(state '.tools.memory.results[0].tokens')" -gt 0 ] || fail "the result is not counted: $(state_c .tools.memory)"
[ "$(state '.tools.memory.results[0].kv_bytes')" -gt 0 ] || fail "the result's KV bytes are not counted"
stored=$(sqlite3 "$db" "select tool_steps_json from messages where role = 'assistant' and shown = 1")
[ "$(jq -r '.[0].calls[0].result' <<<"$stored")" = "$text" ] || fail "the call is not stored: $stored"
sleep 0.3
import -window root "$artifacts/e2e-tools-result.png"
echo "e2e-tools: allowed, ran ('$text'); the reply went on: $(state '.reply.tool_steps | length') call(s), then '$(state .reply.content | head -c 60)' ($(state .reply.stats.stop_reason))"

# 5. Closed and started again: the block is there, from SQLite.
key ctrl+q
wait_for 20 eval '! kill -0 $app_pid' || fail "the window did not close"
start_app --ctx 2048
wait_for 30 model_loaded || fail "the demo model did not load again"
wait_for 10 eval '[ "$(state_c .reply.tool_steps)" = "$steps_json" ]' ||
  fail "the reopened conversation's calls differ: $(state_c .reply.tool_steps)"
wait_for 10 eval '[ "$(ui .tool_blocks_shown)" -ge 1 ]' || fail "no call block shown after the restart"
[ "$(state '.tools.conversation_servers[0]')" = fake ] || fail "the conversation's tools were not kept"
sleep 0.3
import -window root "$artifacts/e2e-tools-reopened.png"
echo "e2e-tools: after a restart the call block is there; PASS"
