#!/usr/bin/env python3
"""A local stand-in for the Hugging Face Hub, for tests (Python 3 stdlib only).

    fake_hub.py --shared DIR [--port 0] [--token TOKEN]

Listens on 127.0.0.1 (port 0: a free one) and prints the port on the first line of
stdout. Serves the Hub paths kvchat uses:

    GET /api/models?search=Q&filter=gguf[&limit=N]   repositories whose id contains Q
    GET /api/models/{repo}/tree/main                  files with size and lfs.oid (SHA-256)
    GET|HEAD /{repo}/resolve/main/{file}              302 to /cdn/{repo}/{file} (on the
                                                      origin ?cdn=ORIGIN when given)
    GET|HEAD /cdn/{repo}/{file}                       the bytes, with Range and If-Range
    GET /__requests                                   every request so far (method, path,
                                                      range, if_range, whether it had
                                                      Authorization)

Repositories (files are the real GGUFs of --shared, or made here from them):
    kvchat/kjv-demo-GGUF       kjv-demo-f16.gguf, README.md
    kvchat/stories260K-GGUF    stories260K.gguf
    kvchat/gated-GGUF          kjv-demo-f16.gguf; 401 without "Authorization: Bearer TOKEN"
    kvchat/big-header-GGUF     big-header.gguf: kjv-demo-f16.gguf with 1.5 MiB more metadata
                               (the header outgrows a first range of 1 MiB)
    kvchat/unsupported-GGUF    mamba-tiny.gguf: an architecture kvchat does not run
    kvchat/traversal-GGUF      the tree lists "../../evil.gguf" and "/etc/evil.gguf"
    kvchat/wrong-hash-GGUF     kjv-demo-f16.gguf whose tree gives another SHA-256
    kvchat/drop-GGUF           kjv-demo-f16.gguf; the first GET of a byte range starting at 0
                               drops the connection after 1 MiB (resume works)
    kvchat/slow-GGUF           kjv-demo-f16.gguf, trickled at 64 KiB/s
    kvchat/ratelimit-GGUF      the first request of each path answers 429 Retry-After: 1
Any other repository is 404.

Fault modes by query, on any path: ?fault=404 | 401 | 429 (once per path) | 429always |
500 | drop:N (drop after N body bytes, every time) | slow | hang (never answers) |
norange (the file is served whole, Range ignored). A resolve passes its query on to the
redirect, so the faults reach the file itself.
"""

import argparse
import hashlib
import json
import os
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFAULT_TOKEN = "kvchat-test-token"
BIG_HEADER_EXTRA = 3 << 19  # 1.5 MiB of metadata added to the demo model
DROP_AFTER = 1 << 20
TRICKLE_BYTES_PER_SECOND = 64 << 10


