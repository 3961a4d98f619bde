#!/usr/bin/env python3
"""A live HLS origin for tests and the demo (docs/design-decisions.md "Live"): a sliding window over a VOD encode played
in a loop, as a packager would serve a channel, driven by the clock.

The channel starts at --epoch (unix seconds; replicas of a test given the same epoch serve the
same channel). Origin segment n plays source segment n mod M of each variant (M segments in the
source), with EXT-X-DISCONTINUITY where the loop wraps, every segment dated
(EXT-X-PROGRAM-DATE-TIME = epoch + its start). A segment is published once the channel clock
passes its end; each media playlist holds the last --window published segments, with
EXT-X-MEDIA-SEQUENCE and EXT-X-DISCONTINUITY-SEQUENCE as RFC 8216bis §6.2.2 defines them
(each grows by exactly what left the window).

Ad breaks, every --break-every segments from --first-break, --break-length segments long,
alternate between the two marker styles packagers write:

  even breaks  #EXT-X-CUE-OUT:DURATION=D, #EXT-X-CUE-OUT-CONT:ElapsedTime=…,Duration=D, #EXT-X-CUE-IN
  odd breaks   #EXT-X-DATERANGE:ID="splice-<event>",START-DATE=…,PLANNED-DURATION=D,SCTE35-OUT=0x…
               (an SCTE-35 splice_insert, out of network, with its break duration and CRC-32) and,
               where it ends, #EXT-X-DATERANGE with the same ID, DURATION=D, SCTE35-IN=0x…

--early-break K: break K (0 the first) announces three segments more than it lasts — it ends
early, as a live event's break that returns to the programme before its slot is over.

--speed S runs the channel clock S times faster than the wall clock (tests that check the
sliding window need not wait minutes). --date-offset SECONDS moves every date that far from the
channel's clock (an encoder's clock set wrong, or dates that are content time: -10800 is three
hours behind). Faults, for the poller's tests:

  /_/stall/SECONDS          the window stops advancing for SECONDS (wall clock) from now
  /_/fail/SECONDS           every playlist answers 503 for SECONDS from now
                            (0 ends the fault now: tests hold a long fault and end it
                            themselves, so a busy machine's delays cannot outlast it)

Paths: /master.m3u8, /<variant>/index.m3u8 (the source's variant folders), the source's
segments (/<variant>/seg_….ts) as files.

Usage: live-origin.py [--source DIR] [--epoch SECONDS] [--window N] [--first-break N]
                      [--break-every N] [--break-length N] [--speed S] [--date-offset SECONDS]
       binds 127.0.0.1 on a free port (or --port) and prints "Serving HTTP on 127.0.0.1 port N".
"""
import argparse
import datetime
import http.server
import os
import re
import struct
import sys
import threading
import time
import urllib.parse

LOCK = threading.Lock()
STALL = {"from": None, "until": 0.0, "frozen": None}
FAIL = {"until": 0.0}


