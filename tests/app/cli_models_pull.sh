#!/usr/bin/env bash
# kvchat-cli models pull (issue 15) against the fake Hub on 127.0.0.1 (nothing touches the
# internet): through the redirect and a dropped connection, the file equals the Hub's;
# a wrong hash is refused and nothing stays; a `../` name is refused before any
# download; a gated file needs HF_TOKEN, and the token is in no file the pull leaves.
# Usage: cli_models_pull.sh KVCHAT_CLI FAKE_HUB SHARED_DIR
set -euo pipefail
cli=$1
fake_hub=$2
shared=$3
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
fail() { echo "cli_models_pull: FAIL: $*" >&2; exit 1; }
unset HF_TOKEN HF_ENDPOINT
coproc HUB { exec /usr/bin/python3 "$fake_hub" --shared "$shared"; }
read -r -t 30 port <&"${HUB[0]}" || fail "the fake Hub did not start"
hub="http://127.0.0.1:$port"
demo="$shared/models/kjv-demo-f16.gguf"

# Through the /resolve/ -> /cdn/ redirect, the connection dropped after 1 MiB and resumed.
out=$("$cli" models pull kvchat/drop-GGUF kjv-demo-f16.gguf --endpoint "$hub" --dir "$work/a" --json)
[ "$(jq -r .path <<<"$out")" = "$work/a/kjv-demo-f16.gguf" ] || fail "path: $out"
[ "$(jq -r .sha256 <<<"$out")" = "$(sha256sum "$demo" | cut -d' ' -f1)" ] || fail "sha256: $out"
cmp -s "$work/a/kjv-demo-f16.gguf" "$demo" || fail "the pulled file differs"
/usr/bin/python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' "$hub/__requests" | jq -e '[.[] | select(.path | startswith("/cdn/kvchat/drop-GGUF/")) | .range] | index("bytes=1048576-") != null' >/dev/null \
  || fail "no Range request after the drop"
echo "cli_models_pull: pulled through the redirect and a dropped connection: $(jq -c . <<<"$out")"

# A wrong hash: refused, nothing left but the state file.
if err=$("$cli" models pull kvchat/wrong-hash-GGUF kjv-demo-f16.gguf --endpoint "$hub" --dir "$work/b" 2>&1); then
  fail "a wrong hash was accepted"
fi
grep -q "SHA-256" <<<"$err" || fail "message: $err"
[ -z "$(ls "$work/b")" ] && [ "$(ls -A "$work/b")" = .kvchat-downloads.sqlite ] || fail "left behind: $(ls -A "$work/b")"

# A name that climbs out of the directory: refused.
if err=$("$cli" models pull kvchat/traversal-GGUF ../../evil.gguf --endpoint "$hub" --dir "$work/c/d" 2>&1); then
  fail "../../evil.gguf was accepted"
fi
[ ! -e "$work/evil.gguf" ] && [ ! -e "$work/c/evil.gguf" ] || fail "evil.gguf written"

# Gated: 401 without a token, the file with HF_TOKEN, the token in no file left.
if "$cli" models pull kvchat/gated-GGUF kjv-demo-f16.gguf --endpoint "$hub" --dir "$work/e" 2>/dev/null; then
  fail "a gated file without a token"
fi
HF_TOKEN=kvchat-test-token "$cli" models pull kvchat/gated-GGUF kjv-demo-f16.gguf --endpoint "$hub" --dir "$work/e" >/dev/null
cmp -s "$work/e/kjv-demo-f16.gguf" "$demo" || fail "the gated file differs"
if grep -rl kvchat-test-token "$work/e" >/dev/null; then fail "the token was written to $work/e"; fi
echo "cli_models_pull: wrong hash refused, ../ refused, gated needs HF_TOKEN (never stored)"
echo "1 passed, 0 failed"
