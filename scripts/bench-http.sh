#!/usr/bin/env bash
# `make bench-http`: wrk on loopback against one token-scoped media playlist of a two-hour
# campaign (1,200 programme segments per variant, three breaks) served by `adstitch serve`
# (release build), beside nginx serving the same bytes from disk on the same machine.
# Prints a Markdown table (also written to .build/bench-http.md) for docs/performance.md.
#
# Usage: scripts/bench-http.sh [SECONDS per run, default 15]
# Environment: CONNECTIONS (default "32 64"), THREADS (wrk threads, default 2).
set -euo pipefail

cd "$(dirname "$0")/.."
seconds=${1:-15}
connections=${CONNECTIONS:-32 64}
threads=${THREADS:-2}
scripts/install-deps.sh wrk nginx curl

source scripts/bench-lib.sh
bench_workspace bench-http

source scripts/two-hour-campaign.sh "$work"
mkdir -p "$work/www"
chmod 755 "$work" "$work/www"  # nginx's workers run as another user when started by root
app_port=$(free_port)
nginx_port=$(free_port)

# A live channel (scripts/live-origin.py, real time) and a campaign on it with the
# single-asset demo's ads and slate; its refreshes are measured below.
origin_port=$(free_port)
python3 scripts/live-origin.py --port "$origin_port" --window 10 --first-break 6 --break-every 20 --break-length 5 >"$work/origin.log" 2>&1 &
origin_pid=$!
mkdir -p "$work/campaigns/live/media"
cp -r Campaigns/single-asset/media/ads Campaigns/single-asset/media/slate "$work/campaigns/live/media/"
cat >"$work/campaigns/live/campaign.yaml" <<EOF
version: 1
id: live
program: { live: "http://127.0.0.1:$origin_port/master.m3u8" }
marker_breaks: { duration: 9.6, pools: [prime] }
slate: { playlist: media/slate/master.m3u8 }
pools:
  prime:
    - { id: alpha, playlist: media/ads/alpha/master.m3u8 }
    - { id: bravo, playlist: media/ads/bravo/master.m3u8 }
markers: [daterange]
EOF
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$origin_port/master.m3u8" >/dev/null && break; sleep 0.1; done
sleep 6  # a few segments published, so the campaign loads with a window

# Session starts of a campaign fed by an ad decision server (scripts/test-ad-server.py)
# that answers every break after 50 ms: a two-ad pod whose creatives are the evening-news demo's
# ads as this server serves them. Each start asks for its three breaks at once.
ads_port=$(free_port)
mkdir -p "$work/campaigns/ads"
cp -r Campaigns/evening-news/media "$work/campaigns/ads/"
python3 scripts/test-ad-server.py --port "$ads_port" --media-base "http://127.0.0.1:$app_port/v1/campaigns/ads/media/media/ads" >"$work/ads.log" 2>&1 &
ads_pid=$!
pod=$(python3 -c 'import urllib.parse; print(urllib.parse.quote("/vast/pod?ads=bravo,delta&dur=3.84,1.92", safe=""))')
sed -e 's/^id: evening-news$/id: ads/' Campaigns/evening-news/campaign.yaml >"$work/campaigns/ads/campaign.yaml"
printf '\nad_server: { trusted_hosts: [127.0.0.1], vast: "http://127.0.0.1:%s/vast/slow?ms=50&to=%s&sid={session}&pos={break.position}", timeout: 2, fallback: [house] }\n' \
    "$ads_port" "$pod" >>"$work/campaigns/ads/campaign.yaml"
cat >"$work/starts.lua" <<'LUA'
-- Every request starts a new session (its own id), so every one asks the ad server.
counter = 0
setup = function(thread) thread:set("prefix", tostring(math.random(1, 1000000000))) end
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/campaigns/ads/master.m3u8?session=start-" .. prefix .. "-" .. counter)
end
LUA

"$binary" serve --campaigns "$work/campaigns" --port "$app_port" --secret bench >"$work/server.log" 2>&1 &
server_pid=$!
wait_ready "$app_port" "$work/server.log"

# One viewer's session; its 960x540 media playlist is what wrk asks for.
master=$(curl -sf "http://127.0.0.1:$app_port/v1/campaigns/two-hours/master.m3u8?session=bench-1&locale=en-GB")
uri=$(printf '%s\n' "$master" | grep '^sessions/.*/v3\.m3u8$')
path="/v1/campaigns/two-hours/$uri"
curl -sf "http://127.0.0.1:$app_port$path" -o "$work/www/playlist.m3u8"
bytes=$(wc -c <"$work/www/playlist.m3u8")
segments=$(grep -c '^#EXTINF' "$work/www/playlist.m3u8")

nginx_head auto 1024 >"$work/nginx.conf"
cat >>"$work/nginx.conf" <<EOF
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    types { application/vnd.apple.mpegurl m3u8; }
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/www;
        etag on;
    }
}
EOF
nginx -c "$work/nginx.conf" -p "$work" &
nginx_pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$nginx_port/playlist.m3u8" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$nginx_port/playlist.m3u8" | cmp - "$work/www/playlist.m3u8" || {
    cat "$work/nginx-error.log" >&2
    echo "bench-http: nginx does not serve the playlist" >&2
    exit 1
}

