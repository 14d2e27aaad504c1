#!/usr/bin/env bash
# End-to-end: a long document, as a person would use it, in a real window under Xvfb.
#   1. start kvchat (demo model, context 256) with --attach LONG.txt: the same path as the
#      "Attach document" button (synthetic drag-and-drop under Xvfb is unreliable);
#   2. see the cost preview: tokens, KV bytes = tokens x 1536, does not fit, the plan;
#   3. Summarize (Ctrl+Shift+S): the demo model does not follow instructions, so it warns
#      first; Ctrl+Shift+S again summarizes anyway; cancel after a few partial summaries (Esc);
#   4. quit, restart with the same file attached again: stored once (same content hash),
#      the cancelled job offered for resume; Resume (Ctrl+Shift+R); kill -9 the app
#      mid-job (a crash), restart: offered as interrupted; Resume again;
#      while the resumed job runs, a chat message gets its reply (its own session);
#   5. the summary lands in the conversation; the database holds the job done, its
#      partials once each, the ones written before the cancel untouched;
#   6. a binary file: a clear message in the window, the conversation untouched;
#   7. a short document that fits: Send whole (Ctrl+Shift+W); the memory panel shows its
#      share of the KV cache.
# Screenshots: documents-preview.png, documents-summary-warning.png,
# documents-chat-during-summary.png,
# documents-summary.png, documents-error.png,
# documents-sent-whole.png (ARTIFACTS).
# Usage: e2e_documents.sh KVCHAT_BINARY ARTIFACT_DIR TEXT_FILE   (run under xvfb-run)
set -euo pipefail
app=$1
artifacts=$2
source_text=$3
source "$(dirname "$0")/e2e_workspace.sh"
db="$data/kvchat.sqlite"
doc="$data/revelation-twice.txt"
cat "$source_text" "$source_text" > "$doc"   # about 4,000 tokens of the demo model's vocabulary

