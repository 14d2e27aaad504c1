#!/usr/bin/env python3
"""Keep-alive latency of kvchat-cli serve (issue 40 point 6), a `make bench` line: the
median and worst seconds of GET /health over N requests on one kept-alive connection (what
the SDKs do) and over N fresh connections. Without TCP_NODELAY on the server's socket
every kept-alive response waited for the client's delayed ACK (44 ms against 0.3 ms).

usage: latency.py KVCHAT_CLI MODEL [--requests 200] [--max-ms X]  (exit 1 when the
kept-alive median exceeds X)"""
import argparse
import http.client
import statistics
import subprocess
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("model")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--max-ms", type=float)
    args = ap.parse_args()
    server = subprocess.Popen([args.cli, "serve", "--model", args.model, "--port", "0",
                               "--parallel", "1", "--ctx", "256"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        port = None
        for line in server.stdout:
            if line.startswith("port "):
                port = int(line.split()[1])
                break
        if not port:
            print("the server did not start")
            return 1
        kept, fresh = [], []
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        for _ in range(args.requests):
            t0 = time.perf_counter()
            conn.request("GET", "/health")
            conn.getresponse().read()
            kept.append(time.perf_counter() - t0)
        conn.close()
        for _ in range(args.requests):
            t0 = time.perf_counter()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            c.request("GET", "/health")
            c.getresponse().read()
            c.close()
            fresh.append(time.perf_counter() - t0)
    finally:
        server.terminate()
        server.wait(timeout=30)
    ms = lambda xs: (1000 * statistics.median(xs), 1000 * max(xs))
    (km, kw), (fm, fw) = ms(kept), ms(fresh)
    print(f"keep-alive GET /health: median {km:.3f} ms, worst {kw:.3f} ms over {args.requests}; "
          f"fresh connections: median {fm:.3f} ms, worst {fw:.3f} ms")
    return 1 if args.max_ms is not None and km > args.max_ms else 0


if __name__ == "__main__":
    sys.exit(main())
