#!/usr/bin/env bash
# A/B of two `adstitch` binaries on bench-http's loads, alternately, each round on a fresh server:
# the plain load (2,000 sessions of the two-hour campaign, every request stitches) and the cached
# one (one session's playlist), at 32 and 64 connections. Prints the server's CPU time per answer
# (user + system from /proc/PID/stat over the run, divided by the answers) and its peak RSS since
# start. On a VM whose speed moves from one run to the next, alternating binaries is what lets a
# change of a few per cent show (docs/performance.md, fourth round).
#
# Usage: scripts/bench-ab.sh BINARY_A BINARY_B [ROUNDS, default 3] [SECONDS per run, default 6]
# Build the other binary first, e.g.:
#   git stash && swift build -c release --product adstitch && cp .build/release/adstitch /tmp/adstitch-a && git stash pop
set -euo pipefail

cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { sed -n 2,11p "$0" >&2; exit 2; }
a=$(realpath "$1")
b=$(realpath "$2")
rounds=${3:-3}
seconds=${4:-6}
scripts/install-deps.sh wrk curl

source scripts/bench-lib.sh
bench_workspace bench-ab

source scripts/two-hour-campaign.sh "$work"

cpu_ticks() { sed 's/.*) //' "/proc/$server_pid/stat" | awk '{print $12 + $13}'; }

measure() { # label url connections [wrk options…]
    local before after requests
    wrk -t2 -c"$3" -d2s "${@:4}" "$2" >/dev/null
    before=$(cpu_ticks)
    wrk -t2 -c"$3" -d"${seconds}s" --latency "${@:4}" "$2" >"$work/wrk.txt"
    after=$(cpu_ticks)
    requests=$(awk '/ requests in / {print $1}' "$work/wrk.txt")
    awk -v label="$1" -v c="$3" -v b="$before" -v a="$after" -v n="$requests" -v hz="$(getconf CLK_TCK)" '
        /^Requests\/sec:/ {rps = $2} $1 == "99%" {p99 = $2}
        END {printf "%-22s c%-3s %9.0f req/s  p99 %-8s %6.1f µs CPU/answer\n", label, c, rps, p99, (a - b) * 1e6 / hz / n}' "$work/wrk.txt"
}

for round in $(seq "$rounds"); do
    for name in A B; do
        binary=$a
        [ "$name" = B ] && binary=$b
        port=$(free_port)
        "$binary" serve --campaigns "$work/campaigns" --port "$port" --secret bench >"$work/server.log" 2>&1 &
        server_pid=$!
        wait_ready "$port" "$work/server.log"
        write_sessions "$port" "$work/sessions.lua" "ab-$round-$name"
        one=$(sed -n 2p "$work/sessions.lua" | tr -d ' ",')
        echo "round $round, $name ($binary)"
        for c in 32 64; do measure plain "http://127.0.0.1:$port" "$c" -s "$work/sessions.lua"; done
        for c in 32 64; do measure cached "http://127.0.0.1:$port$one" "$c"; done
        awk '/^VmHWM:/ {printf "  peak RSS since start %.1f MiB\n", $2 / 1024}' "/proc/$server_pid/status"
        kill "$server_pid"
        wait "$server_pid" 2>/dev/null || true
        server_pid=""
    done
done
