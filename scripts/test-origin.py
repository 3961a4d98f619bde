#!/usr/bin/env python3
"""The origin the tests run on loopback: a static file server over a folder that answers Range
requests (206; HLS byte-range segments need them, python's http.server ignores them), sends
validators (ETag, Last-Modified) and answers conditional requests with 304, allows any page to
read its answers (Access-Control-Allow-Origin: *, as a CDN for web players does), and injects the
faults the origin tests need through path prefixes:

  /_/status/CODE/PATH       answers CODE (no body)
  /_/fail/N/KEY/PATH        the first N requests with this KEY answer 500, later ones serve PATH
  /_/slow/MS/PATH           waits MS milliseconds, then serves PATH
  /_/truncate/PATH          declares PATH's length, sends half of it and closes the connection
  /_/drip/BPS/PATH          serves PATH at BPS bytes a second (an origin that crawls)
  /_/redirect/N/PATH        N redirects (302, relative Location), then serves PATH
  /_/loop/PATH              redirects to itself
  /_/agent                  answers the request's User-Agent
  /_/hits                   answers {"path": requests, ...} for every other path so far (JSON)

Usage: test-origin.py DIRECTORY [PORT]   (binds 127.0.0.1 on PORT, else a free port, and prints it)
"""
import email.utils
import http.server
import json
import os
import re
import sys
import threading
import time
import urllib.parse

HITS = {}
FAILURES = {}
LOCK = threading.Lock()


class OriginHandler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.serve(send_body=True)

    def do_HEAD(self):
        self.serve(send_body=False)

    def serve(self, send_body):
        path = urllib.parse.urlsplit(self.path).path
        if path != "/_/hits":
            with LOCK:
                HITS[path] = HITS.get(path, 0) + 1
        fault = re.fullmatch(r"/_/([a-z]+)/(.*)", path)
        if path == "/_/hits":
            with LOCK:
                return self.answer(200, json.dumps(HITS).encode(), "application/json", send_body)
        if path == "/_/agent":
            return self.answer(200, self.headers.get("User-Agent", "").encode(), "text/plain", send_body)
        if not fault:
            return self.serve_file(path, send_body)
        kind, rest = fault.groups()
        if kind == "status":
            code, _, _ = rest.partition("/")
            return self.answer(int(code), b"", "text/plain", send_body)
        if kind == "fail":
            count, key, target = rest.split("/", 2)
            with LOCK:
                seen = FAILURES.get(key, 0)
                FAILURES[key] = seen + 1
            if seen < int(count):
                return self.answer(500, b"", "text/plain", send_body)
            return self.serve_file("/" + target, send_body)
        if kind == "slow":
            delay, _, target = rest.partition("/")
            time.sleep(int(delay) / 1000)
            return self.serve_file("/" + target, send_body)
        if kind == "truncate":
            return self.serve_file("/" + rest, send_body, truncate=True)
        if kind == "drip":
            rate, _, target = rest.partition("/")
            return self.serve_file("/" + target, send_body, rate=int(rate))
        if kind == "redirect":
            count, _, target = rest.partition("/")
            location = f"/_/redirect/{int(count) - 1}/{target}" if int(count) > 0 else "/" + target
            return self.redirect(location)
        if kind == "loop":
            return self.redirect(path)
        return self.answer(404, b"", "text/plain", send_body)

    def redirect(self, location):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def answer(self, status, body, content_type, send_body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def serve_file(self, path, send_body, truncate=False, rate=None):
        local = self.translate_path(path)
        if not os.path.isfile(local):
            return self.answer(404, b"", "text/plain", send_body)
        status = os.stat(local)
        etag = f'"{status.st_mtime_ns:x}-{status.st_size:x}"'
        modified = email.utils.formatdate(status.st_mtime, usegmt=True)
        if self.headers.get("If-None-Match") == etag or (
            "If-None-Match" not in self.headers and self.headers.get("If-Modified-Since") == modified
        ):
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", modified)
            self.end_headers()
            return
        size = status.st_size
        start, end, code = 0, size - 1, 200
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if match:
            start = int(match.group(1))
            end = min(int(match.group(2)) if match.group(2) else size - 1, size - 1)
            if start > end:
                return self.answer(416, b"", "text/plain", send_body)
            code = 206
        self.send_response(code)
        self.send_header("Content-Type", self.guess_type(local))
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", modified)
        if code == 206:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        if not send_body:
            return
        left = end - start + 1
        if truncate:
            left //= 2
            self.close_connection = True
        with open(local, "rb") as handle:
            handle.seek(start)
            while left > 0:
                chunk = handle.read(min(rate or 65536, left))
                if not chunk:
                    break
                try:
                    self.wfile.write(chunk)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return
                left -= len(chunk)
                if rate:
                    time.sleep(1)

    def end_headers(self):
        # As a CDN serving web players does: pages on other hosts may read the media (keys too).
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def guess_type(self, path):
        if path.endswith(".m3u8"):
            return "application/vnd.apple.mpegurl"
        return super().guess_type(path)

    def log_message(self, format, *args):
        pass  # quiet: the tests read only the startup line


if __name__ == "__main__":
    directory = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    handler = lambda *args, **kwargs: OriginHandler(*args, directory=directory, **kwargs)
    http.server.ThreadingHTTPServer.daemon_threads = True
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"Serving HTTP on 127.0.0.1 port {server.server_address[1]}", flush=True)
        server.serve_forever()
