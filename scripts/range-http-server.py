#!/usr/bin/env python3
"""A static file server for the end-to-end tests that answers Range requests (206), which
python's http.server does not: HLS byte-range segments (EXT-X-BYTERANGE) need them.

Usage: range-http-server.py DIRECTORY   (binds 127.0.0.1 on a free port and prints it)
"""
import http.server
import os
import re
import sys


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    def send_head(self):
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        path = self.translate_path(self.path)
        if not match or not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        start = int(match.group(1))
        end = min(int(match.group(2)) if match.group(2) else size - 1, size - 1)
        if start > end:
            self.send_error(416, "Requested Range Not Satisfiable")
            return None
        handle = open(path, "rb")
        handle.seek(start)
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        self.range_left = end - start + 1
        return handle

    def copyfile(self, source, outputfile):
        left = getattr(self, "range_left", None)
        if left is None:
            return super().copyfile(source, outputfile)
        while left > 0:
            chunk = source.read(min(65536, left))
            if not chunk:
                break
            outputfile.write(chunk)
            left -= len(chunk)

    def log_message(self, format, *args):
        pass  # quiet: the tests read only the startup line


if __name__ == "__main__":
    directory = sys.argv[1]
    handler = lambda *args, **kwargs: RangeHandler(*args, directory=directory, **kwargs)
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        print(f"Serving HTTP on 127.0.0.1 port {server.server_address[1]}", flush=True)
        server.serve_forever()
