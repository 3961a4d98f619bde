#!/usr/bin/env bash
# Beacon redirects beside the stitched load (docs/performance.md "Beacons under load"): the
# two-hour campaign (scripts/two-hour-campaign.sh) with tracking URLs on its five ads — impression,
# start, the quartiles and complete — pointing at nginx on loopback (`return 204`, the tracking
# server), served by `adstitch serve` (release build; the beacon ledger in memory).
#
#   alone     wrk cycles through 2,000 sessions' v3.m3u8 (every request plans and renders);
#   together  the same, while a second wrk cycles through every beacon link of those sessions
#             (a 302 each, the events fired in the background once per session and event);
#   firing    the tracking server's hits over the run, beside the events the redirects claimed,
#             and how long after the run the last event was sent (the firing backlog);
#   repeats   the links the first beacon run asked for, asked again: each a 302 whose events are
#             claimed already (a player's retry), so the route's own cost without firing.
#
# Usage: scripts/bench-beacons.sh [SECONDS per run, default 10]
# Environment: CONNECTIONS (playlists' wrk connections, default 32), BEACON_CONNECTIONS (16),
# ALONE_SECONDS (3: the redirects-alone run, short enough that every request is a first one),
# TRACKER_MS (default 0: nginx answers at once; N: scripts/slow-tracker.py answers each event
# after N ms instead, as a remote tracking server would).
set -euo pipefail

cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${CONNECTIONS:-32}
beacon_connections=${BEACON_CONNECTIONS:-16}
tracker_ms=${TRACKER_MS:-0}
alone_seconds=${ALONE_SECONDS:-3}
scripts/install-deps.sh wrk nginx curl

source scripts/bench-lib.sh
bench_workspace bench-beacons

source scripts/two-hour-campaign.sh "$work"
chmod 755 "$work"
app_port=$(free_port)
tracker_port=$(free_port)

nginx_head 1 4096 >"$work/nginx.conf"
cat >>"$work/nginx.conf" <<NGINX
http {
    log_format event '\$arg_e';
    access_log $work/tracker.log event;
    keepalive_requests 1000000;
    server { listen 127.0.0.1:$tracker_port; location / { return 204; } }
}
NGINX
if [ "$tracker_ms" -gt 0 ]; then
    scripts/slow-tracker.py "$tracker_port" "$tracker_ms" &
    tracker_pid=$!
    tracker_name="scripts/slow-tracker.py answering after $tracker_ms ms"
    tracker_hits() { curl -sf "http://127.0.0.1:$tracker_port/__hits"; }
else
    nginx -c "$work/nginx.conf" -p "$work" &
    nginx_pid=$!
    tracker_name="$(nginx -v 2>&1 | sed 's/.*: //') answering at once"
    tracker_hits() { wc -l <"$work/tracker.log"; }
fi

# Every ad of the pool reports each event to the tracker (one URL per event).
python3 - "$work/campaigns/two-hours/campaign.yaml" "$tracker_port" <<'PY'
import re, sys
path, port = sys.argv[1], sys.argv[2]
events = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
def tracked(match):
    ad = match.group(1)
    urls = ", ".join(f'{e}: ["http://127.0.0.1:{port}/t?e={e}&ad={ad}&cb=[CACHEBUSTING]"]' for e in events)
    return f"{{ id: {ad}, playlist: ads/{ad}/master.m3u8{match.group(2) or ''}, tracking: {{ {urls} }} }}"
text = open(path).read()
text, count = re.subn(r"\{ id: (\w+), playlist: ads/\w+/master\.m3u8(, weight: \d+)? \}", tracked, text)
assert count == 5, count
open(path, "w").write(text)
PY

"$binary" serve --campaigns "$work/campaigns" --port "$app_port" --secret bench >"$work/server.log" 2>&1 &
server_pid=$!
wait_ready "$app_port" "$work/server.log"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$tracker_port/__hits" && break; sleep 0.1; done

