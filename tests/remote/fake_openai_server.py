#!/usr/bin/env python3
"""A loopback OpenAI-compatible endpoint that behaves as MODE says, for
tests/remote/test_remote_client.cpp: well (a vLLM-like stream with reasoning_content,
usage and /metrics), or slow, dropping, lying or hostile.

    fake_openai_server.py MODE LOG

Prints its port on the first line of stdout, then serves until killed. Every request is
logged to LOG as a JSON line {"server", "method", "path", "authorization", "body"}; a
second listener (its port on the second line: "other PORT") stands for another origin
and logs as "other" (a redirect points there: a client that follows it leaks the key).

Modes: ok, think, json, redirect, endless, huge-event, huge-models, invalid, busy-then-ok,
echo-key-401, ollama-404, html-502, slow-head, drop, slow-stream, llamacpp, tls.
"""
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE, LOG = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = os.path.join(HERE, "..", "data", "metrics")
lock = threading.Lock()
counts = {}


def log(server, handler, body):
    with lock, open(LOG, "a") as f:
        f.write(json.dumps({"server": server, "method": handler.command, "path": handler.path,
                            "authorization": handler.headers.get("Authorization", ""),
                            "body": body}) + "\n")


def chunk(delta=None, finish=None, usage=None):
    c = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
         "model": "fake-model", "choices": []}
    if delta is not None or finish is not None:
        c["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    if usage is not None:
        c["usage"] = usage
    return "data: " + json.dumps(c) + "\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_name = "main"

    def log_message(self, *args):
        pass

    def send(self, status, body, ctype="application/json", headers=()):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def start_stream(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()

    def write(self, text):
        self.wfile.write(text.encode())
        self.wfile.flush()

    def do_GET(self):
        log(self.server_name, self, "")
        if self.server_name == "other":
            return self.send(200, '{"object":"list","data":[{"id":"leaked"}]}')
        if MODE == "redirect":
            return self.redirect()
        if self.path == "/v1/models":
            if MODE == "huge-models":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(1 << 30))
                self.end_headers()
                block = b" " * (1 << 16)
                try:
                    for _ in range(1 << 14):
                        self.wfile.write(block)
                except OSError:
                    pass
                return
            return self.send(200, json.dumps({"object": "list", "data": [
                {"id": "fake-model", "object": "model", "owned_by": "vllm", "max_model_len": 32768},
                {"id": "other-model", "object": "model", "owned_by": "vllm"}]}))
        if self.path == "/metrics" and MODE in ("ok", "llamacpp"):
            name = "vllm-v1.prom" if MODE == "ok" else "llamacpp-server.prom"
            with open(os.path.join(METRICS, name)) as f:
                return self.send(200, f.read(), "text/plain; version=0.0.4")
        if self.path == "/slots" and MODE == "llamacpp":
            slots = [{"id": 0, "id_task": 7, "n_ctx": 4096, "speculative": False,
                      "is_processing": True, "next_token": {"has_next_token": True, "n_decoded": 12}},
                     {"id": 1, "id_task": -1, "n_ctx": 4096, "is_processing": False,
                      "next_token": {"n_decoded": 0}}]
            return self.send(200, json.dumps(slots))
        self.send(404, '{"error":{"message":"Not Found","type":"not_found_error","code":404}}')

    def redirect(self):
        other = self.server.other_port
        self.send(307, "", "text/plain", [("Location", f"http://127.0.0.1:{other}{self.path}")])

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode()
        log(self.server_name, self, body)
        if self.server_name == "other":
            return self.send(200, "{}")
        with lock:
            counts[MODE] = counts.get(MODE, 0) + 1
            count = counts[MODE]
        handler = getattr(self, "chat_" + MODE.replace("-", "_"), None)
        (handler or self.chat_ok)(count)

    def chat_ok(self, count):
        self.start_stream()
        self.write(chunk({"role": "assistant", "content": ""}))
        self.write(": a comment line the client skips\n\n")
        for piece in ["Let me", " think."]:
            self.write(chunk({"reasoning_content": piece}))
        # CRLF line ends, as some proxies write them
        self.write(chunk({"content": "Hello"}).replace("\n", "\r\n"))
        self.write(chunk({"content": ", world"}))
        self.write(chunk({}, "stop"))
        self.write(chunk(usage={"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17,
                                "prompt_tokens_details": {"cached_tokens": 8}}))
        self.write("data: [DONE]\n\n")

    def chat_think(self, count):
        self.start_stream()
        for piece in ["<thi", "nk>Reasoning", " here</think>", "\n\nThe answer."]:
            self.write(chunk({"content": piece}))
        self.write(chunk({}, "stop"))
        self.write("data: [DONE]\n\n")

    def chat_json(self, count):
        self.send(200, json.dumps({"id": "x", "object": "chat.completion", "choices": [
            {"index": 0, "finish_reason": "stop",
             "message": {"role": "assistant", "content": "Whole answer."}}]}))

    def chat_redirect(self, count):
        self.redirect()

    def chat_endless(self, count):
        self.start_stream()
        try:
            while True:
                self.write(chunk({"content": "more "}))
        except OSError:
            pass

    def chat_huge_event(self, count):
        self.start_stream()
        self.write('data: {"choices":[{"delta":{"content":"')
        block = "a" * (1 << 16)
        try:
            for _ in range(1 << 14):  # 1 GiB, never closed
                self.write(block)
        except OSError:
            pass

    def chat_invalid(self, count):
        self.start_stream()
        self.write(chunk({"content": "fine"}))
        self.write("data: {this is not json\n\n")
        self.write("data: [DONE]\n\n")

    def chat_busy_then_ok(self, count):
        if count == 1:
            return self.send(503, '{"error":{"message":"model is loading","type":"server_error",'
                             '"code":"model_loading"}}', headers=[("Retry-After", "1")])
        self.chat_ok(count)

    def chat_echo_key_401(self, count):
        key = self.headers.get("Authorization", "").removeprefix("Bearer ")
        self.send(401, json.dumps({"error": {"message": f"Incorrect API key provided: {key}.",
                                             "type": "invalid_request_error",
                                             "code": "invalid_api_key"}}))

    def chat_ollama_404(self, count):
        self.send(404, '{"error":"model \\"llama9\\" not found, try pulling it first"}')

    def chat_html_502(self, count):
        self.send(502, "<html><head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>",
                  "text/html")

    def chat_slow_head(self, count):
        time.sleep(3)
        self.chat_ok(count)

    def chat_drop(self, count):
        self.start_stream()
        self.write(chunk({"content": "Half"}))
        self.write(chunk({"content": " a reply"}))
        self.connection.shutdown(socket.SHUT_RDWR)

    def chat_slow_stream(self, count):
        self.start_stream()
        try:
            for i in range(50):
                self.write(chunk({"content": f"w{i} "}))
                time.sleep(0.2)
            self.write(chunk({}, "stop"))
            self.write("data: [DONE]\n\n")
        except OSError:
            pass


class OtherHandler(Handler):
    server_name = "other"


def tls_context():
    d = tempfile.mkdtemp()
    key, cert = os.path.join(d, "key.pem"), os.path.join(d, "cert.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"],
                   check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ctx


def main():
    main_server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    other = ThreadingHTTPServer(("127.0.0.1", 0), OtherHandler)
    main_server.other_port = other.server_address[1]
    if MODE == "tls":
        main_server.socket = tls_context().wrap_socket(main_server.socket, server_side=True)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    print(main_server.server_address[1], flush=True)
    print("other", other.server_address[1], flush=True)
    main_server.serve_forever()


main()