# The stitching path: 2,000 sessions, asked in turn, so (with the response cache holding some
# eighty such playlists) every request plans and renders.
write_sessions "$app_port" "$work/sessions.lua" bench-many
# The live path: 2,000 sessions of the live channel refreshing their v1.m3u8 in turn (never cached).
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$app_port/v1/campaigns/live/master.m3u8" >/dev/null && break; sleep 0.2; done
write_sessions "$app_port" "$work/live.lua" bench-live live v1

# CPU seconds (user + system) the processes $@ have used so far.
cpu_seconds() {
    local ticks=0 pid
    for pid in "$@"; do
        # Fields 14 and 15 of /proc/PID/stat, counted after the command name's closing parenthesis.
        ticks=$((ticks + $(sed 's/.*) //' "/proc/$pid/stat" | awk '{print $12 + $13}')))
    done
    awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.3f", t / hz}'
}
nginx_pids() { echo "$nginx_pid" $(pgrep -P "$nginx_pid"); }

# Warm both up, then measure. wrk --latency prints p50/p75/p90/p99. Each run of adstitch also
# records its peak RSS (VmHWM, reset before the run through /proc/PID/clear_refs) and the CPU
# time the server (nginx: master and workers) spent per request.
run() { # name url connections [wrk options…]
    local pids rss="" before after rps p50 p99 requests cpu
    if [ "$1" = nginx ]; then pids=$(nginx_pids); else pids=$server_pid; echo 5 >"/proc/$server_pid/clear_refs"; fi
    before=$(cpu_seconds $pids)
    wrk -t"$threads" -c"$3" -d"${seconds}s" --latency "${@:4}" "$2" >"$work/wrk-$1-$3.txt"
    after=$(cpu_seconds $pids)
    [ "$1" = nginx ] || rss=$(awk '/^VmHWM:/ {printf "%d", $2 / 1024}' "/proc/$server_pid/status")
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk-$1-$3.txt")
    p50=$(awk '$1 == "50%" {print $2}' "$work/wrk-$1-$3.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$work/wrk-$1-$3.txt")
    requests=$(awk '/ requests in / {print $1}' "$work/wrk-$1-$3.txt")
    cpu=$(awk -v b="$before" -v a="$after" -v n="$requests" 'BEGIN {printf "%.1f", (n > 0 ? (a - b) * 1e6 / n : 0)}')
    errors=$(awk '/Non-2xx|Socket errors/ {print}' "$work/wrk-$1-$3.txt" | tr '\n' ' ')
    printf '%s %s %s %s %s %s %s\n' "$1" "$3" "$rps" "$p50" "$p99" "$cpu" "${rss:--}" >>"$work/results"
    [ -z "$errors" ] || echo "bench-http: $1 -c$3: $errors" >&2
}
wrk -t"$threads" -c32 -d3s "http://127.0.0.1:$app_port$path" >/dev/null
wrk -t"$threads" -c32 -d3s "http://127.0.0.1:$nginx_port/playlist.m3u8" >/dev/null
for c in $connections; do
    run nginx "http://127.0.0.1:$nginx_port/playlist.m3u8" "$c"
    run adstitch-one-session "http://127.0.0.1:$app_port$path" "$c"
    run adstitch-2000-sessions "http://127.0.0.1:$app_port" "$c" -s "$work/sessions.lua"
    run adstitch-2000-sessions-gzip "http://127.0.0.1:$app_port" "$c" -s "$work/sessions-gzip.lua"
    run adstitch-live-2000-sessions "http://127.0.0.1:$app_port" "$c" -s "$work/live.lua"
    run adstitch-ad-server-starts "http://127.0.0.1:$app_port" "$c" -s "$work/starts.lua"
done

# The stitching path while a creative is conditioned. `adstitch condition` encodes a
# 60 s 1080p30 creative to the evening-news ladder over and over, under the scheduling policy
# serve's queue encodes with (SCHED_IDLE: ConditioningWorkers), while wrk runs the 2000-sessions
# load again.
ffmpeg -nostdin -y -loglevel error -f lavfi -i testsrc2=size=1920x1080:rate=30:duration=60 -f lavfi -i sine=frequency=440:duration=60 \
    -c:v libx264 -preset ultrafast -pix_fmt yuv420p -c:a aac -shortest "$work/creative.mp4"
(while chrt --idle 0 "$binary" condition "$work/creative.mp4" --campaign Campaigns/evening-news/campaign.yaml --out "$work/conditioned" \
    >>"$work/encode.log" 2>&1; do :; done) &
encode_pid=$!
sleep 3 # into the first rendition's encode
for c in $connections; do
    run adstitch-2000-sessions-encoding "http://127.0.0.1:$app_port" "$c" -s "$work/sessions.lua"
