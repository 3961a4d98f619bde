#!/usr/bin/env bash
# `make soak`: `adstitch serve` (release) under wrk at 64 connections for SECONDS on the stitching
# path (2,000 sessions of the two-hour campaign in turn) and then on a cached answer (one
# session), while 2,000 more connections sit idle — half never finish a request head (closed at
# --header-timeout), half idle after one request (closed at --idle-timeout) and reconnect. Passes
# when no answer is non-2xx and RSS at the end is within 25 % of RSS after warm-up.
# Prints a Markdown report (also .build/soak.md) for docs/reliability.md.
#
# Usage: scripts/soak.sh [SECONDS per load, default 60]   Environment: IDLE (default 2000).
set -euo pipefail

cd "$(dirname "$0")/.."
seconds=${1:-60}
idle=${IDLE:-2000}
scripts/install-deps.sh wrk curl
# Room for the idle connections on both ends (and wrk's): raise the soft limit to the hard one.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((idle * 2 + 1024)) ]; then
    idle=$(( ($(ulimit -n) - 1024) / 2 ))
    echo "soak: the open-file limit allows $idle idle connections" >&2
fi

source scripts/bench-lib.sh
bench_workspace soak

source scripts/two-hour-campaign.sh "$work"
port=$(free_port)
"$binary" serve --campaigns "$work/campaigns" --port "$port" --secret soak --header-timeout 10 --idle-timeout 30 >"$work/server.log" 2>&1 &
server_pid=$!
wait_ready "$port" "$work/server.log"

# RSS every second.
( while kill -0 "$server_pid" 2>/dev/null; do awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status" >>"$work/rss"; sleep 1; done ) &
sampler_pid=$!

# The loads: 2,000 sessions' media playlists in turn (every request stitches), and one cached.
write_sessions "$port" "$work/sessions.lua" soak
one=$(curl -sf "http://127.0.0.1:$port/v1/campaigns/two-hours/master.m3u8?session=soak-one" | grep '/v3\.m3u8$')

# The idle connections, held (and re-opened when the server closes them) until told to stop.
cat >"$work/holder.py" <<'PY'
import selectors, socket, sys, time
port, count, stop_file, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
sel = selectors.DefaultSelector()
closed = {"half-head": 0, "idle": 0}
def open_one(kind):
    s = socket.create_connection(("127.0.0.1", port))
    s.setblocking(False)
    s.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n" if kind == "half-head" else b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    sel.register(s, selectors.EVENT_READ, kind)
for index in range(count):
    open_one("half-head" if index % 2 == 0 else "idle")
import os
while not os.path.exists(stop_file):
    for key, _ in sel.select(timeout=0.5):
        data = b""
        try:
            data = key.fileobj.recv(65536)
        except (ConnectionResetError, BlockingIOError):
            pass
        if not data:
            sel.unregister(key.fileobj); key.fileobj.close(); closed[key.data] += 1
            open_one(key.data)
with open(out, "w") as f:
    f.write(f"{closed['half-head']} {closed['idle']} {len(sel.get_map())}\n")
PY
python3 "$work/holder.py" "$port" "$idle" "$work/stop" "$work/holder.txt" &
holder_pid=$!
sleep 5

load() { # name [wrk options…] URL
    wrk -t2 -c64 -d"${seconds}s" --latency "${@:2}" >"$work/wrk-$1.txt"
}
wrk -t2 -c64 -d5s -s "$work/sessions.lua" "http://127.0.0.1:$port" >/dev/null   # warm-up
rss_warm=$(tail -1 "$work/rss")
load stitched -s "$work/sessions.lua" "http://127.0.0.1:$port"
load cached "http://127.0.0.1:$port/v1/campaigns/two-hours/$one"
touch "$work/stop"; wait "$holder_pid" || true; holder_pid=""
sleep 3
rss_end=$(tail -1 "$work/rss")
rss_peak=$(sort -n "$work/rss" | tail -1)
read -r closed_half closed_idle open_at_end <"$work/holder.txt"

failed=0
report_row() {
    local file="$work/wrk-$1.txt" requests rps p99 non2xx socket
    requests=$(awk '/requests in/ {print $1}' "$file")
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$file")
    p99=$(awk '$1 == "99%" {print $2}' "$file")
    non2xx=$(awk '/Non-2xx or 3xx responses:/ {print $5}' "$file"); non2xx=${non2xx:-0}
    socket=$(awk '/Socket errors:/ {print $0}' "$file" | sed 's/.*Socket errors: //'); socket=${socket:-none}
    [ "$non2xx" = 0 ] || failed=1
    echo "| $1 | $requests | $rps | $p99 | $non2xx | $socket |"
}
{
    echo "Machine: $(machine); wrk -t2 -c64, ${seconds} s per load, plus $idle idle connections (half never finish a request head, half idle after one request; each re-opened when the server closes it); server --header-timeout 10 --idle-timeout 30."
    echo
    echo "| Load | Requests | Requests/s | p99 | Non-2xx | Socket errors |"
    echo "| --- | ---: | ---: | ---: | ---: | --- |"
    report_row stitched
    report_row cached
    echo
    echo "RSS: $((rss_warm / 1024)) MiB after warm-up, $((rss_peak / 1024)) MiB peak, $((rss_end / 1024)) MiB after the loads and the idle connections ended. Idle connections the server closed: $closed_half at the header timeout, $closed_idle at the idle timeout; $open_at_end open when the holder stopped."
} | tee .build/soak.md
if [ "$failed" != 0 ]; then echo "soak: non-2xx answers" >&2; exit 1; fi
if [ $((rss_end * 4)) -gt $((rss_warm * 5)) ]; then echo "soak: RSS grew from $rss_warm to $rss_end KiB" >&2; exit 1; fi
echo "soak: passed" >&2
