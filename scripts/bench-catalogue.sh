#!/usr/bin/env bash
# `make bench-catalogue`: a catalogue campaign (program: { catalogue: URL }) over TITLES titles on
# an nginx origin on loopback — each a two-hour programme of six variants (1,200 segments each,
# playlists only: the segments are never fetched) — served by `adstitch serve` (release build).
# Every title is the same playlists on disk under its own path (nginx rewrites /vod/tN/… to one
# folder), so titles cost the origin no disk, and each is a title of its own to AdStitch (the
# path is in its revision).
#
# Measures (docs/performance.md "Catalogues"):
#   cold   first starts of unseen titles, one after another: the master's latency, beside the
#          time the same seven playlists take to fetch from the origin alone, and its parts (the
#          server's adstitch_catalogue_load_duration_seconds: waiting on the origin, reading the
#          playlists, the layout; the rest is the request, the session and thread hops);
#   flight 32 viewers starting one unseen title at once: the origin's fetches of it (nginx's log);
#   warm   wrk (Zipf(1.0) over the loaded titles, a new session each request) beside new sessions
#          of the two-hour campaign (three islands, three breaks) and of `one-title`, one title as
#          a campaign of its own with the schedule's 13 breaks written out — the same work per start;
#   memory RSS while every title is touched with `cache.memory_mib` = MEMORY_MIB, beside the
#          catalogue's own estimate of what it holds.
#
# Usage: scripts/bench-catalogue.sh
# Environment: TITLES (10000), COLD (200 cold starts measured), WARM (30: the titles the warm load
#   asks for, Zipf(1.0), all held within MEMORY_MIB), MEMORY_MIB (256), SECONDS_PER_RUN (10 per wrk run).
set -euo pipefail

cd "$(dirname "$0")/.."
titles=${TITLES:-10000}
cold=${COLD:-200}
warm_titles=${WARM:-30}
memory_mib=${MEMORY_MIB:-256}
seconds=${SECONDS_PER_RUN:-10}
scripts/install-deps.sh wrk nginx curl

source scripts/bench-lib.sh
bench_workspace bench-catalogue

source scripts/two-hour-campaign.sh "$work"
chmod 755 "$work"
app_port=$(free_port)
origin_port=$(free_port)

# The one title on disk: the two-hour campaign's first act's ladder, 1,200 segments of 6 s.
python3 - "$work/origin/template" <<'PY'
import os, sys
root = sys.argv[1]
ladder = [(416, 234, 145000), (640, 360, 365000), (768, 432, 730000), (960, 540, 2000000), (1280, 720, 3000000), (1920, 1080, 6000000)]
master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
for index, (width, height, bandwidth) in enumerate(ladder):
    os.makedirs(f"{root}/v{index}", exist_ok=True)
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD"]
    for segment in range(1200):
        lines += ["#EXTINF:6.000000,", f"segment_{segment}.ts"]
    open(f"{root}/v{index}/index.m3u8", "w").write("\n".join(lines + ["#EXT-X-ENDLIST", ""]))
    master += f'#EXT-X-STREAM-INF:BANDWIDTH={bandwidth},CODECS="avc1.640028,mp4a.40.2",RESOLUTION={width}x{height}\nv{index}/index.m3u8\n'
open(f"{root}/master.m3u8", "w").write(master)
PY
chmod -R a+rX "$work/origin"
title_bytes=$(cat "$work"/origin/template/master.m3u8 "$work"/origin/template/v*/index.m3u8 | wc -c)

nginx_head 1 1024 >"$work/nginx.conf"
cat >>"$work/nginx.conf" <<EOF
http {
    log_format path '\$uri';
    access_log $work/origin.log path;
    keepalive_requests 1000000;
    types { application/vnd.apple.mpegurl m3u8; }
    server {
        listen 127.0.0.1:$origin_port;
        root $work/origin;
        etag on;
        rewrite ^/vod/t[0-9]+/(.*)\$ /template/\$1 break;
    }
}
EOF
nginx -c "$work/nginx.conf" -p "$work" &
nginx_pid=$!
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$origin_port/vod/t0/master.m3u8" >/dev/null && break; sleep 0.1; done