done
pkill -P "$encode_pid" 2>/dev/null || true
kill "$encode_pid" 2>/dev/null || true
pkill -f "$work/creative.mp4" 2>/dev/null || true
# The stitching path while players report their viewing quality: 1,000 of the sessions each post a
# report every 10 s (~100 reports/s: a second wrk, ten connections, 100 ms between each one's
# requests) beside the 2000-sessions load (docs/quality.md).
write_reports "$work/sessions.lua" "$work/reports.lua"
for c in $connections; do
    # The same load without reports just before, so the pair compares within minutes (this VM's
    # speed drifts within the hour: docs/performance.md).
    run adstitch-2000-sessions-paired "http://127.0.0.1:$app_port" "$c" -s "$work/sessions.lua"
    wrk -t1 -c10 -d"$((seconds + 2))s" -s "$work/reports.lua" "http://127.0.0.1:$app_port" >"$work/wrk-reports-$c.txt" &
    reports_pid=$!
    sleep 1
    run adstitch-2000-sessions-reporting "http://127.0.0.1:$app_port" "$c" -s "$work/sessions.lua"
    wait "$reports_pid" || true
done
reports=$(awk '/^Requests\/sec:/ {printf "%s%s/s", sep, $2; sep = ", "}' "$work"/wrk-reports-*.txt)
report_errors=$(cat "$work"/wrk-reports-*.txt | awk '/Non-2xx|Socket errors/ {print}' | tr '\n' ' ')
ad_requests=$(curl -sf "http://127.0.0.1:$app_port/metrics" | awk '/^adstitch_ad_server_requests_total/ {split($1, l, "\""); printf "%s%s %s", sep, l[2], $2; sep = ", "}')
rss_max=$(awk '$7 != "-" && $7 + 0 > m {m = $7 + 0} END {print m}' "$work/results")
gzip_bytes=$(curl -sf -H 'Accept-Encoding: gzip' "http://127.0.0.1:$app_port$path" | wc -c)
metrics=$(curl -sf "http://127.0.0.1:$app_port/metrics")
stitched=$(printf '%s\n' "$metrics" | awk '/^adstitch_stitch_duration_seconds_count\{kind="media"\}/ {print $2}')
hits=$(printf '%s\n' "$metrics" | awk '/^adstitch_response_cache_requests_total\{result="hit"\}/ {print $2}')

{
    echo "Machine: $(machine); $(nginx -v 2>&1 | sed 's/.*: //'); wrk -t$threads, ${seconds} s per run; server, nginx and wrk share the machine."
    echo
    echo "Playlist: $segments segments, $bytes bytes (\`v3.m3u8\` of a session of the two-hour campaign). *one-session*: wrk asks for one token's playlist, which after the first request comes from the response cache (token-scoped answers are immutable). *2000-sessions*: wrk cycles through 2,000 sessions' playlists, so every request checks its token, plans and renders (*-gzip*: with \`Accept-Encoding: gzip\`, as players send it; ${gzip_bytes} bytes on the wire); nginx serves one file from disk. *live-2000-sessions*: 2,000 sessions of a live channel (scripts/live-origin.py, ten-segment windows, a break every 38.4 s) refreshing their \`v1.m3u8\` in turn: each request renders the channel's current window with the viewer's ads (its ratio to nginx compares a 1 KB answer with a 100 KB file). *2000-sessions-encoding*: the 2000-sessions load while \`adstitch condition\` encodes a 60 s 1080p30 creative under SCHED_IDLE (\`chrt --idle 0\`), as serve's conditioning queue does. *ad-server-starts*: every request starts a new session of the evening-news demo fed by scripts/test-ad-server.py answering each break after 50 ms (three breaks asked at once; the creatives' playlists loaded once); the master's latency is the ad server's plus AdStitch's (ratio to nginx: not comparable)."
    echo
    echo "| Server | Connections | Requests/s | p50 | p99 | vs nginx | CPU µs/request | Peak RSS MiB |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    awk '
        $1 == "nginx" { base[$2] = $3 }
        { rows[NR] = $0 }
        END {
            for (i = 1; i <= NR; i++) {
                split(rows[i], f, " ")
                ratio = (f[1] != "nginx" && base[f[2]] > 0) ? sprintf("%.2f×", f[3] / base[f[2]]) : ""
                printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], f[3], f[4], f[5], ratio, f[6], f[7]
            }
        }' "$work/results"
    echo
    echo "CPU µs/request: the server's user + system CPU time over the run (nginx: master and workers) divided by the requests answered. Peak RSS: VmHWM over the run (reset before it)."
    echo
    echo "*2000-sessions-reporting*: the 2000-sessions load while 1,000 of its sessions post a viewing-quality report each every 10 s (a second wrk: ${reports:-?}${report_errors:+; $report_errors}); its CPU per request counts the reports' CPU too. *2000-sessions-paired*: the same load without reports, run just before it, to compare with."
    echo
    echo "Ad server breaks by outcome over the ad-server-starts runs: ${ad_requests:-?}."
    echo
    echo "adstitch peak RSS over all runs: ${rss_max} MiB; media playlists stitched: ${stitched:-?}; answered from the response cache: ${hits:-?}."
} | tee .build/bench-http.md
