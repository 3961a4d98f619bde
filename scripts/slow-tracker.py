#!/usr/bin/env python3
"""A tracking server that answers every request `204 No Content` after DELAY milliseconds, on
HTTP/1.1 keep-alive connections (scripts/bench-beacons.sh with TRACKER_MS): what firing beacons
against a slow tracker costs. `GET /__hits` answers at once with the number of other requests.

Usage: slow-tracker.py PORT DELAY_MS
"""
import asyncio
import sys

port, delay = int(sys.argv[1]), int(sys.argv[2]) / 1000
hits = 0


class Tracker(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""

    def data_received(self, data):
        global hits
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
            if head.startswith(b"GET /__hits "):
                body = str(hits).encode()
                self.transport.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body))
                continue
            hits += 1
            # One request at a time per connection (no client here pipelines): answered in order.
            asyncio.get_running_loop().call_later(delay, self.answer)

    def answer(self):
        if not self.transport.is_closing():
            self.transport.write(b"HTTP/1.1 204 No Content\r\n\r\n")


async def main():
    server = await asyncio.get_running_loop().create_server(Tracker, "127.0.0.1", port, backlog=4096)
    async with server:
        await server.serve_forever()


asyncio.run(main())
