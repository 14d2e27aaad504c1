#!/usr/bin/env python3
"""kvchat-cli serve under load: C concurrent well-behaved clients for S seconds, plus H
hostile requests sent meanwhile, against one server on the demo model.

Well-behaved clients hold multi-turn conversations (each turn extends the last, so the
pool reuses its KV), streamed and not, chat and completions, some with a shared system
prompt (shared prefix blocks); a few abort a stream half way. Every one of their requests
must be answered completely: 200 with a finish_reason and usage (non-streamed), or a
stream that ends with data: [DONE] (streamed); a 503 is retried after its Retry-After.
Hostile requests (malformed, huge, deeply nested, non-UTF-8 JSON, wrong types and
values, unknown routes, wrong keys, bodies cut short, garbage instead of HTTP, a foreign
Host or Origin, a non-JSON content type) must get their 4xx status, or have the connection
closed, and never kill the server.

Slow clients (--slow N, slowloris): N connections from other loopback addresses
(127.0.0.2 ...) that each send a request header one byte a second, reconnecting whenever
the server closes them, are held through the middle half of the run; meanwhile a probe
sends GET /health every half second from 127.0.0.1 and its slowest answer must come within
--health-latency seconds (default 1), and the well-behaved clients must be answered as
before.

The server's resident memory (/proc/PID/status VmRSS) is sampled every second; "flat"
means the mean of the last quarter of the run is within --rss-growth (default 10%) of the
mean of the second quarter (the first quarter is warm-up: sessions and KV pools filling).

Usage: load.py KVCHAT_CLI MODEL [--clients 16] [--seconds 180] [--hostile 1000]
       [--slow 200] [--health-latency 1] [--json OUT.json]. Exit 0 when every check held; the summary goes to stdout.
"""
import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import threading
import time

KEY = "load-test-key"
MODEL_ID = None  # from /v1/models


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class Counters:
    def __init__(self):
        self.lock = threading.Lock()
        self.values = {}
        self.failures = []

    def add(self, name, n=1):
        with self.lock:
            self.values[name] = self.values.get(name, 0) + n

    def fail(self, what):
        with self.lock:
            if len(self.failures) < 50:
                self.failures.append(what)
            self.values["failures"] = self.values.get("failures", 0) + 1


def request(port, method, path, body=None, key=KEY, timeout=120):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    conn.request(method, path, body=data, headers=headers)
    return conn, conn.getresponse()


SYSTEM = "You are a careful reader of the King James Bible. " * 6
OPENINGS = ["In the beginning", "And God said", "The LORD is my shepherd", "Blessed are",
            "And it came to pass", "Now the serpent", "Hear, O Israel", "Let not your heart"]


def well_behaved_client(port, deadline, rng, counters):
    """One user: conversations of a few turns, each turn resending the whole history."""
    while time.time() < deadline:
        messages = []
        if rng.random() < 0.5:
            messages.append({"role": "system", "content": SYSTEM})
        for _turn in range(rng.randint(1, 4)):
            if time.time() >= deadline:
                return
            messages.append({"role": "user", "content": rng.choice(OPENINGS)})
            kind = rng.random()
            body = {"model": MODEL_ID, "max_tokens": rng.randint(8, 96),
                    "temperature": 0.8, "seed": rng.randint(0, 1 << 30)}
            if kind < 0.15:  # completions
                body["prompt"] = rng.choice(OPENINGS)
                path = "/v1/completions"
            else:
                body["messages"] = messages
                path = "/v1/chat/completions"
            stream = rng.random() < 0.5
            abort = stream and rng.random() < 0.1
            if stream:
                body["stream"] = True
                body["stream_options"] = {"include_usage": True}
            reply = one_request(port, path, body, stream, abort, counters)
            if reply is None:
                break
            if path == "/v1/chat/completions":
                messages.append({"role": "assistant", "content": reply})