def crc32_mpeg2(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else (crc << 1)
            crc &= 0xFFFFFFFF
    return crc


def splice_insert(event_id, out, duration_seconds):
    """An SCTE-35 splice_info_section (ANSI/SCTE 35 §9.2) carrying splice_insert (§9.7.3):
    program splice, immediate, with a break duration (auto return) when going out."""
    command = struct.pack(">I", event_id)
    command += bytes([0x7F])  # splice_event_cancel_indicator 0, reserved
    has_duration = out and duration_seconds is not None
    flags = (0x80 if out else 0) | 0x40 | (0x20 if has_duration else 0) | 0x10 | 0x08 | 0x07
    command += bytes([flags])  # out_of_network, program_splice, duration, immediate, compliance, reserved
    if has_duration:
        ticks = round(duration_seconds * 90000)
        command += bytes([0x80 | 0x7E | ((ticks >> 32) & 1)]) + struct.pack(">I", ticks & 0xFFFFFFFF)
    command += struct.pack(">HBB", 1, 0, 0)  # unique_program_id, avail_num, avails_expected
    body = bytes([0x00])  # protocol_version
    body += bytes([0x00, 0x00, 0x00, 0x00, 0x00])  # encrypted 0, algorithm 0, pts_adjustment 0
    body += bytes([0x00])  # cw_index
    body += struct.pack(">H", 0xFFF0 | ((len(command) >> 8) & 0x0F))  # tier 0xFFF, command length (12 bits)
    body += bytes([len(command) & 0xFF, 0x05]) + command  # splice_command_type 5
    body += struct.pack(">H", 0)  # descriptor_loop_length
    section_length = len(body) + 4
    head = bytes([0xFC, 0x30 | ((section_length >> 8) & 0x0F), section_length & 0xFF])
    section = head + body
    return "0x" + (section + struct.pack(">I", crc32_mpeg2(section))).hex().upper()


def iso(seconds):
    stamp = datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (round(seconds * 1000) % 1000)


class Channel:
    def __init__(self, args):
        self.args = args
        self.source = os.path.abspath(args.source)
        master = open(os.path.join(self.source, "master.m3u8")).read()
        self.master = master
        self.variants = {}
        for line in master.splitlines():
            if line and not line.startswith("#"):
                self.variants[line.split("/")[0]] = self.read_variant(os.path.join(self.source, line))
        first = next(iter(self.variants.values()))
        self.loop = len(first)
        # Exact times in microseconds: the first variant's durations give the channel's clock.
        self.durations = [round(float(duration) * 1_000_000) for duration, _ in first]
        self.loop_length = sum(self.durations)

    @staticmethod
    def read_variant(path):
        segments, duration = [], None
        for line in open(path).read().splitlines():
            if line.startswith("#EXTINF:"):
                duration = line[len("#EXTINF:"):].split(",")[0]
            elif line and not line.startswith("#"):
                segments.append((duration, os.path.dirname(path).split(os.sep)[-1] + "/" + line))
        return segments

    def start(self, n):
        """Microseconds from the epoch to the start of origin segment n."""
        loops, index = divmod(n, self.loop)
        return loops * self.loop_length + sum(self.durations[:index])

    def date(self, n):
        """Origin segment n's EXT-X-PROGRAM-DATE-TIME: the epoch plus its start, plus --date-offset."""
        return self.args.epoch + self.args.date_offset + self.start(n) / 1_000_000

    def clock(self):
        """Channel microseconds now (frozen while a stall lasts)."""
        now = time.time()
        with LOCK:
            if STALL["from"] is not None and now < STALL["until"]:
                now = STALL["from"]
            elif STALL["from"] is not None:
                STALL["from"] = None
        return max(0, round((now - self.args.epoch) * self.args.speed * 1_000_000))

    def published(self):
        """The number of segments published by now."""
        now, count = self.clock(), 0
        loops = now // self.loop_length
        count, rest = loops * self.loop, now - loops * self.loop_length
        for duration in self.durations:
            if rest < duration:
                break
            rest -= duration
            count += 1
        return count

    def break_of(self, n):
        """(break number, position in it) when origin segment n is in a break, else None."""
        args = self.args
        if n < args.first_break:
            return None
        number, position = divmod(n - args.first_break, args.break_every)
        return (number, position) if position < args.break_length else None

    def break_duration(self, number):
        first = self.args.first_break + number * self.args.break_every
        return (self.start(first + self.args.break_length) - self.start(first)) / 1_000_000

    def announced_duration(self, number):
        """What the break's opening marker announces: its duration, but for --early-break, three
        segments more — it ends before (an early return)."""
        if number != self.args.early_break:
            return self.break_duration(number)
        first = self.args.first_break + number * self.args.break_every
        return (self.start(first + self.args.break_length + 3) - self.start(first)) / 1_000_000

    def playlist(self, variant):
        segments = self.variants[variant]
        published = self.published()
        first = max(0, published - self.args.window)
        lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:3",
            "#EXT-X-TARGETDURATION:%d" % max(round(float(d)) for d, _ in segments),
            "#EXT-X-MEDIA-SEQUENCE:%d" % first,
            # RFC 8216bis §6.2.2: it grows as each EXT-X-DISCONTINUITY leaves the window, so it
            # counts the wraps before the first segment (a wrap on the first segment still has its tag).
            "#EXT-X-DISCONTINUITY-SEQUENCE:%d" % ((first - 1) // self.loop if first > 0 else 0),
        ]
        for n in range(first, published):
            duration, uri = segments[n % self.loop]
            if n > 0 and n % self.loop == 0:
                lines.append("#EXT-X-DISCONTINUITY")
            # Channel time: with --speed, dates run as fast as the channel does.
            lines.append("#EXT-X-PROGRAM-DATE-TIME:" + iso(self.date(n)))
            lines += self.markers(n)
            lines.append("#EXTINF:%s," % duration)
            lines.append("/" + uri)
        return "\n".join(lines) + "\n"

    def markers(self, n):
        here, before = self.break_of(n), self.break_of(n - 1) if n > 0 else None
        lines = []
        # The break that ended with the previous segment: its closing marker stands on this one.
        if before is not None and (here is None or here[0] != before[0]):
            number = before[0]
            if number % 2 == 0:
                lines.append("#EXT-X-CUE-IN")
            else:
                first = self.args.first_break + number * self.args.break_every
                lines.append(
                    '#EXT-X-DATERANGE:ID="splice-%d",START-DATE="%s",DURATION=%s,SCTE35-IN=%s'
                    % (1000 + number, iso(self.date(first)), self.fmt(self.break_duration(number)),
                       splice_insert(1000 + number, False, None))
                )
        if here is None:
            return lines
        number, position = here
        duration = self.announced_duration(number)
        if number % 2 == 0:
            if position == 0:
                lines.append("#EXT-X-CUE-OUT:DURATION=%s" % self.fmt(duration))
            else:
                first = self.args.first_break + number * self.args.break_every
                elapsed = (self.start(n) - self.start(first)) / 1_000_000
                lines.append("#EXT-X-CUE-OUT-CONT:ElapsedTime=%s,Duration=%s" % (self.fmt(elapsed), self.fmt(duration)))
        elif position == 0:
            lines.append(
                '#EXT-X-DATERANGE:ID="splice-%d",START-DATE="%s",PLANNED-DURATION=%s,SCTE35-OUT=%s'
                % (1000 + number, iso(self.date(n)), self.fmt(duration),
                   splice_insert(1000 + number, True, duration))
            )
        return lines

    @staticmethod
    def fmt(seconds):
        return ("%.6f" % seconds).rstrip("0").rstrip(".")


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    channel = None

    def do_GET(self):
        path = urllib.parse.urlsplit(self.path).path
        fault = re.fullmatch(r"/_/(stall|fail)/([0-9.]+)", path)
        if fault:
            kind, seconds = fault.group(1), float(fault.group(2))
            with LOCK:
                if kind == "stall":
                    STALL["from"], STALL["until"] = time.time(), time.time() + seconds
                else:
                    FAIL["until"] = time.time() + seconds
            return self.answer(200, b"ok\n", "text/plain")
        if path.endswith(".m3u8") and time.time() < FAIL["until"]:
            return self.answer(503, b"", "text/plain")
        if path == "/master.m3u8":
            return self.answer(200, self.channel.master.encode(), "application/vnd.apple.mpegurl")
        playlist = re.fullmatch(r"/([^/]+)/index\.m3u8", path)
        if playlist and playlist.group(1) in self.channel.variants:
            body = self.channel.playlist(playlist.group(1)).encode()
            return self.answer(200, body, "application/vnd.apple.mpegurl", cache="max-age=1")
        file = os.path.normpath(os.path.join(self.channel.source, path.lstrip("/")))
        if file.startswith(self.channel.source + os.sep) and file.endswith(".ts") and os.path.isfile(file):
            return self.answer(200, open(file, "rb").read(), "video/mp2t", cache="max-age=86400")
        return self.answer(404, b"", "text/plain")

    def answer(self, status, body, content_type, cache="no-store"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=os.path.join(here, "..", "Campaigns", "single-asset", "media", "program"))
    parser.add_argument("--epoch", type=float, default=float(int(time.time())))
    parser.add_argument("--window", type=int, default=6)
    parser.add_argument("--first-break", type=int, default=5)
    parser.add_argument("--break-every", type=int, default=15)
    parser.add_argument("--break-length", type=int, default=4)
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--early-break", type=int, default=-1, help="this break (0 the first) announces 3 segments more than it lasts")
    parser.add_argument("--date-offset", type=float, default=0.0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    if args.break_length >= args.break_every:
        sys.exit("live-origin.py: --break-length must be below --break-every")
    Handler.channel = Channel(args)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print("Serving HTTP on 127.0.0.1 port %d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