def gguf_string(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def with_big_metadata(data, extra):
    """The GGUF `data` with one more string key of about `extra` bytes, inserted before its
    other keys; the added size is a multiple of 4096 so the tensor data stays aligned."""
    magic, version, n_tensors, n_kv = struct.unpack_from("<IIQQ", data, 0)
    assert magic == 0x46554747
    key = gguf_string("kvchat.test.padding")
    fixed = len(key) + 4 + 8
    total = (fixed + extra + 4095) // 4096 * 4096
    value = b"p" * (total - fixed)
    kv = key + struct.pack("<I", 8) + struct.pack("<Q", len(value)) + value
    head = struct.pack("<IIQQ", magic, version, n_tensors, n_kv + 1)
    return head + kv + data[24:]


def mamba_tiny():
    """A small well-formed GGUF v3 of architecture 'mamba' (one F32 tensor)."""
    kvs = [
        ("general.architecture", 8, gguf_string("mamba")),
        ("general.name", 8, gguf_string("mamba tiny")),
        ("mamba.block_count", 4, struct.pack("<I", 2)),
        ("mamba.embedding_length", 4, struct.pack("<I", 64)),
        ("mamba.context_length", 4, struct.pack("<I", 1024)),
    ]
    out = struct.pack("<IIQQ", 0x46554747, 3, 1, len(kvs))
    for key, vtype, payload in kvs:
        out += gguf_string(key) + struct.pack("<I", vtype) + payload
    out += gguf_string("token_embd.weight") + struct.pack("<I", 2) + struct.pack("<QQ", 64, 4)
    out += struct.pack("<I", 0) + struct.pack("<Q", 0)  # F32, offset 0
    out += b"\0" * ((32 - len(out) % 32) % 32)
    return out + b"\0" * (64 * 4 * 4)


class Blob:
    def __init__(self, data):
        self.data = data
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.git_oid = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class Hub:
    def __init__(self, shared, token):
        self.token = token
        read = lambda name: Blob(open(os.path.join(shared, name), "rb").read())
        demo = read("kjv-demo-f16.gguf")
        stories = read("stories260K.gguf")
        readme = Blob(b"# kjv demo\nA tiny model trained on the King James Bible.\n")
        big = Blob(with_big_metadata(demo.data, BIG_HEADER_EXTRA))
        mamba = Blob(mamba_tiny())
        # repo -> {"files": {path: Blob}, "fault": ..., "tree": [extra entries]}
        self.repos = {
            "kvchat/kjv-demo-GGUF": {"files": {"kjv-demo-f16.gguf": demo, "README.md": readme}},
            "kvchat/stories260K-GGUF": {"files": {"stories260K.gguf": stories}},
            "kvchat/gated-GGUF": {"files": {"kjv-demo-f16.gguf": demo}, "gated": True},
            "kvchat/big-header-GGUF": {"files": {"big-header.gguf": big}},
            "kvchat/unsupported-GGUF": {"files": {"mamba-tiny.gguf": mamba}},
            "kvchat/traversal-GGUF": {
                "files": {"kjv-demo-f16.gguf": demo, "../../evil.gguf": demo,
                          "/etc/evil.gguf": demo}},
            "kvchat/wrong-hash-GGUF": {"files": {"kjv-demo-f16.gguf": demo}, "wrong_hash": True},
            "kvchat/drop-GGUF": {"files": {"kjv-demo-f16.gguf": demo}, "drop": DROP_AFTER},
            "kvchat/slow-GGUF": {"files": {"kjv-demo-f16.gguf": demo}, "slow": True},
            "kvchat/ratelimit-GGUF": {"files": {"kjv-demo-f16.gguf": demo}, "ratelimit": True},
        }
        self.lock = threading.Lock()
        self.seen = set()  # (fault, path) pairs already served once
        self.requests = []

    def first_time(self, kind, path):
        with self.lock:
            if (kind, path) in self.seen:
                return False
            self.seen.add((kind, path))
            return True


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-hub/1"

    def log_message(self, fmt, *args):  # quiet: tests read stdout for the port only
        pass

    @property
    def hub(self):
        return self.server.hub

    def do_HEAD(self):
        self.handle_request(head=True)

    def do_GET(self):
        self.handle_request(head=False)

    # --- answers -----------------------------------------------------------------------
    def send_json(self, status, obj, headers=None, head=False):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def send_error_json(self, status, message, headers=None, head=False):
        self.send_json(status, {"error": message}, headers, head)

    def authorized(self):
        return self.headers.get("Authorization", "") == "Bearer " + self.hub.token

    # --- routing -----------------------------------------------------------------------
    def handle_request(self, head):
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query)
        path = urllib.parse.unquote(url.path)
        with self.hub.lock:
            self.hub.requests.append({
                "method": self.command, "path": self.path,
                "range": self.headers.get("Range"),
                "if_range": self.headers.get("If-Range"),
                "authorization": "Authorization" in self.headers})
        fault = (query.get("fault") or [""])[0]
        if fault == "hang":
            time.sleep(3600)
            return
        if fault == "404":
            return self.send_error_json(404, "Repository not found", head=head)
        if fault == "401":
            return self.send_error_json(401, "Invalid credentials in Authorization header",
                                        head=head)
        if fault == "500":
            return self.send_error_json(500, "Internal Error", head=head)
        if fault == "429always" or (fault == "429" and self.hub.first_time("429", self.path)):
            return self.send_error_json(429, "Too Many Requests", {"Retry-After": "1"}, head)

        if path == "/__requests":
            with self.hub.lock:
                return self.send_json(200, list(self.hub.requests), head=head)
        if path == "/api/models":
            return self.search(query, head)
        if path.startswith("/api/models/"):
            rest = path[len("/api/models/"):]
            marker = "/tree/main"
            if rest.endswith(marker) or rest.endswith(marker + "/"):
                return self.tree(rest[:rest.rindex(marker)], head)
            return self.send_error_json(404, "Not found", head=head)
        if path.startswith("/cdn/"):
            return self.cdn(path[len("/cdn/"):], fault, head)
        if "/resolve/main/" in path:
            repo, file = path[1:].split("/resolve/main/", 1)
            return self.resolve(repo, file, url.query, head)
        return self.send_error_json(404, "Not found", head=head)

    def repo_or_error(self, repo, head):
        r = self.hub.repos.get(repo)
        if r is None:
            self.send_error_json(404, "Repository not found", {"X-Error-Code": "RepoNotFound"},
                                 head)
            return None
        if r.get("gated") and not self.authorized():
            self.send_error_json(
                401, "Access to model %s is restricted. You must have access to it and be "
                "authenticated to access it. Please log in." % repo,
                {"X-Error-Code": "GatedRepo"}, head)
            return None
        if r.get("ratelimit") and self.hub.first_time("ratelimit", self.path):
            self.send_error_json(429, "Too Many Requests", {"Retry-After": "1"}, head)
            return None
        return r

    def search(self, query, head):
        q = (query.get("search") or [""])[0].lower()
        limit = int((query.get("limit") or ["50"])[0])
        out = []
        for repo_id, r in sorted(self.hub.repos.items()):
            if q and q not in repo_id.lower():
                continue
            out.append({
                "_id": hashlib.md5(repo_id.encode()).hexdigest()[:24],
                "id": repo_id, "modelId": repo_id,
                "likes": len(repo_id), "downloads": 1000 + 7 * len(repo_id),
                "private": False, "gated": "manual" if r.get("gated") else False,
                "pipeline_tag": "text-generation", "library_name": "gguf",
                "tags": ["gguf", "text-generation"],
                "createdAt": "2026-01-02T03:04:05.000Z",
                "lastModified": "2026-02-03T04:05:06.000Z",
            })
        self.send_json(200, out[:limit], head=head)

    def tree(self, repo, head):
        r = self.repo_or_error(repo, head)
        if r is None:
            return
        out = []
        for name, blob in r["files"].items():
            entry = {"type": "file", "oid": blob.git_oid, "size": len(blob.data), "path": name}
            if name.endswith(".gguf"):
                sha = blob.sha256
                if r.get("wrong_hash"):
                    sha = hashlib.sha256(b"not the file").hexdigest()
                entry["lfs"] = {"oid": sha, "size": len(blob.data), "pointerSize": 134}
            out.append(entry)
        self.send_json(200, out, head=head)

    def resolve(self, repo, file, query, head):
        r = self.repo_or_error(repo, head)
        if r is None:
            return
        blob = r["files"].get(file)
        if blob is None:
            return self.send_error_json(404, "Entry not found", {"X-Error-Code": "EntryNotFound"},
                                        head)
        # ?cdn=ORIGIN: redirect to another origin (a CDN), e.g. http://localhost:PORT.
        params = urllib.parse.parse_qs(query)
        origin = (params.pop("cdn", None) or [""])[0]
        location = origin + "/cdn/" + urllib.parse.quote(repo) + "/" + urllib.parse.quote(file)
        if params:
            location += "?" + urllib.parse.urlencode(params, doseq=True)
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("X-Linked-Size", str(len(blob.data)))
        self.send_header("X-Linked-Etag", '"%s"' % blob.sha256)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def cdn(self, rest, fault, head):
        repo, file = None, None
        for repo_id in self.hub.repos:
            if rest.startswith(repo_id + "/"):
                repo, file = repo_id, rest[len(repo_id) + 1:]
        r = self.hub.repos.get(repo) if repo else None
        blob = r["files"].get(file) if r else None
        if blob is None:
            return self.send_error_json(404, "Entry not found", head=head)
        data = blob.data
        size = len(data)
        etag = '"%s"' % blob.sha256
        start, end, status = 0, size - 1, 200
        rng = None if fault == "norange" else self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        if rng and (if_range is None or if_range == etag):
            try:
                unit, spec = rng.split("=", 1)
                a, b = spec.split("-", 1)
                if unit.strip() != "bytes" or "," in spec:
                    raise ValueError
                if a == "":
                    start, end = max(0, size - int(b)), size - 1
                else:
                    start = int(a)
                    end = min(int(b), size - 1) if b else size - 1
            except ValueError:
                start, end = 0, size - 1
            else:
                if start >= size or start > end:
                    self.send_response(416)
                    self.send_header("Content-Range", "bytes */%d" % size)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                status = 206
        body_len = end - start + 1
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(body_len))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", etag)
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        self.end_headers()
        if head:
            return
        drop = None
        if fault.startswith("drop:"):
            drop = int(fault[5:])
        elif r.get("drop") and start == 0 and self.hub.first_time("drop", self.path):
            drop = r["drop"]
        slow = fault == "slow" or r.get("slow")
        self.send_body(data, start, body_len, drop, slow)

    def send_body(self, data, start, length, drop, slow):
        chunk = 4096 if slow else 1 << 16
        sent = 0
        try:
            while sent < length:
                n = min(chunk, length - sent)
                if drop is not None and sent + n > drop:
                    n = drop - sent
                self.wfile.write(data[start + sent:start + sent + n])
                sent += n
                if drop is not None and sent >= drop:
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if slow:
                    self.wfile.flush()
                    time.sleep(chunk / TRICKLE_BYTES_PER_SECOND)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):  # a client that went away is normal
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", required=True, help="directory with the shared GGUF files")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token", default=DEFAULT_TOKEN)
    args = parser.parse_args()
    server = Server(("127.0.0.1", args.port), Handler)
    server.hub = Hub(os.path.join(args.shared, "models") if os.path.isdir(
        os.path.join(args.shared, "models")) else args.shared, args.token)
    print(server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