# The catalogue: the two-hour campaign's ads and slate; the schedule a broadcaster might use.
mkdir -p "$work/campaigns/cat"
cp -r "$work/campaigns/two-hours/ads" "$work/campaigns/two-hours/slate" "$work/campaigns/cat/"
cat >"$work/campaigns/cat/campaign.yaml" <<EOF
version: 1
id: cat
program: { catalogue: "http://127.0.0.1:$origin_port/vod/" }
schedule: { preroll: 30, every: 600, mid_duration: 60, postroll: 30, min_tail: 120, pools: [all] }
cache: { titles: $titles, memory_mib: $memory_mib, ttl: 3600 }
slate: { playlist: slate/master.m3u8 }
pools: { all: [ { id: alpha, playlist: ads/alpha/master.m3u8, weight: 2 }, { id: bravo, playlist: ads/bravo/master.m3u8 },
  { id: charlie, playlist: ads/charlie/master.m3u8 }, { id: delta, playlist: ads/delta/master.m3u8 }, { id: echo, playlist: ads/echo/master.m3u8 } ] }
markers: [daterange]
EOF
# The same title as a campaign of its own: the schedule's breaks written out (pre-roll, a
# mid-roll every 600 s up to 7,080 s, post-roll), the same pools — what a warm title start is
# compared with.
mkdir -p "$work/campaigns/one-title"
cp -r "$work/campaigns/two-hours/ads" "$work/campaigns/two-hours/slate" "$work/campaigns/one-title/"
{
    echo "version: 1"
    echo "id: one-title"
    echo "program: { playlist: \"http://127.0.0.1:$origin_port/vod/t0/master.m3u8\" }"
    echo "breaks:"
    echo "  - { id: preroll, at: 0, duration: 30, pools: [all] }"
    for index in $(seq 1 11); do echo "  - { id: mid-$index, at: $((600 * index)), duration: 60, pools: [all] }"; done
    echo "  - { id: postroll, at: 7200, duration: 30, pools: [all] }"
    sed -n '/^slate:/,$p' "$work/campaigns/cat/campaign.yaml"
} >"$work/campaigns/one-title/campaign.yaml"

"$binary" serve --campaigns "$work/campaigns" --port "$app_port" --secret bench >"$work/server.log" 2>&1 &
server_pid=$!
wait_ready "$app_port" "$work/server.log"
curl -sf "http://127.0.0.1:$app_port/v1/campaigns/two-hours/master.m3u8?session=warmup" >/dev/null
rss() { awk '/^VmRSS:/ {printf "%d", $2 / 1024}' "/proc/$server_pid/status"; }
baseline_rss=$(rss)
# The replica's first catalogue title pays once for what every later load reuses (code paths
# first run, the heap grown): timed on its own, not among the unseen titles below.
first_start=$(curl -sf -o /dev/null -w '%{time_total}' "http://127.0.0.1:$app_port/v1/campaigns/cat/assets/t99999/master.m3u8?session=first" |
    awk '{printf "%.1f", $1 * 1000}')
# The parts of a load (adstitch_catalogue_load_duration_seconds), summed over the cold starts.
load_parts() {
    curl -sf "http://127.0.0.1:$app_port/metrics" |
        awk -F'[{}" ]+' '/^adstitch_catalogue_load_duration_seconds_sum/ {sum[$3] = $NF} END {print sum["origin"] + 0, sum["load"] + 0, sum["layout"] + 0}'
}
read -r origin_before load_before layout_before < <(load_parts)

# Cold starts, and the origin alone for the same seven playlists (keep-alive, one connection).
python3 - "$app_port" "$origin_port" "$cold" >"$work/cold.txt" <<'PY'
import http.client, statistics, sys, time
app, origin, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
a = http.client.HTTPConnection("127.0.0.1", app)
o = http.client.HTTPConnection("127.0.0.1", origin)
starts, fetches = [], []
for index in range(count):
    title = 100000 + index
    began = time.perf_counter()
    a.request("GET", f"/v1/campaigns/cat/assets/t{title}/master.m3u8?session=cold-{index}")
    response = a.getresponse(); response.read()
    assert response.status == 200, response.status
    starts.append(time.perf_counter() - began)
    began = time.perf_counter()
    for path in ["master.m3u8"] + [f"v{v}/index.m3u8" for v in range(6)]:
        o.request("GET", f"/vod/t{title}/{path}"); o.getresponse().read()
    fetches.append(time.perf_counter() - began)