def one_request(port, path, body, stream, abort, counters):
    """Sends until answered (503: waits Retry-After); returns the text, None if aborted."""
    for _attempt in range(600):
        try:
            conn, res = request(port, "POST", path, body)
        except OSError as e:
            counters.fail(f"connect: {e}")
            return None
        if res.status == 503:
            counters.add("busy_503")
            retry = float(res.getheader("Retry-After", "1"))
            res.read()
            conn.close()
            time.sleep(min(retry, 1.0) * random.random())
            continue
        if res.status != 200:
            counters.fail(f"{path} status {res.status}: {res.read()[:200]!r}")
            conn.close()
            return None
        try:
            if not stream:
                j = json.loads(res.read())
                choice = j["choices"][0]
                if choice.get("finish_reason") not in ("stop", "length"):
                    counters.fail(f"finish_reason {choice.get('finish_reason')}")
                if j["usage"]["completion_tokens"] < 0:
                    counters.fail("usage")
                counters.add("answered")
                counters.add("cached_tokens",
                             j["usage"].get("prompt_tokens_details", {}).get("cached_tokens", 0))
                return choice["message"]["content"] if "message" in choice else choice["text"]
            text, done, events = "", False, 0
            for raw in res:
                line = raw.decode("utf-8").strip()
                if not line.startswith("data: "):
                    continue
                data = line[6:]
                if data == "[DONE]":
                    done = True
                    break
                e = json.loads(data)
                if "error" in e:
                    counters.fail(f"stream error: {e['error']}")
                    break
                events += 1
                for c in e.get("choices", []):
                    text += c.get("delta", {}).get("content", "") or c.get("text", "") or ""
                if abort and events == 4:
                    counters.add("aborted")
                    conn.close()
                    return None
            if not done:
                counters.fail(f"stream of {path} ended without [DONE] after {events} events")
                return None
            counters.add("answered")
            return text
        except (OSError, ValueError, KeyError) as e:
            counters.fail(f"{path}: {type(e).__name__}: {e}")
            return None
        finally:
            conn.close()
    counters.fail("still busy after 600 tries")
    return None


