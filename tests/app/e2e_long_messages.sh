#!/usr/bin/env bash
# Issue 40 point 8: no message, however long, holds up the window. long_messages_fixture
# writes one conversation per giant message (a 0.5, 5 and 50 MiB paste without a space, a
# 5 MiB reply without one, 5 MiB of Markdown after 1 MiB of reasoning, a 50 MiB reply);
# `kvchat --benchmark-long-messages` opens each in the real window (under Xvfb), scrolls
# to its first message, pages through every long message, copies it whole and asks to
# edit it, with the StallMeter on the GUI thread. Before bubbles were paged, a 0.5 MiB
# message without spaces stopped the window for 49 s, 5 MiB for 115 s, 50 MiB took 2.4 GB.
# Conversations longer than 256 Ki characters are read on the loader's thread
# (app/messages/message_loader.h); the benchmark waits while one is read. Asserts: every
# conversation, 50 MiB included, under 100 ms; peak RSS under 1 GiB; the event loop ran.
# Usage: e2e_long_messages.sh KVCHAT FIXTURE ARTIFACT_DIR   (run under xvfb-run)
set -euo pipefail
app=$1 fixture=$2 artifacts=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"
"$fixture" "$work/data" > "$work/fixture.jsonl" || fail "the fixture could not write its conversations"
timeout 240 "$app" --data-dir "$work/data" --benchmark-long-messages > "$work/out.json" \
  || fail "kvchat --benchmark-long-messages exited with status $?"
out=$(tail -1 "$work/out.json")
echo "$out" | jq . > "$artifacts/long-messages.json"
echo "$out" | jq -r '.conversations[] | "   \(.title): longest stall \(.longest_stall_ms) ms (\(.ticks) ticks)"'
[ "$(echo "$out" | jq '.conversations | length')" -eq 6 ] || fail "not every conversation was opened"
while read -r row; do
  title=$(echo "$row" | jq -r .title) ms=$(echo "$row" | jq .longest_stall_ms)
  chars=$(echo "$row" | jq .longest_message_chars) ticks=$(echo "$row" | jq .ticks)
  [ "$ticks" -gt 500 ] || fail "$title: the event loop ran only $ticks times"
  [ "$chars" -gt 0 ] || fail "$title: no message was read"
  jq -e -n "$ms < 100" >/dev/null || fail "$title: the window stalled $ms ms (target: under 100)"
done < <(echo "$out" | jq -c '.conversations[]')
peak=$(echo "$out" | jq .peak_rss_bytes)
[ "$peak" -lt $((1024 * 1024 * 1024)) ] || fail "peak RSS $peak bytes (bound: 1 GiB)"
echo "   peak RSS $((peak / 1024 / 1024)) MiB"
echo "PASS"