# 2,000 sessions: their v3.m3u8 (the playlists' load) and every beacon link in it (the beacons' load).
write_sessions "$app_port" "$work/sessions.lua" bench
python3 - "$app_port" "$work/sessions.lua" "$work/beacons.lua" <<'PY'
import http.client, re, sys
port, sessions, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
paths = re.findall(r'"(/v1/campaigns/[^"]+)"', open(sessions).read())
connection = http.client.HTTPConnection("127.0.0.1", port)
links = []
for path in paths:
    connection.request("GET", path)
    body = connection.getresponse().read().decode()
    base = path.rsplit("/", 1)[0] + "/"
    links += [base + line for line in body.splitlines() if line.startswith("beacons/")]
assert len(links) >= 2 * len(paths), f"{len(links)} beacon links in {len(paths)} sessions"
# Two halves (every other link): one for the beacons alone, one beside the playlists, so each run
# starts on links no request has claimed yet.
for name, half in ((out, links[0::2]), (out.replace(".lua", "-alone.lua"), links[1::2])):
    with open(name, "w") as lua:
        lua.write("paths = {\n" + ",\n".join(f'  "{l}"' for l in half) + "\n}\n")
        lua.write('counter = 0\nrequest = function()\n  counter = counter % #paths + 1\n  return wrk.format("GET", paths[counter])\nend\n')
print(len(links))
PY
links=$(( $(grep -c '^  "' "$work/beacons.lua") + $(grep -c '^  "' "$work/beacons-alone.lua") ))

playlists() { # name
    wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$work/sessions.lua" "http://127.0.0.1:$app_port" >"$work/wrk-$1.txt"
}
beacons() { # name lua [seconds]
    wrk -t1 -c"$beacon_connections" -d"${3:-$seconds}s" --latency -s "$2" "http://127.0.0.1:$app_port" >"$work/wrk-$1.txt"
}
figures() { # file → requests/s p50 p99 non-2xx/3xx
    printf '%s %s %s %s' "$(awk '/^Requests\/sec:/ {print $2}' "$1")" "$(awk '$1 == "50%" {print $2}' "$1")" \
        "$(awk '$1 == "99%" {print $2}' "$1")" "$(awk '/Non-2xx/ {print $5}' "$1")"
}

# Events sent or given up so far (adstitch_beacons_total).
settled() {
    curl -sf "http://127.0.0.1:$app_port/metrics" | awk '/^adstitch_beacons_total\{.*outcome="(sent|failed)"/ {s += $2} END {printf "%d", s}'
}
# Waits until no event has been sent or given up for 2 s; prints how long after the call the last one was.
drain() {
    local began last count previous
    began=$(date +%s.%N)
    last=$began
    previous=$(settled)
    while :; do
        sleep 0.5
        count=$(settled)
        if [ "$count" != "$previous" ]; then
            previous=$count
            last=$(date +%s.%N)
        elif python3 -c "import sys; sys.exit(0 if $(date +%s.%N) - $last >= 2 else 1)"; then
            break
        fi
    done
    python3 -c "print(round($last - $began, 1))"
}

