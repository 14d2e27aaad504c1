#!/usr/bin/env python3
"""A Model Context Protocol server over stdio for kvchat's MCP client tests: well-behaved
by default, hostile on request (argv[1] names the behaviour). Standard library only."""
import json
import os
import signal
import subprocess
import sys
import time

MODE = sys.argv[1] if len(sys.argv) > 1 else "ok"
out = sys.stdout.buffer


def send(msg):
    out.write(json.dumps(msg).encode() + b"\n")
    out.flush()


def tool(name, desc, props=None, required=None):
    return {"name": name, "description": desc,
            "inputSchema": {"type": "object", "properties": props or {},
                            "required": required or []}}


TOOLS = [
    tool("add", "Adds two integers", {"a": {"type": "integer"}, "b": {"type": "integer"}},
         ["a", "b"]),
    tool("echo", "Echoes its text", {"text": {"type": "string"}}, ["text"]),
    tool("slow", "Answers after the given seconds", {"seconds": {"type": "number"}}),
    tool("fail", "Always reports an error"),
    tool("env", "Tells the value of an environment variable", {"name": {"type": "string"}}),
    tool("crash", "Exits the server"),
    tool("huge", "Answers with megabytes of text", {"mb": {"type": "integer"}}),
]
# "only-NAME": that one tool, so that a model's required call is always the same (the
# window's tests: only-add for a call soon closed, only-crash, only-huge).
ONLY = MODE[len("only-"):] if MODE.startswith("only-") else None
state = {"tools": [t for t in TOOLS if ONLY in (None, t["name"])],
         "cancelled": []}


def text_result(text, is_error=False):
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def call(name, args):
    if os.environ.get("FAKE_MCP_LOG"):  # what ran, for a test that checks consent came first
        with open(os.environ["FAKE_MCP_LOG"], "a") as log:
            log.write(name + "\n")
    if name == "add":
        return text_result(str(args["a"] + args["b"]))
    if name == "echo":
        return text_result(args.get("text", ""))
    if name == "slow":
        time.sleep(float(args.get("seconds", 1)))
        return text_result("done")
    if name == "fail":
        return text_result("the tool failed on purpose", True)
    if name == "env":
        return text_result(os.environ.get(args.get("name", ""), "<unset>"))
    if name == "crash":
        sys.stderr.write("crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "huge":
        return text_result("x" * (int(args.get("mb", 100)) << 20))
    return None


def handle(msg):
    method, mid = msg.get("method"), msg.get("id")
    if method is None:  # an answer to a request of ours: logged for the test to read
        sys.stderr.write("answer %s %s\n" % (mid, "error" if "error" in msg else "result"))
        sys.stderr.flush()
        return
    if mid is None:
        if method == "notifications/cancelled":
            state["cancelled"].append(msg["params"]["requestId"])
            sys.stderr.write("cancelled %s\n" % msg["params"]["requestId"])
            sys.stderr.flush()
        return
    if method == "initialize":
        if MODE == "hang":
            return
        version = "1999-01-01" if MODE == "old-version" else msg["params"]["protocolVersion"]
        send({"jsonrpc": "2.0", "id": mid, "result": {
            "protocolVersion": version, "capabilities": {"tools": {"listChanged": True}},
            "serverInfo": {"name": "fake", "version": "0.1"}, "instructions": "Be kind."}})
        return
    if method == "tools/list":
        if MODE == "many-tools":
            send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [
                tool("t%05d" % i, "tool %d" % i) for i in range(10000)]}})
            return
        if MODE == "paged":
            page = int((msg.get("params") or {}).get("cursor") or 0)
            tools = state["tools"][page * 2:page * 2 + 2]
            result = {"tools": tools}
            if page * 2 + 2 < len(state["tools"]):
                result["nextCursor"] = str(page + 1)
            send({"jsonrpc": "2.0", "id": mid, "result": result})
            return
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": state["tools"]}})
        return
    if method == "tools/call":
        name = msg["params"]["name"]
        if MODE == "invalid-json":
            out.write(b"{this is not json\n")
            out.flush()
            return
        if name == "add" and MODE == "list-changed":
            state["tools"] = state["tools"] + [tool("added_later", "Appeared after a call")]
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        if name == "echo" and MODE == "server-ping":
            send({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"})
            send({"jsonrpc": "2.0", "id": "srv-2", "method": "sampling/createMessage",
                  "params": {}})
        result = call(name, msg["params"].get("arguments") or {})
        if result is None:
            send({"jsonrpc": "2.0", "id": mid,
                  "error": {"code": -32602, "message": "Unknown tool: " + name}})
        else:
            send({"jsonrpc": "2.0", "id": mid, "result": result})
        return
    if method == "ping":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
        return
    send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + method}})


def main():
    if MODE == "ignore-term":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE == "grandchild":
        child = subprocess.Popen(["sleep", "300"])
        sys.stderr.write("grandchild %d\n" % child.pid)
        sys.stderr.flush()
    if MODE == "exit-at-once":
        sys.stderr.write("missing API key\n")
        sys.exit(2)
    if MODE == "stderr-flood":
        for i in range(20000):
            sys.stderr.write("log line %d %s\n" % (i, "." * 60))
        sys.stderr.flush()
    if MODE == "flood":
        while True:
            out.write(b"this is not JSON-RPC, just noise\n")
    for line in sys.stdin.buffer:
        line = line.strip()
        if not line:
            continue
        handle(json.loads(line))
    if MODE == "ignore-term":  # stdin closed: stay anyway
        while True:
            time.sleep(1)


main()
