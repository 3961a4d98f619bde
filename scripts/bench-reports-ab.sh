#!/usr/bin/env bash
# The stitched load's p99 without and with players reporting their viewing quality, alternated:
# three rounds, each at 32 and 64 connections, of the 2000-sessions load alone, then again while
# 1,000 of its sessions post a report every 10 s (a second wrk) — on one server, so each pair is a
# minute apart (this VM's speed drifts within the hour; docs/performance.md).
#
# Usage: scripts/bench-reports-ab.sh   (BIN=path to a release adstitch; default .build/release/adstitch)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh wrk curl
source scripts/bench-lib.sh
bench_workspace report-ab
source scripts/two-hour-campaign.sh "$work"
port=$(free_port)
${BIN:-.build/release/adstitch} serve --campaigns "$work/campaigns" --port "$port" --secret bench >"$work/server.log" 2>&1 &
server_pid=$!
wait_ready "$port" "$work/server.log"
write_sessions "$port" "$work/sessions.lua" "rep"
write_reports "$work/sessions.lua" "$work/reports.lua"
p99() { awk '$1 == "99%" {print $2}' "$1"; }
rps() { awk '/^Requests\/sec:/ {print $2}' "$1"; }
wrk -t2 -c32 -d3s -s "$work/sessions.lua" "http://127.0.0.1:$port" >/dev/null
for round in 1 2 3; do
  for c in 32 64; do
    wrk -t2 -c$c -d6s --latency -s "$work/sessions.lua" "http://127.0.0.1:$port" >"$work/a.txt"
    wrk -t1 -c10 -d8s -s "$work/reports.lua" "http://127.0.0.1:$port" >"$work/r.txt" &
    rp=$!
    sleep 1
    wrk -t2 -c$c -d6s --latency -s "$work/sessions.lua" "http://127.0.0.1:$port" >"$work/b.txt"
    wait $rp || true
    echo "round $round c$c: without p99 $(p99 $work/a.txt) ($(rps $work/a.txt)/s) | with reports p99 $(p99 $work/b.txt) ($(rps $work/b.txt)/s), reports $(rps $work/r.txt)/s"
  done
done
kill $server_pid
