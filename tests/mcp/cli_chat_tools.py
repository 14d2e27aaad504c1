#!/usr/bin/env python3
"""kvchat-cli chat with tools from a real MCP server (issue 47, point 4): the reference
server-everything over stdio, the demo model's constrained call, consent from stdin, the
--json events tool_server, tool_note, tool_consent, tool_call, tool_result, tool_limit, and
a server that cannot start reported while the chat goes on.
argv: KVCHAT_CLI MODEL NODE_MODULES"""
import json
import os
import subprocess
import sys
import tempfile

cli, model, modules = sys.argv[1:4]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def chat(config, lines, *extra, consent="y"):
    """Runs kvchat-cli chat, sending `lines` one at a time: each user message once the
    previous one is done (a reply without calls, an error, or the limit answered "n");
    consent questions answered with `consent`. Returns (exit status, events, stderr)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump({"mcpServers": config}, f)
    args = [cli, "chat", "--model", model, "--ctx", "4096", "--temp", "0", "--json",
            "--mcp-config", f.name] + list(extra)
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    events = []

    def send(text):
        p.stdin.write(text + "\n")
        p.stdin.flush()

    for line in lines:
        send(line)
        while True:
            out = p.stdout.readline()
            if not out:
                break
            if not out.startswith("{"):
                continue
            e = json.loads(out)
            events.append(e)
            kind = e["event"]
            if kind == "tool_consent":
                send(consent)
            elif kind == "tool_limit":
                send("n")
                break
            elif kind in ("error", "tools", "memory", "help") or (
                    kind in ("reply", "regenerate") and not e.get("tool_calls")):
                break
    p.stdin.close()
    for out in p.stdout:
        if out.startswith("{"):
            events.append(json.loads(out))
    err = p.stderr.read()
    rc = p.wait(timeout=120)
    os.unlink(f.name)
    return rc, events, err


def of(events, kind):
    return [e for e in events if e["event"] == kind]


everything = {"everything": {"command": modules + "/.bin/mcp-server-everything"}}

# 1. A named tool, allowed: the call runs on the server and the reply goes on.
rc, ev, err = chat(everything, ["Add two and three", "/tools", "/memory"], "--tool-choice",
                   "get-sum", "--allow-tool", "get-sum", consent="n")
servers = of(ev, "tool_server")
check(len(servers) == 1 and servers[0]["state"] == "ready" and servers[0]["tools"] == 13,
      "server-everything is ready with its 13 tools: %s" % servers)
check(any("get-resource-links" in n["message"] for n in of(ev, "tool_note")),
      "a tool whose schema cannot be a grammar is left out and said")
calls = of(ev, "tool_call")
results = of(ev, "tool_result")
check(len(calls) >= 1 and calls[0]["name"] == "get-sum", "the first call is get-sum: %s" % calls)
check(all(c["name"] != "get-sum" for c in of(ev, "tool_consent")),
      "an allowed tool is not asked for")
if calls and results:
    a, b = calls[0]["arguments"]["a"], calls[0]["arguments"]["b"]
    want = "The sum of %s and %s is %s." % (a, b, a + b)
    check(results[0]["text"] == want, "the server's answer %r == %r" % (results[0]["text"], want))
    check(results[0]["id"] == calls[0]["id"] and not results[0]["denied"], "result of that call")
    check(results[0]["tokens"] > 0 and results[0]["kv_bytes"] > 0, "its tokens and KV bytes")
replies = of(ev, "reply")
check(len(replies) >= 2 and replies[0]["tool_calls"][0]["name"] == "get-sum",
      "the reply that called, then the reply that read the result")
if len(replies) >= 2:
    check(replies[1]["reused_tokens"] >= replies[0]["prompt_tokens"] - 8,
          "the reply after the result reused the cache (%d reused of %d)" %
          (replies[1]["reused_tokens"], replies[1]["prompt_tokens"]))
tools = of(ev, "tools")
check(len(tools) == 1 and tools[0]["definition_tokens"] > 100 and
      "everything: ready" in tools[0]["text"], "/tools lists the server")
mem = of(ev, "memory")
check(len(mem) == 1 and mem[0]["tool_definition_tokens"] == tools[0]["definition_tokens"],
      "/memory counts the tool definitions")
check(rc == 0, "exit status 0 (stderr: %s)" % err[-300:])

# 2. Not allowed: asked on stdin, denied with "n"; the model reads the refusal.
rc, ev, err = chat(everything, ["Add two and three"], "--tool-choice", "get-sum",
                   "--max-tool-calls", "1", consent="n")
asked = of(ev, "tool_consent")
results = of(ev, "tool_result")
check(len(asked) >= 1 and asked[0]["name"] == "get-sum", "the call is asked for")
check(not of(ev, "tool_call"), "a denied call does not run")
check(len(results) >= 1 and results[0]["denied"] and
      results[0]["text"] == "The user did not allow this call of get-sum; it was not run.",
      "the model reads the refusal")

# 3. The limit: two calls in a row, then the user is asked and says no.
rc, ev, err = chat(everything, ["Add two and three"], "--tool-choice", "required",
                   "--allow-all-tools", "--max-tool-calls", "2")
limit = of(ev, "tool_limit")
check(len(limit) == 1 and limit[0]["calls"] == 2, "asked after 2 calls: %s" % limit)

# 4. A server that cannot start is reported; the chat goes on without it.
broken = dict(everything)
broken["missing"] = {"command": "kvchat-no-such-server"}
rc, ev, err = chat(broken, ["In the beginning"], "--mcp-servers", "missing", "-n", "8")
states = {s["name"]: s for s in of(ev, "tool_server")}
check(states.get("missing", {}).get("state") == "failed" and
      "No such file or directory" in states["missing"]["message"],
      "the missing server failed with a reason: %s" % states.get("missing"))
check(len(of(ev, "reply")) == 1 and rc == 0, "the chat went on (rc %d)" % rc)

# 5. A config that does not parse is an error naming the key.
with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
    f.write('{"mcpServers": {"x": {"command": 1}}}')
p = subprocess.run([cli, "chat", "--model", model, "--mcp-config", f.name], input="",
                   capture_output=True, text=True, timeout=60)
check(p.returncode != 0 and "mcpServers.x.command must be a string, not a number" in p.stderr,
      "a bad mcp.json is refused by key: %s" % p.stderr.strip())
os.unlink(f.name)

sys.exit(1 if failures else 0)
