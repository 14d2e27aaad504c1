#!/usr/bin/env python3
"""kvchat's MCP client over Streamable HTTP (issue 47 point 1) against real servers, through
`kvchat-cli mcp` (no model):
  1. @modelcontextprotocol/server-everything in its streamableHttp mode on a loopback port:
     initialize, its tools listed, get-sum called;
  2. the MCP conformance suite's client scenarios (@modelcontextprotocol/conformance 0.1.5,
     the newest that runs on node 20): initialize and tools-call, each 0 checks failed.
     0.1.5's scenarios check for protocol 2025-06-18: the client asks for it with
     --protocol-version (kvchat asks for 2025-11-25 by default and accepts 2025-06-18).
Usage: http_servers.py KVCHAT_CLI NODE_MODULES"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

cli, modules = sys.argv[1], sys.argv[2]
failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failures += 1


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# 1. server-everything over Streamable HTTP.
port = free_port()
server = subprocess.Popen([modules + "/.bin/mcp-server-everything", "streamableHttp"],
                          env=dict(os.environ, PORT=str(port)), stderr=subprocess.PIPE, text=True)
try:
    deadline = time.time() + 60
    while time.time() < deadline:
        line = server.stderr.readline()
        if "listening on port" in line or not line:
            break
    p = subprocess.run([cli, "mcp", "--call", "get-sum", "--arguments", '{"a": 2, "b": 3}',
                        "http://127.0.0.1:%d/mcp" % port], capture_output=True, text=True,
                       timeout=120)
    events = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    check(p.returncode == 0, "kvchat-cli mcp exits 0 (stderr: %s)" % p.stderr[-400:])
    if len(events) == 2:
        info, result = events
        check(info["protocol_version"] == "2025-11-25",
              "protocol 2025-11-25 negotiated over HTTP: %s" % info["protocol_version"])
        names = [t["name"] for t in info["tools"]]
        check("get-sum" in names and len(names) >= 10, "its tools listed: %s" % names)
        check(result["text"] == "The sum of 2 and 3 is 5." and not result["is_error"],
              "get-sum over HTTP: %r" % result["text"])
    else:
        check(False, "two events (server, result): %s" % p.stdout)
finally:
    server.kill()
    server.wait()

# 2. The conformance suite's client scenarios.
client = "%s mcp --protocol-version 2025-06-18" % cli
scenarios = {
    "initialize": client,
    "tools-call": client + " --call add_numbers --arguments '{\"a\":2,\"b\":3}'",
}
with tempfile.TemporaryDirectory() as work:  # it writes results/ where it runs
    for scenario, command in scenarios.items():
        p = subprocess.run([modules + "/.bin/conformance", "client", "--command", command,
                            "--scenario", scenario], capture_output=True, text=True, timeout=180,
                           cwd=work)
        summary = [l for l in p.stdout.splitlines() if l.startswith("Passed:")]
        check(p.returncode == 0 and summary and summary[-1].endswith(" 0 failed"),
              "conformance client scenario %s: %s" % (scenario, summary or p.stdout[-600:] + p.stderr[-600:]))

print("http_servers: %s" % ("PASS" if failures == 0 else "%d FAILED" % failures))
sys.exit(1 if failures else 0)
