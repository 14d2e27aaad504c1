#!/usr/bin/env bash
# End-to-end, keyboard only (issue 13 points 2 and 10): replies keep their versions,
# each sampled with a seed of its own; Continue extends a reply cut at the length limit;
# the user's text is shown as typed.
#   1. type "# x" and Enter: the window shows "# x" as typed (not a Markdown heading);
#      the reply carries the seed it was sampled with;
#   2. Ctrl+R regenerates: the same reply, version 2 of 2 (‹ 2/2 ›), another seed;
#   3. Alt+Left shows version 1 again, Alt+Right version 2;
#   4. quit and restart: the versions and the one shown are there (SQLite);
#   5. with max tokens 16, Ctrl+R writes a reply cut at the length limit; Ctrl+Shift+E
#      continues it in place.
# Usage: e2e_replies.sh KVCHAT_BINARY ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e: FAIL: $*" >&2
  import -window root "$artifacts/e2e-replies-failure.png" 2>/dev/null || true
  [ -f "$KVCHAT_TEST_STATE_FILE" ] && jq -c .reply "$KVCHAT_TEST_STATE_FILE" >&2 || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
db="$data/kvchat.sqlite"
# The last reply is finished, showing version $1 (1-based) of $2.
showing() {
  [ "$(state .reply.role)" = assistant ] && [ "$(state .reply.state)" = complete ] &&
    [ "$(state .reply.version)" -eq $(($1 - 1)) ] && [ "$(state .reply.version_count)" -eq "$2" ]
}

# 1. The user's text as typed.
start_app
xdotool type --delay 15 "# x"
xdotool key Return
wait_for 60 showing 1 1 || fail "no reply within 60 s"
[ "$(state '.reply.shown_texts[0]')" = "# x" ] || fail "the user's '# x' is shown as '$(state '.reply.shown_texts[0]')'"
[ "$(sqlite3 "$db" "select content from messages where role='user'")" = "# x" ] || fail "the user's text was not stored as typed"
seed1=$(state .reply.stats.seed)
text1=$(state .reply.content)
[ "$seed1" -ge 0 ] || fail "the reply does not say its seed: $seed1"
echo "e2e: '# x' shown as typed; the reply was sampled with seed $seed1"

# 2. Regenerate: a second version with a fresh seed.
xdotool key ctrl+r
wait_for 60 showing 2 2 || fail "Ctrl+R did not give version 2 of 2"
seed2=$(state .reply.stats.seed)
text2=$(state .reply.content)
[ "$(state .messages)" -eq 2 ] || fail "regenerate added a message instead of a version"
[ "$seed2" != "$seed1" ] || fail "the regenerated reply has the same seed $seed1"
[ "$text2" != "$text1" ] || fail "the regenerated reply is the same text"
sleep 0.5
import -window root "$artifacts/e2e-replies-versions.png"
echo "e2e: Ctrl+R: version 2/2, seed $seed2, another text"

# 3. Switch back and forth.
xdotool key alt+Left
wait_for 10 showing 1 2 || fail "Alt+Left did not show version 1 of 2"
[ "$(state .reply.content)" = "$text1" ] || fail "version 1 is not the first reply"
[ "$(state .reply.stats.seed)" = "$seed1" ] || fail "version 1 does not show its own seed"
xdotool key alt+Right
wait_for 10 showing 2 2 || fail "Alt+Right did not show version 2 of 2"
xdotool key alt+Left
wait_for 10 showing 1 2 || fail "Alt+Left did not show version 1 of 2 again"
echo "e2e: Alt+Left / Alt+Right switch the versions"

# 4. Restart: the versions and the one shown are stored.
kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
[ "$(sqlite3 "$db" "select count(*) from messages where role='assistant' and shown = 0")" -eq 1 ] || fail "the other version is not stored"
[ "$(sqlite3 "$db" "select version from messages where role='assistant' and shown = 1")" -eq 0 ] || fail "the version shown is not stored"
# A short length limit for the next replies (the settings as the window saves them).
sqlite3 "$db" "insert or replace into settings values ('sampling', '[{\"temperature\":0.8,\"top_k\":40,\"top_p\":0.95,\"min_p\":0.05,\"repeat_penalty\":1.0,\"seed\":-1,\"max_tokens\":16}]')"
start_app
wait_for 20 showing 1 2 || fail "after a restart the reply does not show version 1 of 2"
[ "$(state .reply.content)" = "$text1" ] || fail "after a restart version 1 is not the first reply"
[ "$(state '.reply.shown_texts[0]')" = "# x" ] || fail "after a restart '# x' is shown as '$(state '.reply.shown_texts[0]')'"
echo "e2e: after a restart: version 1 of 2 shown, as left"

# 5. A reply cut at the length limit, then Continue.
xdotool key ctrl+r
wait_for 60 showing 3 3 || fail "Ctrl+R after the restart did not give version 3 of 3"
[ "$(state .reply.stats.stop_reason)" = max-tokens ] || fail "the reply was not cut at 16 tokens: $(state .reply.stats.stop_reason)"
cut=$(state .reply.content)
sleep 0.3
import -window root "$artifacts/e2e-replies-cut.png"
xdotool key ctrl+shift+e
continued() { showing 3 3 && [ "$(state .reply.stats.continued)" = 1 ]; }
wait_for 60 continued || fail "Ctrl+Shift+E did not continue the reply"
whole=$(state .reply.content)
[ "${whole:0:${#cut}}" = "$cut" ] && [ ${#whole} -gt ${#cut} ] || fail "the continued reply does not extend the cut one"
[ "$(state .reply.stats.generated_tokens)" -gt 16 ] || fail "Continue generated nothing"
[ "$(state .messages)" -eq 2 ] || fail "Continue added a message"
import -window root "$artifacts/e2e-replies-continued.png"
echo "e2e: a reply cut at 16 tokens (${#cut} characters) continued to ${#whole} characters"
echo "1 passed, 0 failed"
