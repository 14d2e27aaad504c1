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
                                                      host: its Host header, range,
                                                      if_range, authorization: whether it
                                                      had one, bearer: whether that was a
                                                      Bearer token)

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
Hostile repositories, left out of the search (it lists the ten above):
    kvchat/endless-GGUF        the tree is an endless chunked JSON array, sent as fast as
                               the client reads
    kvchat/hostile-name-GGUF   hostile-name.gguf: kjv-demo-f16.gguf whose general.name is
                               60 MB of text after terminal escapes, markup and controls
    kvchat/hostile-arch-GGUF   hostile-arch.gguf: the mamba file with an architecture name
                               made of terminal escapes and markup
Repositories whose connections are cut (kjv-demo-f16.gguf, header 48,960 bytes), left out
of the search too:
    kvchat/cut-after-header-GGUF  every GET is cut after 64 KiB of body: the whole header
                                  arrives in a first range of 1 MiB, the range does not
    kvchat/cut-mid-header-GGUF    the first GET of each path is cut after 20,000 bytes of
                                  body (inside the header); the next ones are whole
    kvchat/cut-always-GGUF        every GET is cut after 4,096 bytes of body (a reader that
                                  resumes a few times still lacks most of the header)
Any other repository is 404.

Hostile searches (the `search` query): "endless" answers an endless chunked JSON array;
"huge-length" announces a Content-Length of 1 TB (and sends a few bytes); "hostile"
lists ids with terminal escapes, markup, a right-to-left override and 1 MB of text,
next to one good id (kvchat/kjv-demo-GGUF).