def raw_send(port, payload, half_close=True, timeout=10):
    """Sends raw bytes (then closes the sending side: httplib answers nothing after that,
    it only closes); returns the status line's code, or 0 when the server closed."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(payload)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        data = b""
        while len(data) < 64:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        if data.startswith(b"HTTP/1.1 "):
            return int(data[9:12])
        return 0
    except OSError:
        return 0
    finally:
        s.close()


def hostile_requests(port, rng):
    """(name, function returning the status it got, the statuses it may get)."""
    chat = "/v1/chat/completions"
    msg = [{"role": "user", "content": "hi"}]

    def post(body, key=KEY, path=chat):
        conn, res = request(port, "POST", path, body, key=key, timeout=30)
        res.read()
        conn.close()
        return res.status

    def http_raw(head, body):
        return raw_send(port, head + b"\r\nContent-Length: " + str(len(body)).encode() +
                        b"\r\nAuthorization: Bearer " + KEY.encode() + b"\r\n\r\n" + body,
                        half_close=False)

    cases = [
        ("malformed JSON", lambda: post(b'{"model": "x", "messages": ['), {400}),
        ("not an object", lambda: post(b'[1,2,3]'), {400}),
        ("wrong type", lambda: post({"model": MODEL_ID, "messages": msg, "max_tokens": "9"}), {400}),
        ("bad value", lambda: post({"model": MODEL_ID, "messages": msg, "temperature": -3}), {400}),
        ("n > 1", lambda: post({"model": MODEL_ID, "messages": msg, "n": 4}), {400}),
        ("messages not a list", lambda: post({"model": MODEL_ID, "messages": "hi"}), {400}),
        ("unknown role", lambda: post({"model": MODEL_ID,
                                       "messages": [{"role": "wizard", "content": "x"}]}), {400}),
        ("deep nesting", lambda: post(b'{"a":' + b"[" * 200000 + b"]" * 200000 + b"}"), {400, 413}),
        ("huge body", lambda: post(b'{"model":"' + b"x" * (9 << 20) + b'"}'), {413, 0}),
        ("non-UTF-8", lambda: post(b'{"model":"' + MODEL_ID.encode() +
                                   b'","messages":[{"role":"user","content":"\xff\xfe"}]}'), {400}),
        ("unknown model", lambda: post({"model": "gpt-9", "messages": msg}), {404}),
        ("unknown route", lambda: post({"x": 1}, path="/v1/embeddings"), {404}),
        ("wrong key", lambda: post({"model": MODEL_ID, "messages": msg}, key="nope"), {401}),
        ("no key", lambda: post({"model": MODEL_ID, "messages": msg}, key=None), {401}),
        ("random bytes", lambda: raw_send(port, bytes(rng.getrandbits(8) for _ in range(2048))),
         {0, 400}),
        ("garbage request line", lambda: raw_send(port, b"BREW /pot HTCPCP/1.0\r\n\r\n"), {0, 400, 404}),
        ("body cut short", lambda: raw_send(
            port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5000\r\n"
                  b"Content-Type: application/json\r\n"
                  b"Authorization: Bearer " + KEY.encode() + b"\r\n\r\n{\"model\":"), {0, 400}),
        ("no messages", lambda: http_raw(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1"
                                          b"\r\nContent-Type: application/json",
                                          b'{"model":"' + MODEL_ID.encode() + b'"}' + b" " * 100),
         {400}),
        ("NUL in JSON", lambda: post(b'{"model":"\x00","messages":[]}'), {400}),
        ("huge max_tokens", lambda: post({"model": MODEL_ID, "messages": msg,
                                          "max_tokens": 10 ** 30}), {400}),
        ("negative max_tokens", lambda: post({"model": MODEL_ID, "messages": msg,
                                              "max_tokens": -1}), {400}),
        ("stop list of numbers", lambda: post({"model": MODEL_ID, "messages": msg,
                                               "stop": [1, 2]}), {400}),
        ("foreign Host", lambda: http_raw(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: attacker.example\r\n"
            b"Content-Type: application/json",
            json.dumps({"model": MODEL_ID, "messages": msg}).encode()), {403, 421}),
        ("foreign Origin", lambda: http_raw(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Origin: https://attacker.example\r\nContent-Type: application/json",
            json.dumps({"model": MODEL_ID, "messages": msg}).encode()), {403}),
        ("text/plain body", lambda: http_raw(
            b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: text/plain",
            json.dumps({"model": MODEL_ID, "messages": msg}).encode()), {415}),
    ]
    return cases


def slow_client(port, index, stop, counters):
    """Slowloris: a request header one byte a second from 127.0.0.(2 + index % 50), a new
    connection whenever the server closes (or refuses) this one."""
    source = f"127.0.0.{2 + index % 50}"
    header = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              b"Authorization: Bearer " + KEY.encode() + b"\r\nX-Pad: " + b"a" * 4096)
    while not stop.is_set():
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5,
                                         source_address=(source, 0))
        except OSError:
            counters.add("slow_connect_refused")
            stop.wait(0.5)
            continue
        counters.add("slow_connections")
        try:
            for i in range(len(header)):
                if stop.is_set():
                    break
                s.sendall(header[i:i + 1])
                stop.wait(1.0)
        except OSError:
            counters.add("slow_closed_by_server")
        finally:
            s.close()


def health_probe(port, stop, counters, latencies):
    """GET /health every half second on a fresh connection; each answer's seconds."""
    while not stop.is_set():
        t0 = time.time()
        try:
            conn, res = request(port, "GET", "/health", timeout=30)
            res.read()
            conn.close()
            if res.status != 200:
                counters.fail(f"/health beside the slow clients: status {res.status}")
        except OSError as e:
            counters.fail(f"/health beside the slow clients: {e}")
        latencies.append(time.time() - t0)
        stop.wait(0.5)


def hostile_client(port, n, rng, counters):
    cases = hostile_requests(port, rng)
    for i in range(n):
        name, fn, allowed = cases[i % len(cases)]
        try:
            status = fn()
        except OSError:
            status = 0  # the server closed the connection: allowed only where 0 is listed
        counters.add("hostile_sent")
        if status not in allowed:
            counters.fail(f"hostile '{name}': status {status}, expected one of {sorted(allowed)}")
        else:
            counters.add("hostile_refused")


