#!/usr/bin/env bash
# End-to-end (issue 26, desktop integration): one kvchat window per data directory.
#   1. kvchat running on the demo model; `kvchat --data-dir SAME stories260K.gguf` exits 0
#      within seconds and the running window loads stories260K (no second window);
#   2. `--model RELATIVE` the same way: the path handed over is absolute;
#   3. another data directory is another instance (a window of its own);
#   4. the running window frozen (SIGSTOP): a new launch does not wait for it, it starts;
#   5. the window killed (SIGKILL, its socket file left behind): a new launch starts;
#   6. (issue 40) the user's socket directory planted by "another user" (mode 0777, a
#      listener in it, one more on the old predictable name in the shared temporary
#      directory, no $XDG_RUNTIME_DIR): the launch hands nothing over (the listeners get 0
#      bytes), opens its own window and says why (banner and stderr).
# Usage: e2e_single_instance.sh KVCHAT_BINARY ARTIFACT_DIR STORIES260K_GGUF DEMO_GGUF
set -euo pipefail
app=$1
artifacts=$2
stories=$3
demo=$4
source "$(dirname "$0")/e2e_workspace.sh"

fail() {
  echo "e2e-single-instance: FAIL: $*" >&2
  import -window root "$artifacts/e2e-single-instance-failure.png" 2>/dev/null || true
  exit 1
}

source "$(dirname "$0")/e2e_lib.sh"
# The same file, however its path is spelled (a relative path is made absolute from the
# second launch's working directory, which resolves symbolic links).
loaded() { model_loaded && [ "$(realpath -m "$(state .model_path)")" = "$(realpath -m "$1")" ]; }
# quit PID: Ctrl+Q in that process's window; it must exit 0 (and remove its socket file).
quit() {
  local w
  w=$(xdotool search --all --onlyvisible --pid "$1" --name "^kvchat — " | head -1)
  [ -n "$w" ] || fail "no window of process $1"
  xdotool windowactivate --sync "$w" 2>/dev/null || xdotool windowfocus --sync "$w"
  sleep 0.3
  xdotool key ctrl+q
  wait_for 15 eval "! kill -0 $1" || fail "Ctrl+Q did not quit process $1"
  wait "$1" || fail "process $1 exited with status $?"
}
windows() { xdotool search --onlyvisible --name "^kvchat — " 2>/dev/null | wc -l; }
# hand_over ARGS...: a second launch on $data; it must exit 0 within 5 s.
hand_over() {
  local start=$SECONDS rc=0
  timeout 10 "$app" --data-dir "$data" "$@" || rc=$?
  [ "$rc" = 0 ] || fail "the second launch ($*) exited with status $rc"
  [ $((SECONDS - start)) -le 5 ] || fail "the second launch ($*) took $((SECONDS - start)) s"
}

# 1. A .gguf named on the command line goes to the running window.
start_app --model "$demo"
first_pid=$app_pid
wait_for 30 loaded "$demo" || fail "the demo model did not load: $(state .model_path) $(state .model_error)"
hand_over "$stories"
wait_for 30 loaded "$stories" || fail "the running window did not load stories260K: $(state .model_path) $(state .model_error)"
wait_for 10 xdotool search --onlyvisible --name "kvchat — stories260K" || fail "the window title is not stories260K's"
[ "$(windows)" = 1 ] || fail "$(windows) windows after the hand-over"
kill -0 "$first_pid" || fail "the first window is gone"
echo "e2e-single-instance: stories260K handed to the running window"

# 2. --model with a relative path (the second launch's working directory is not the first's).
(cd "$(dirname "$demo")" && hand_over --model "$(basename "$demo")")
wait_for 30 loaded "$demo" || fail "--model was not handed over: $(state .model_path) $(state .model_error)"
[ "$(windows)" = 1 ] || fail "$(windows) windows after --model"