Fault modes by query, on any path: ?fault=404 | 401 | 416 | 429 (once per path) |
429always | 500 | drop:N (drop after N body bytes, every time) | dropfirst:N (drop after N
body bytes the first time this path and query are asked for, then serve whole) | stall:N (after N body
bytes send nothing more, keeping the connection open) | slow | hang (never answers) |
norange (the file is served whole, Range ignored); several joined by commas
(?fault=norange,drop:1048576). A resolve passes its query on to the redirect, so the
faults reach the file itself; ?cdn=ORIGIN sends that redirect to ORIGIN, any form of it
(another port, http://user@127.0.0.1:PORT, http://2130706433:PORT, http://localhost:PORT).
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
CUT_AFTER_HEADER = 64 << 10  # past the demo model's header (48,960 bytes), inside 1 MiB
CUT_MID_HEADER = 20000       # inside the demo model's header
CUT_ALWAYS = 4096            # every response: a few resumes do not reach the header's end
TRICKLE_BYTES_PER_SECOND = 64 << 10
HOSTILE_NAME_BYTES = 60 * 1000 * 1000
# No NUL: printf("%s") would stop there and hide a flood.
HOSTILE_TEXT = "\x1b[31mred\x1b]0;owned\x07<b>bold</b><img src=x>\u202eevil\r\n\x7f"


def gguf_kv_end(data, off, vtype):
    """The offset after a GGUF metadata value of type `vtype` at `off`."""
    fixed = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
    if vtype in fixed:
        return off + fixed[vtype]
    if vtype == 8:
        return off + 8 + struct.unpack_from("<Q", data, off)[0]
    if vtype == 9:
        item, count = struct.unpack_from("<IQ", data, off)
        off += 12
        for _ in range(count):
            off = gguf_kv_end(data, off, item)
        return off
    raise ValueError("GGUF value type %d" % vtype)


def with_string_value(data, key, value):
    """The GGUF `data` with the string `key` set to `value` (bytes), padded with spaces so
    that the file grows by a multiple of 4096 bytes and the tensor data stays aligned."""
    n_kv = struct.unpack_from("<Q", data, 16)[0]
    off = 24
    for _ in range(n_kv):
        klen = struct.unpack_from("<Q", data, off)[0]
        name = data[off + 8:off + 8 + klen].decode()
        voff = off + 8 + klen + 4
        vtype = struct.unpack_from("<I", data, voff - 4)[0]
        end = gguf_kv_end(data, voff, vtype)
        if name == key:
            assert vtype == 8
            old = end - voff
            grow = (8 + len(value) - old) % 4096
            value += b" " * ((4096 - grow) % 4096)
            return data[:voff] + struct.pack("<Q", len(value)) + value + data[end:]
        off = end
    raise KeyError(key)


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


def mamba_tiny(arch="mamba"):
    """A small well-formed GGUF v3 of architecture `arch` (one F32 tensor)."""
    kvs = [
        ("general.architecture", 8, gguf_string(arch)),
        ("general.name", 8, gguf_string("mamba tiny")),
        (arch + ".block_count", 4, struct.pack("<I", 2)),
        (arch + ".embedding_length", 4, struct.pack("<I", 64)),
        (arch + ".context_length", 4, struct.pack("<I", 1024)),
    ]
    out = struct.pack("<IIQQ", 0x46554747, 3, 1, len(kvs))
    for key, vtype, payload in kvs:
        out += gguf_string(key) + struct.pack("<I", vtype) + payload
    out += gguf_string("token_embd.weight") + struct.pack("<I", 2) + struct.pack("<QQ", 64, 4)
    out += struct.pack("<I", 0) + struct.pack("<Q", 0)  # F32, offset 0
    out += b"\0" * ((32 - len(out) % 32) % 32)
    return out + b"\0" * (64 * 4 * 4)


class Blob:
    """A file's bytes and hashes; `data` may be a function, called when first needed (a
    hostile 60 MB file costs nothing to the tests that never ask for it)."""

    def __init__(self, data):
        self._data = data
        self._lock = threading.Lock()

    @property
    def data(self):
        with self._lock:
            if callable(self._data):
                self._data = self._data()
            return self._data

    @property
    def sha256(self):
        if not hasattr(self, "_sha256"):
            self._sha256 = hashlib.sha256(self.data).hexdigest()
        return self._sha256

    @property
    def git_oid(self):
        if not hasattr(self, "_git_oid"):
            self._git_oid = hashlib.sha1(b"blob %d\0" % len(self.data) + self.data).hexdigest()
        return self._git_oid


class Hub:
    def __init__(self, shared, token):
        self.token = token
        read = lambda name: Blob(open(os.path.join(shared, name), "rb").read())
        demo = read("kjv-demo-f16.gguf")
        stories = read("stories260K.gguf")
        readme = Blob(b"# kjv demo\nA tiny model trained on the King James Bible.\n")
        big = Blob(with_big_metadata(demo.data, BIG_HEADER_EXTRA))
        mamba = Blob(mamba_tiny())
        hostile_named = Blob(lambda: with_string_value(
            demo.data, "general.name", (HOSTILE_TEXT + "N" * HOSTILE_NAME_BYTES).encode()))
        hostile_arch = Blob(mamba_tiny("mamba" + HOSTILE_TEXT))
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
            "kvchat/endless-GGUF": {"files": {}, "endless": True, "hidden": True},
            "kvchat/hostile-name-GGUF": {"files": {"hostile-name.gguf": hostile_named},
                                         "hidden": True},
            "kvchat/hostile-arch-GGUF": {"files": {"hostile-arch.gguf": hostile_arch},
                                         "hidden": True},
            "kvchat/cut-after-header-GGUF": {"files": {"kjv-demo-f16.gguf": demo},
                                             "cut": CUT_AFTER_HEADER, "hidden": True},
            "kvchat/cut-mid-header-GGUF": {"files": {"kjv-demo-f16.gguf": demo},
                                           "cut": CUT_MID_HEADER, "cut_once": True,
                                           "hidden": True},
            "kvchat/cut-always-GGUF": {"files": {"kjv-demo-f16.gguf": demo},
                                       "cut": CUT_ALWAYS, "hidden": True},
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

    def send_endless_json(self, item, head=False):
        """An endless JSON array of `item`, chunked, in 1 MiB chunks as fast as the client
        reads them (until it goes away)."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if head:
            return
        one = json.dumps(item).encode() + b","
        chunk = b"[" + one * ((1 << 20) // len(one))
        framed = b"%x\r\n%s\r\n" % (len(chunk), chunk)
        chunk = one * ((1 << 20) // len(one))
        framed_rest = b"%x\r\n%s\r\n" % (len(chunk), chunk)
        try:
            self.wfile.write(framed)
            while True:
                self.wfile.write(framed_rest)
        except (BrokenPipeError, ConnectionResetError, OSError):
            self.close_connection = True

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
                "host": self.headers.get("Host"),
                "range": self.headers.get("Range"),
                "if_range": self.headers.get("If-Range"),
                "authorization": "Authorization" in self.headers,
                "bearer": self.headers.get("Authorization", "").startswith("Bearer ")})
        faults = set((query.get("fault") or [""])[0].split(","))
        if "hang" in faults:
            time.sleep(3600)
            return
        if "404" in faults:
            return self.send_error_json(404, "Repository not found", head=head)
        if "401" in faults:
            return self.send_error_json(401, "Invalid credentials in Authorization header",
                                        head=head)
        if "416" in faults:
            self.send_response(416)
            self.send_header("Content-Range", "bytes */0")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if "500" in faults:
            return self.send_error_json(500, "Internal Error", head=head)
        if "429always" in faults or ("429" in faults and self.hub.first_time("429", self.path)):
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
            return self.cdn(path[len("/cdn/"):], faults, head)
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
        if q == "endless":
            return self.send_endless_json(self.model_entry("kvchat/endless-GGUF", {}), head)
        if q == "huge-length":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(10 ** 12))
            self.end_headers()
            if not head:
                self.wfile.write(b"[")
                self.wfile.flush()
                time.sleep(5)
            self.close_connection = True
            return
        if q == "hostile":
            ids = ["kvchat/kjv-demo-GGUF", "kvchat/" + HOSTILE_TEXT, "<b>kvchat</b>/x",
                   "kvchat/" + "x" * (1 << 20) + HOSTILE_TEXT]
            return self.send_json(200, [self.model_entry(i, {}) for i in ids], head=head)
        out = []
        for repo_id, r in sorted(self.hub.repos.items()):
            if (q and q not in repo_id.lower()) or r.get("hidden"):
                continue
            out.append(self.model_entry(repo_id, r))
        self.send_json(200, out[:limit], head=head)

    def model_entry(self, repo_id, r):
        return {
                "_id": hashlib.md5(repo_id.encode()).hexdigest()[:24],
                "id": repo_id, "modelId": repo_id,
                "likes": len(repo_id), "downloads": 1000 + 7 * len(repo_id),
                "private": False, "gated": "manual" if r.get("gated") else False,
                "pipeline_tag": "text-generation", "library_name": "gguf",
                "tags": ["gguf", "text-generation"],
                "createdAt": "2026-01-02T03:04:05.000Z",
                "lastModified": "2026-02-03T04:05:06.000Z",
            }

    def tree(self, repo, head):
        r = self.repo_or_error(repo, head)
        if r is None:
            return
        if r.get("endless"):
            return self.send_endless_json(
                {"type": "file", "oid": "0" * 40, "size": 1, "path": "endless.gguf"}, head)
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

    def cdn(self, rest, faults, head):
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
        rng = None if "norange" in faults else self.headers.get("Range")
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
        drop, stall = None, None
        for f in faults:
            if f.startswith("drop:"):
                drop = int(f[5:])
            if f.startswith("dropfirst:") and self.hub.first_time("dropfirst", self.path):
                drop = int(f[10:])
            if f.startswith("stall:"):
                stall = int(f[6:])
        if drop is None and r.get("drop") and start == 0 and self.hub.first_time("drop", self.path):
            drop = r["drop"]
        if drop is None and r.get("cut") and (not r.get("cut_once")
                                              or self.hub.first_time("cut", self.path)):
            drop = r["cut"]
        slow = "slow" in faults or r.get("slow")
        self.send_body(data, start, body_len, drop, slow, stall)

    def send_body(self, data, start, length, drop, slow, stall=None):
        chunk = 4096 if slow else 1 << 16
        sent = 0
        try:
            while sent < length:
                n = min(chunk, length - sent)
                if drop is not None and sent + n > drop:
                    n = drop - sent
                if stall is not None and sent + n > stall:
                    n = stall - sent
                self.wfile.write(data[start + sent:start + sent + n])
                sent += n
                if drop is not None and sent >= drop:
                    self.wfile.flush()
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if stall is not None and sent >= stall:
                    self.wfile.flush()
                    time.sleep(3600)  # the connection stays open, silent
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