def main():
    global MODEL_ID
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("model")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--parallel", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=180)
    ap.add_argument("--hostile", type=int, default=1000)
    ap.add_argument("--rss-growth", type=float, default=0.10)
    ap.add_argument("--slow", type=int, default=200)
    ap.add_argument("--health-latency", type=float, default=1.0)
    ap.add_argument("--json")
    args = ap.parse_args()

    budget = 64 << 20
    server = subprocess.Popen(
        [args.cli, "serve", "--model", args.model, "--port", "0", "--api-key", KEY,
         "--parallel", str(args.parallel), "--ctx", "2048", "--kv-budget-bytes", str(budget)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = None
    for line in server.stdout:
        if line.startswith("port "):
            port = int(line.split()[1])
            break
    if not port:
        print("the server did not start")
        return 1
    conn, res = request(port, "GET", "/v1/models")
    MODEL_ID = json.loads(res.read())["data"][0]["id"]
    conn.close()

    counters = Counters()
    rss = []
    deadline = time.time() + args.seconds
    stop_sampling = threading.Event()

    def sample():
        t0 = time.time()
        while not stop_sampling.is_set():
            rss.append((time.time() - t0, rss_bytes(server.pid)))
            stop_sampling.wait(1.0)

    sampler = threading.Thread(target=sample)
    sampler.start()
    clients = [threading.Thread(target=well_behaved_client,
                                args=(port, deadline, random.Random(i), counters))
               for i in range(args.clients)]
    # The hostile requests spread over the middle of the run.
    hostile = threading.Thread(target=lambda: (time.sleep(args.seconds * 0.2),
                                               hostile_client(port, args.hostile,
                                                              random.Random(99), counters)))
    # The slow clients and the /health probe through the middle half of the run.
    stop_slow = threading.Event()
    health_latencies = []
    slow = [threading.Thread(target=slow_client, args=(port, i, stop_slow, counters))
            for i in range(args.slow)]
    probe = threading.Thread(target=health_probe,
                             args=(port, stop_slow, counters, health_latencies))

    def slow_phase():
        time.sleep(args.seconds * 0.25)
        for t in slow:
            t.start()
        time.sleep(2.0)  # every slow connection open before the probe starts
        probe.start()
        time.sleep(max(args.seconds * 0.5 - 2.0, 1.0))
        stop_slow.set()
        probe.join()
        for t in slow:
            t.join()

    slow_runner = threading.Thread(target=slow_phase)
    for t in clients + [hostile, slow_runner]:
        t.start()
    for t in clients + [hostile, slow_runner]:
        t.join()
    stop_sampling.set()
    sampler.join()

    alive = server.poll() is None
    health = {}
    if alive:
        conn, res = request(port, "GET", "/health")
        health = json.loads(res.read())
        conn.close()
        server.terminate()
        server.wait(timeout=30)
    values = [b for _, b in rss]
    q = max(len(values) // 4, 1)
    second = sum(values[q:2 * q]) / max(len(values[q:2 * q]), 1)
    last = sum(values[-q:]) / q
    growth = (last - second) / second if second else 0
    summary = {
        "clients": args.clients, "parallel": args.parallel, "seconds": args.seconds,
        "hostile_requested": args.hostile, **counters.values,
        "rss_second_quarter_mib": round(second / 2**20, 1),
        "rss_last_quarter_mib": round(last / 2**20, 1),
        "rss_max_mib": round(max(values) / 2**20, 1),
        "rss_growth": round(growth, 4),
        "server_alive": alive, "exit_code": server.returncode,
        "health": {k: health.get(k) for k in ("requests", "rejected_busy", "client_hang_ups",
                                              "kv_allocated_bytes", "kv_shared_bytes",
                                              "kv_budget_bytes", "batched_decode")},
        "slow_clients": args.slow,
        "health_beside_slow_clients_max_s": round(max(health_latencies, default=0), 3),
        "health_beside_slow_clients_probes": len(health_latencies),
        "failures_first": counters.failures[:10],
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
    ok = (alive and server.returncode == 0 and counters.values.get("failures", 0) == 0
          and counters.values.get("hostile_refused", 0) == args.hostile
          and counters.values.get("answered", 0) > 0 and growth <= args.rss_growth
          and (args.slow == 0 or (health_latencies and
                                  max(health_latencies) <= args.health_latency)))
    print("load test:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