fail() {
  echo "e2e-documents: FAIL: $*" >&2
  [ -f "$KVCHAT_TEST_STATE_FILE" ] && jq -c .documents "$KVCHAT_TEST_STATE_FILE" >&2 || true
  import -window root "$artifacts/e2e-documents-failure.png" 2>/dev/null || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
start_app_256() { start_app --ctx 256 "$@"; }

quit_app() {
  kill "$app_pid"; wait "$app_pid" 2>/dev/null || true
}

is() { [ "$(state "$1")" = "$2" ]; }
at_least() { [ "$(state "$1")" -ge "$2" ] 2>/dev/null; }
sql() { sqlite3 "$db" "$1"; }

# 1-2. The cost preview.
start_app_256 --attach "$doc"
wait_for 30 is .documents.preview.counted true || fail "no cost preview with a token count"
tokens=$(state .documents.preview.n_tokens)
[ "$tokens" -gt 3000 ] || fail "only $tokens tokens counted"
[ "$(state .documents.preview.kv_bytes)" -eq $((1536 * tokens)) ] || fail "KV bytes $(state .documents.preview.kv_bytes) != 1536 x $tokens"
is .documents.preview.fits_context false || fail "a $tokens-token document said to fit a 256-token context"
is .documents.preview.can_send_whole false || fail "Send whole offered for a document that does not fit"
# Why it is off (the button's tooltip): the tokens it needs against the context's 256.
state .documents.preview.send_whole_why_not | grep -q "the context holds 256" \
  || fail "Send whole's reason: $(state .documents.preview.send_whole_why_not)"
is .documents.preview.encoding utf-8 || fail "encoding $(state .documents.preview.encoding)"
# The chunks are counted as the job will cut them (off the window's thread): wait for them.
planned() { state .documents.preview.plan_text | grep -Eq '^[0-9]+ chunks of about [0-9]+ tokens, [0-9]+ levels? of merging'; }
wait_for 30 planned || fail "plan: $(state .documents.preview.plan_text)"
plan=$(state .documents.preview.plan_text)
preview_chunks=$(state .documents.preview.plan.n_chunks)
echo "e2e-documents: preview: $tokens tokens, $(state .documents.preview.kv_bytes) KV bytes, plan: $plan"
sleep 0.3
import -window root "$artifacts/documents-preview.png"

# 3. Summarize, then cancel once a few partial summaries are stored.
# The demo model does not follow instructions: Ctrl+Shift+S warns first, starts nothing;
# Ctrl+Shift+S again is "Summarize anyway".
xdotool key ctrl+shift+s
wait_for 10 is .documents.preview.summary_confirm true || fail "Ctrl+Shift+S with the demo model did not warn first"
state .documents.preview.summary_warning | grep -q "not trained to follow instructions" \
  || fail "the warning: $(state .documents.preview.summary_warning)"
is .documents.summarizing false || fail "the summary started before the warning was answered"
sleep 0.3
import -window root "$artifacts/documents-summary-warning.png"
xdotool key ctrl+shift+s
wait_for 20 is .documents.summarizing true || fail "Ctrl+Shift+S did not start the summary"
wait_for 60 at_least .documents.job.partials 3 || fail "no partial summaries"
xdotool key Escape
wait_for 20 is .documents.job.status cancelled || fail "Esc did not cancel the summary (status $(state .documents.job.status))"
job=$(state .documents.job.id)
kept=$(sql "select count(*) from summary_partials where job_id = $job")
[ "$(sql "select status from summary_jobs where id = $job")" = cancelled ] || fail "job not stored as cancelled"
[ "$kept" -ge 3 ] || fail "only $kept partials stored at the cancel"
steps=$(sql "select json_extract(plan_json, '$.n_steps') from summary_jobs where id = $job")
[ "$kept" -lt "$steps" ] || fail "the job finished ($kept of $steps) before it was cancelled"
last_before=$(sql "select max(written_at) from summary_partials where job_id = $job")
echo "e2e-documents: cancelled with $kept of about $steps summaries stored"

# 4. Restart with the same file attached again: not stored twice; the job resumes.
quit_app
start_app_256 --attach "$doc"
wait_for 30 is .documents.preview.counted true || fail "no preview after the restart"
is .documents.preview.inserted false || fail "the same file was stored again"
[ "$(sql 'select count(*) from documents')" -eq 1 ] || fail "$(sql 'select count(*) from documents') documents stored"
wait_for 10 is .documents.job.status cancelled || fail "the cancelled job is not offered after the restart"
xdotool key ctrl+shift+r
wait_for 20 is .documents.summarizing true || fail "Ctrl+Shift+R did not resume"
is .documents.job.resumed "$kept" || fail "resumed with $(state .documents.job.resumed) partials, $kept were stored"
wait_for 60 at_least .documents.job.partials $((kept + 3)) || fail "the resumed job wrote nothing"
kill -9 "$app_pid"; wait "$app_pid" 2>/dev/null || true
[ "$(sql "select status from summary_jobs where id = $job")" = running ] || fail "a killed job is not left running"
crashed=$(sql "select count(*) from summary_partials where job_id = $job")
echo "e2e-documents: killed mid-job with $crashed partials stored"
start_app_256
wait_for 30 model_loaded || fail "the model did not load after the restart: $(state .model_error)"
wait_for 10 is .documents.job.status interrupted || fail "the killed job is not offered as interrupted (status $(state .documents.job.status))"
xdotool key ctrl+shift+r
wait_for 20 is .documents.summarizing true || fail "Ctrl+Shift+R did not resume the interrupted job"
is .documents.job.resumed "$crashed" || fail "resumed with $(state .documents.job.resumed) partials, $crashed were stored"
# Chat while the summary runs: its session has KV of its own (the memory panel shows
# both), and a reply arrives while the job is still running.
wait_for 30 at_least .documents.job_memory.kv_tokens 1 || fail "the job's session reports no KV"
xdotool type --delay 15 "Genesis 1"
xdotool key shift+Return
xdotool type --delay 15 "1 In the beginning"
xdotool key Return
wait_for 60 is .reply_finished true || fail "no chat reply while the summary runs"
is .documents.summarizing true || fail "the summary ended before the chat replied: nothing shows they ran together"
[ "$(state .memory.kv_tokens)" -gt 0 ] || fail "the chat's KV is not shown"
import -window root "$artifacts/documents-chat-during-summary.png"
echo "e2e-documents: chat replied while the job ran (chat KV $(state .memory.kv_tokens) tokens, job KV $(state .documents.job_memory.kv_tokens) tokens)"
wait_for 60 is .documents.job.status done || fail "the resumed summary did not finish"
wait_for 10 is .last_message.role assistant || fail "no summary message"
[ "$(state .last_message.stats.summary_job_id)" = "$job" ] || fail "the last message is not the job's summary"
[ "$(state .last_message.chars)" -gt 0 ] || fail "empty summary"
sleep 0.5
import -window root "$artifacts/documents-summary.png"
quit_app

# 5. The database.
[ "$(sql "select status from summary_jobs where id = $job")" = done ] || fail "job not stored as done"
[ -n "$(sql "select final_summary from summary_jobs where id = $job")" ] || fail "no final summary stored"
total=$(sql "select count(*) from summary_partials where job_id = $job")
distinct=$(sql "select count(*) from (select distinct level, idx from summary_partials where job_id = $job)")
[ "$total" -eq "$distinct" ] || fail "duplicate partials: $total rows, $distinct distinct"
chunks=$(sql "select json_extract(plan_json, '$.n_chunks') from summary_jobs where id = $job")
[ "$(sql "select count(*) from summary_partials where job_id = $job and level = 0")" -eq "$chunks" ] || fail "level-0 partials != $chunks chunks"
[ "$chunks" -eq "$preview_chunks" ] || fail "the job ran $chunks chunks, the preview showed $preview_chunks"
[ "$(sql "select count(*) from summary_partials where job_id = $job and written_at <= $last_before")" -eq "$kept" ] || fail "partials from before the cancel were rewritten"
[ "$(sql "select count(*) from messages where role = 'assistant' and content = (select final_summary from summary_jobs where id = $job)")" -eq 1 ] || fail "summary message not stored"
summary_chars=$(sql "select length(final_summary) from summary_jobs where id = $job")
echo "e2e-documents: summary of $summary_chars characters from $total partials ($chunks chunks), $kept kept across the cancel, $crashed across the kill"

# 6. Bad input: a clear message, nothing lost.
printf 'GIF89a\x01\x00\x01\x00\x00\x00\x00\x00\xff\xff\x00\x00' > "$data/picture.gif"
head -c 4096 /dev/urandom >> "$data/picture.gif"
start_app_256 --attach "$data/picture.gif"
wait_for 20 is .documents.message_is_error true || fail "no error shown for a binary file"
state .documents.message | grep -q "picture.gif" || fail "the message does not name the file: $(state .documents.message)"
[ "$(state .messages)" -eq 4 ] || fail "the conversation lost messages: $(state .messages)"
echo "e2e-documents: binary file refused: $(state .documents.message)"
import -window root "$artifacts/documents-error.png"
quit_app
[ "$(sql 'select count(*) from documents')" -eq 1 ] || fail "the binary file was stored"

# 7. A document that fits: sent whole, its share of the KV cache shown.
printf 'Psalms 23\n1 The LORD is my shepherd; I shall not want.\n2 He maketh me to lie down in green pastures: he leadeth me beside the still waters.\n' > "$data/psalm.txt"
# In a new chat (the one open holds the summary and a full-context chat reply): Ctrl+N,
# then the document attached there (a restart opens the newest conversation, the new one).
start_app_256
xdotool key ctrl+n
wait_for 10 is .messages 0 || fail "Ctrl+N did not open a new chat"
new_chat=$(state .current_conversation)
quit_app
start_app_256 --attach "$data/psalm.txt"
wait_for 10 is .current_conversation "$new_chat" || fail "the restart did not open the new chat (open: $(state .current_conversation), new: $new_chat)"
wait_for 30 is .documents.preview.counted true || fail "no preview of the short document"
wait_for 30 is .documents.preview.can_send_whole true || true
is .documents.preview.can_send_whole true || fail "a short document cannot be sent whole: $(state .documents.preview.context_needed) of $(state .documents.preview.n_ctx)"
short=$(state .documents.preview.n_tokens)
xdotool key ctrl+shift+w
wait_for 60 is .reply_finished true || fail "no reply after sending the document whole"
[ "$(state .documents.sent_whole.tokens)" -eq "$short" ] || fail "memory panel: document share $(state .documents.sent_whole.tokens) != $short tokens"
[ "$(state .memory.kv_tokens)" -gt "$short" ] || fail "the document is not in the KV cache ($(state .memory.kv_tokens) tokens)"
[ "$(sql "select count(*) from messages where role = 'user' and json_extract(stats_json, '$.document_tokens') = $short")" -eq 1 ] || fail "the document message is not stored"
sleep 0.5
import -window root "$artifacts/documents-sent-whole.png"
echo "e2e-documents: $short-token document sent whole; $(state .memory.kv_tokens) tokens in the cache"
quit_app
echo "1 passed, 0 failed"