# 3. Another data directory: an instance of its own, the first untouched.
other=$(mktemp -d -p "$data")
KVCHAT_TEST_STATE_FILE="$other/state.json" "$app" --data-dir "$other" --model "$demo" &
other_pid=$!
wait_for 30 eval '[ "$(windows)" = 2 ]' || fail "no second window for another data directory"
quit "$other_pid"
loaded "$demo" || fail "the first window changed model"
echo "e2e-single-instance: another data directory is another instance"

# 4. The window frozen: a new launch gives up on it after about a second and starts.
kill -STOP "$first_pid"
rm -f "$KVCHAT_TEST_STATE_FILE"
"$app" --data-dir "$data" "$stories" &
second_pid=$!
wait_for 30 loaded "$stories" || fail "no new instance beside a frozen one: $(state .model_path) $(state .model_error)"
kill -0 "$second_pid" || fail "the new launch exited beside a frozen instance"
# The new one now answers on the data directory's name.
hand_over "$demo"
wait_for 30 loaded "$demo" || fail "the new instance did not take the name over"
quit "$second_pid"
kill -CONT "$first_pid"
echo "e2e-single-instance: a frozen instance is not waited for"

# 5. The window killed: its socket file stays, a new launch starts anyway.
kill -KILL "$first_pid"
wait "$first_pid" || true
window_title="kvchat — stories260K"  # its file name
start_app "$stories"
wait_for 30 loaded "$stories" || fail "no start after a killed instance: $(state .model_path) $(state .model_error)"
hand_over "$demo"
wait_for 30 loaded "$demo" || fail "the restarted instance does not take hand-overs"
quit "$app_pid"

# 6. Another user's listener (simulated: another user could make /tmp/kvchat-<uid> 0777
#    and listen in it, or listen on the old name /tmp/kvchat-<hash>).
shared=$(mktemp -d -p "$data")  # stands for /tmp
chmod 1777 "$shared"
own="$shared/kvchat-$(id -u)"
mkdir -m 0777 "$own"
hash=$(printf '%s' "$(realpath "$data")" | sha256sum | cut -c1-24)
echo 0 >"$data/hostile-bytes"
python3 - "$own/kvchat-$hash" "$shared/kvchat-$hash" "$data/hostile-bytes" <<'PY' &
import select, socket, sys
total, listeners = 0, []
for path in sys.argv[1:3]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(8)
    listeners.append(s)
open(sys.argv[3] + ".ready", "w").close()
conns = []
while True:
    ready, _, _ = select.select(listeners + conns, [], [], 60)
    if not ready:
        break
    for r in ready:
        if r in listeners:
            conns.append(r.accept()[0])
            continue
        data = r.recv(65536)
        if not data:
            conns.remove(r)
            r.close()
            continue
        total += len(data)
        r.sendall(b"k")  # acknowledge, as a hostile listener would
        with open(sys.argv[3], "w") as f:
            f.write(str(total))
PY
hostile_pid=$!
wait_for 10 test -e "$data/hostile-bytes.ready" || fail "the hostile listener did not start"
rm -f "$KVCHAT_TEST_STATE_FILE"
env -u XDG_RUNTIME_DIR TMPDIR="$shared" "$app" --data-dir "$data" "$stories" 2>"$data/untrusted.err" &
untrusted_pid=$!
wait_for 30 loaded "$stories" || fail "no window of its own beside an untrusted listener: $(state .model_path) $(state .model_error)"
kill -0 "$untrusted_pid" || fail "the launch exited beside an untrusted listener (handed over?)"
wait_for 10 eval '[[ "$(state .documents.message)" == *"not trusted"* ]]' ||
  fail "the window does not say why: '$(state .documents.message)'"
grep -q "not trusted" "$data/untrusted.err" || fail "stderr does not say why: $(cat "$data/untrusted.err")"
[ "$(cat "$data/hostile-bytes")" = 0 ] || fail "the untrusted listeners received $(cat "$data/hostile-bytes") bytes"
quit "$untrusted_pid"
kill "$hostile_pid" 2>/dev/null || true
echo "e2e-single-instance: an untrusted listener gets nothing; the window says why"
echo "e2e-single-instance: PASS"
