#!/usr/bin/env python3
"""A Model Context Protocol server over Streamable HTTP for kvchat's client tests (standard
library only). Prints its port on the first line of stdout, then serves on 127.0.0.1 until
killed. argv[1] picks how it answers: "json" (application/json bodies), "sse" (each answer a
chunked text/event-stream, a log notification before it), "forget" (404 for the session
after tools/list: the server forgot it). argv[2]: a file where it logs what it got
(methods, DELETE, the headers it checks). Every message after initialize must name the
session (Mcp-Session-Id) and the protocol version (MCP-Protocol-Version), or it is refused
with 400."""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[1] if len(sys.argv) > 1 else "json"
LOG = sys.argv[2] if len(sys.argv) > 2 else None
SESSION = "kvchat-test-session-1"
lock = threading.Lock()
state = {"tools": ["add", "slow", "huge"], "initialized": False, "listeners": [],
         "forgotten": False}


def log(text):
    if LOG:
        with lock, open(LOG, "a") as f:
            f.write(text + "\n")


def tool(name):
    props = {"a": {"type": "integer"}, "b": {"type": "integer"}} if name == "add" else {}
    return {"name": name, "description": "the " + name + " tool",
            "inputSchema": {"type": "object", "properties": props}}


def result_for(msg):
    method, params = msg["method"], msg.get("params", {})
    if method == "initialize":
        return {"protocolVersion": params["protocolVersion"], "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "fake-http", "version": "0.1"}}
    if method == "tools/list":
        return {"tools": [tool(t) for t in state["tools"]]}
    if method == "ping":
        return {}
    if method == "tools/call":
        name, args = params["name"], params.get("arguments", {})
        if name == "add":
            if "extra" not in state["tools"]:  # the list changes after the first add
                state["tools"].append("extra")
                push({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}
        if name == "slow":
            time.sleep(10)
            return {"content": [{"type": "text", "text": "done"}]}
        if name == "huge":
            return {"content": [{"type": "text", "text": "x" * (20 << 20)}]}
    return None


def push(message):
    """A message on every open GET stream."""
    data = ("data: " + json.dumps(message) + "\n\n").encode()
    for w in list(state["listeners"]):
        try:
            w.write(b"%x\r\n%s\r\n" % (len(data), data))
            w.flush()
        except OSError:
            state["listeners"].remove(w)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body=b"", ctype="application/json", headers=None):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def checked(self):
        """The session and version headers every message after initialize carries."""
        if state["forgotten"]:
            self.reply(404, b'{"error": "no such session"}')
            return False
        if self.headers.get("Mcp-Session-Id") != SESSION:
            log("missing session id")
            self.reply(400, b'{"error": "missing session"}')
            return False
        if not self.headers.get("MCP-Protocol-Version"):
            log("missing protocol version")
            self.reply(400, b'{"error": "missing MCP-Protocol-Version"}')
            return False
        return True

    def do_DELETE(self):
        log("DELETE " + str(self.headers.get("Mcp-Session-Id")))
        self.reply(200)

    def do_GET(self):
        if not self.checked():
            return
        log("GET stream")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        state["listeners"].append(self.wfile)
        while self.wfile in state["listeners"]:
            time.sleep(0.2)

    def do_POST(self):
        accept = self.headers.get("Accept", "")
        if "application/json" not in accept or "text/event-stream" not in accept:
            self.reply(406, b'{"error": "Accept must name both"}')
            return
        msg = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        method = msg.get("method")
        log("POST " + str(method))
        if method != "initialize" and not self.checked():
            return
        if "id" not in msg or method is None:  # a notification or a response
            if method == "notifications/cancelled":
                log("cancelled " + str(msg["params"]["requestId"]))
            self.reply(202)
            return
        answer = {"jsonrpc": "2.0", "id": msg["id"], "result": result_for(msg)}
        if method == "tools/list" and MODE == "forget":
            state["forgotten"] = True
        headers = {"Mcp-Session-Id": SESSION} if method == "initialize" else {}
        body = json.dumps(answer).encode()
        if MODE != "sse":
            self.reply(200, body, headers=headers)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        note = {"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "working on " + method}}
        events = [b": a comment\n\n", b"event: message\ndata: " + json.dumps(note).encode() + b"\n\n",
                  b"id: 7\ndata: " + body + b"\n\n"]
        for e in events:  # in pieces, across chunk boundaries
            for i in range(0, len(e), 1 << 16):
                part = e[i:i + (1 << 16)]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        self.wfile.write(b"0\r\n\r\n")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
