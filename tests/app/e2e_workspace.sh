# Sourced first by the end-to-end scripts (after $artifacts is set): the artifact folder,
# a fresh data directory ($data, removed with every child process at exit) and the state
# file the app writes there (KVCHAT_TEST_STATE_FILE).
mkdir -p "$artifacts"
data=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$data"' EXIT
export KVCHAT_TEST_STATE_FILE="$data/state.json"