def q(values, p): return sorted(values)[min(len(values) - 1, int(p * len(values)))] * 1000
print(f"{q(starts, .5):.1f} {q(starts, .99):.1f} {q(fetches, .5):.1f} {q(fetches, .99):.1f} {statistics.fmean(starts) * 1000:.1f}")
PY
read -r cold_p50 cold_p99 fetch_p50 fetch_p99 cold_mean <"$work/cold.txt"
read -r origin_after load_after layout_after < <(load_parts)
part() { awk -v a="$1" -v b="$2" -v n="$cold" 'BEGIN {printf "%.1f", (b - a) * 1000 / n}'; }
part_origin=$(part "$origin_before" "$origin_after")
part_load=$(part "$load_before" "$load_after")
part_layout=$(part "$layout_before" "$layout_after")

# Single flight: 32 viewers start one unseen title at once.
masters_before=$(grep -c '^/template/master.m3u8$' "$work/origin.log" || true)
python3 - "$app_port" <<'PY'
import http.client, sys, threading
port = int(sys.argv[1])
def start(index):
    c = http.client.HTTPConnection("127.0.0.1", port)
    c.request("GET", f"/v1/campaigns/cat/assets/t999999/master.m3u8?session=flight-{index}")
    assert c.getresponse().status == 200
threads = [threading.Thread(target=start, args=(i,)) for i in range(32)]
[t.start() for t in threads]; [t.join() for t in threads]
PY
flight_fetches=$(( $(grep -c '^/template/master.m3u8$' "$work/origin.log" || true) - masters_before ))

# Warm: Zipf(1.0) over WARM titles (loaded first, all held), a new session per request; beside
# new sessions of the two-hour campaign.
for index in $(seq 0 $((warm_titles - 1))); do
    curl -sf "http://127.0.0.1:$app_port/v1/campaigns/cat/assets/t$((200000 + index))/master.m3u8" >/dev/null
done
cat >"$work/zipf.lua" <<LUA
local n = $warm_titles
local cdf, total = {}, 0
for k = 1, n do total = total + 1 / k; cdf[k] = total end
counter = 0
setup = function(thread) thread:set("prefix", tostring(math.random(1, 1000000000))) end
request = function()
  counter = counter + 1
  local r, lo, hi = math.random() * total, 1, n
  while lo < hi do local mid = math.floor((lo + hi) / 2); if cdf[mid] < r then lo = mid + 1 else hi = mid end end
  return wrk.format("GET", "/v1/campaigns/cat/assets/t" .. (200000 + lo - 1) .. "/master.m3u8?session=w-" .. prefix .. "-" .. counter)
end
LUA
for campaign in two-hours one-title; do
    cat >"$work/$campaign.lua" <<LUA
counter = 0
setup = function(thread) thread:set("prefix", tostring(math.random(1, 1000000000))) end
request = function()
  counter = counter + 1
  return wrk.format("GET", "/v1/campaigns/$campaign/master.m3u8?session=c-" .. prefix .. "-" .. counter)
end
LUA
done
warm() { # name script
    wrk -t2 -c32 -d"${seconds}s" --latency -s "$2" "http://127.0.0.1:$app_port" >"$work/wrk-$1.txt"
    printf '%s %s %s %s\n' "$1" "$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk-$1.txt")" \
        "$(awk '$1 == "50%" {print $2}' "$work/wrk-$1.txt")" "$(awk '$1 == "99%" {print $2}' "$work/wrk-$1.txt")" >>"$work/warm.txt"
    if grep -q 'Non-2xx' "$work/wrk-$1.txt"; then grep 'Non-2xx' "$work/wrk-$1.txt" >&2; fi
}
wrk -t2 -c32 -d3s -s "$work/zipf.lua" "http://127.0.0.1:$app_port" >/dev/null
warm campaign-starts "$work/two-hours.lua"
warm title-as-campaign-starts "$work/one-title.lua"
warm catalogue-starts-zipf "$work/zipf.lua"