wrk -t2 -c"$connections" -d3s -s "$work/sessions.lua" "http://127.0.0.1:$app_port" >/dev/null
playlists alone
# Alone, the redirects outrun the half's links within seconds; past them every request is a
# repeat (no claim, no firing), so this run is short enough to stay on first requests (checked below).
beacons beacons-alone "$work/beacons-alone.lua" "$alone_seconds"
alone_drain=$(drain)
hits_before=$(tracker_hits)
started=$(date +%s.%N)
beacons beacons "$work/beacons.lua" &
beacon_job=$!
playlists together
wait "$beacon_job"
together_drain=$(drain)
drained=$(date +%s.%N)
hits=$(( $(tracker_hits) - hits_before ))
# The links the first beacon run claimed (one wrk thread: its requests went through the list in
# order, from the first), asked again.
asked=$(awk '/requests in/ {print $1}' "$work/wrk-beacons-alone.txt")
{
    sed -n '1p' "$work/beacons-alone.lua"
    awk -v n="$asked" '/^  "/ && ++k <= n' "$work/beacons-alone.lua" | sed '$ s/,$//'
    printf '}\ncounter = 0\nrequest = function()\n  counter = counter %% #paths + 1\n  return wrk.format("GET", paths[counter])\nend\n'
} >"$work/beacons-repeat.lua"
deduped_before=$(curl -sf "http://127.0.0.1:$app_port/metrics" | awk '/^adstitch_beacons_total\{.*outcome="deduped"/ {s += $2} END {printf "%d", s}')
settled_before=$(settled)
beacons beacons-repeat "$work/beacons-repeat.lua"
sleep 1
settled_repeats=$(( $(settled) - settled_before ))
read -r alone_rate alone_p50 alone_p99 _ <<<"$(figures "$work/wrk-alone.txt")"
read -r together_rate together_p50 together_p99 _ <<<"$(figures "$work/wrk-together.txt")"
read -r beacon_rate beacon_p50 beacon_p99 beacon_other <<<"$(figures "$work/wrk-beacons.txt")"
read -r alone_beacon_rate alone_beacon_p50 alone_beacon_p99 _ <<<"$(figures "$work/wrk-beacons-alone.txt")"
read -r repeat_rate repeat_p50 repeat_p99 _ <<<"$(figures "$work/wrk-beacons-repeat.txt")"
beacon_requests=$(awk '/requests in/ {print $1}' "$work/wrk-beacons.txt")
runs() { awk '/requests in/ {sub(/,$/, "", $4); print $1 " requests in " $4}' "$work/wrk-$1.txt"; }
# Whether both first-request runs stayed within their half (else their rates count repeats too).
first_only() {
    local alone beside
    alone=$(awk '/requests in/ {print $1}' "$work/wrk-beacons-alone.txt")
    beside=$(awk '/requests in/ {print $1}' "$work/wrk-beacons.txt")
    if [ "$alone" -le $(( links / 2 )) ] && [ "$beside" -le $(( links / 2 )) ]; then
        echo ", every request a first one"
    else
        echo " — A RUN WENT PAST ITS LINKS: its rate counts repeats too; lower ALONE_SECONDS or SECONDS"
    fi
}
metrics=$(curl -sf "http://127.0.0.1:$app_port/metrics")
fired=$(printf '%s\n' "$metrics" | awk '/^adstitch_beacons_total\{.*outcome="sent"/ {s += $2} END {printf "%d", s}')
failed=$(printf '%s\n' "$metrics" | awk '/^adstitch_beacons_total\{.*outcome="failed"/ {s += $2} END {printf "%d", s}')
deduped=$(printf '%s\n' "$metrics" | awk '/^adstitch_beacons_total\{.*outcome="deduped"/ {s += $2} END {printf "%d", s}')

{
    echo "Machine: $(machine); $tracker_name as the tracking server; wrk ${seconds} s per run; server, tracker and clients share the machine."
    echo
    echo "Sessions: 2,000 of the two-hour campaign, $links beacon links among their v3.m3u8 playlists; playlists' wrk -t2 -c$connections, beacons' wrk -t1 -c$beacon_connections."
    echo
    echo "| Load | Requests/s | p50 | p99 |"
    echo "| --- | --- | --- | --- |"
    echo "| playlists alone (2000-sessions) | $alone_rate | $alone_p50 | $alone_p99 |"
    echo "| playlists beside the beacons | $together_rate | $together_p50 | $together_p99 |"
    echo "| beacon redirects (302) alone | $alone_beacon_rate | $alone_beacon_p50 | $alone_beacon_p99 |"
    echo "| beacon redirects (302) beside the playlists | $beacon_rate | $beacon_p50 | $beacon_p99 |"
    echo "| beacon redirects of claimed links (repeats, nothing fired) alone | $repeat_rate | $repeat_p50 | $repeat_p99 |"
    echo
    echo "Beacon requests beside the playlists: $beacon_requests (answers other than 2xx/3xx: ${beacon_other:-0}), tracking server hits from them: $hits over $(python3 -c "print(round($drained - $started, 1))") s; over both beacon runs, events sent / failed / deduped (adstitch_beacons_total): $fired / $failed / $deduped. The last event was sent $alone_drain s after the redirects alone ended, $together_drain s after the run beside the playlists. The repeats deduped $(( deduped - deduped_before )) events; events sent or given up during them: $settled_repeats. First-request runs (each on its own half of the links, $(( links / 2 )) each): redirects alone $(runs beacons-alone), beside the playlists $(runs beacons)$(first_only)."
} | tee "$work/report.md"