# Memory: every title touched (two clients), RSS sampled as it goes.
echo 5 >"/proc/$server_pid/clear_refs"
python3 - "$app_port" "$titles" "$server_pid" >"$work/memory.txt" <<'PY'
import http.client, sys, threading
port, count, pid = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def rss():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"): return int(line.split()[1]) // 1024
samples = []
def run(part):
    c = http.client.HTTPConnection("127.0.0.1", port)
    for index in range(part, count, 2):
        c.request("GET", f"/v1/campaigns/cat/assets/t{index}/master.m3u8?session=m-{index}")
        r = c.getresponse(); r.read()
        assert r.status == 200, r.status
        if part == 0 and index % 500 == 0: samples.append(rss())
threads = [threading.Thread(target=run, args=(p,)) for p in range(2)]
[t.start() for t in threads]; [t.join() for t in threads]
print(max(samples + [rss()]), rss())
PY
read -r peak_rss end_rss <"$work/memory.txt"
hwm=$(awk '/^VmHWM:/ {printf "%d", $2 / 1024}' "/proc/$server_pid/status")
metrics=$(curl -sf "http://127.0.0.1:$app_port/metrics")
held=$(printf '%s\n' "$metrics" | awk '/^adstitch_catalogue_titles_held/ {printf "%d", $2}')
held_bytes=$(printf '%s\n' "$metrics" | awk '/^adstitch_catalogue_bytes_held/ {printf "%.0f", $2 / 1048576}')
loads=$(printf '%s\n' "$metrics" | awk '/^adstitch_catalogue_titles_total\{outcome="load"\}/ {printf "%d", $2}')
origin_masters=$(grep -c '^/template/master.m3u8$' "$work/origin.log" || true)

{
    echo "Machine: $(machine); $(nginx -v 2>&1 | sed 's/.*: //') as the origin; server, origin and clients share the machine."
    echo
    echo "Titles: $titles two-hour titles of six variants (1,200 segments each; $title_bytes bytes of playlists per title), a schedule of 13 breaks each; cache: { titles: $titles, memory_mib: $memory_mib }."
    echo
    echo "| Measure | Figure |"
    echo "| --- | --- |"
    echo "| Cold first start of an unseen title ($cold, one after another): p50 / p99 | $cold_p50 / $cold_p99 ms |"
    echo "| The same seven playlists from the origin alone: p50 / p99 | $fetch_p50 / $fetch_p99 ms |"
    echo "| AdStitch's part of a cold start (p50 difference) | $(awk -v a="$cold_p50" -v b="$fetch_p50" 'BEGIN {printf "%.1f", a - b}') ms |"
    echo "| A cold start's parts, means: the whole start / the load waiting on the origin / reading the playlists (parse, check, cut) / the layout / the rest (request, session, thread hops) | $cold_mean / $part_origin / $part_load / $part_layout / $(awk -v t="$cold_mean" -v a="$part_origin" -v b="$part_load" -v c="$part_layout" 'BEGIN {printf "%.1f", t - a - b - c}') ms |"
    echo "| The replica's first catalogue title (once per process; not among the cold starts) | $first_start ms |"
    echo "| Origin fetches of a title's master for 32 simultaneous first viewers | $flight_fetches |"
    awk -v n="$warm_titles" '{printf "| Warm: %s (wrk -c32%s): requests/s, p50, p99 | %s/s, %s, %s |\n", $1, ($1 ~ /zipf/ ? ", " n " titles" : ""), $2, $3, $4}' "$work/warm.txt"
    echo "| RSS before the titles / peak while touching all $titles / at the end | $baseline_rss / $peak_rss (VmHWM $hwm) / $end_rss MiB |"
    echo "| Titles held at the end, and their estimated bytes | $held titles, $held_bytes MiB |"
    echo "| Title loads / origin fetches of a master over the whole run | $loads / $origin_masters |"
} | tee .build/bench-catalogue.md
