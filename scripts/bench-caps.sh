#!/usr/bin/env bash
# `scripts/bench-caps.sh`: session start latency of the evening-news demo with frequency caps (two
# caps, 100 signed viewers, impressions in a PostgreSQL of its own on loopback) and without
# (the same campaign reporting client-side), 1,000 sequential starts each, twice, alternating;
# then the first fetch of 300 sessions' tracking.json. A python client on one kept-alive
# connection, so the figures include its overhead. Uses the release build (BIN= to change).
set -euo pipefail
cd "$(dirname "$0")/.."
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pg_port=$(free_port)
port=$(free_port)
export PORT=$port
work=$(mktemp -d /tmp/bench-caps.XXXX)
[ "$(id -u)" -eq 0 ] && chown -R postgres:postgres "$work"
as_postgres() { if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=postgres --regid=postgres --init-groups "$@"; else "$@"; fi; }
bin=$(ls -d /usr/lib/postgresql/*/bin | tail -1)
as_postgres "$bin/initdb" -D "$work/data" -A trust -U adstitch --no-sync -E UTF8 >/dev/null
as_postgres "$bin/postgres" -D "$work/data" -p "$pg_port" -k "$work" -c listen_addresses=127.0.0.1 -c fsync=off >"$work/pg.log" 2>&1 &
pg=$!
sleep 3
mkdir -p "$work/c"; cp -r Campaigns/evening-news "$work/c/"
sed 's/^id: evening-news$/id: capped/; s|playlist: media/|playlist: evening-news/media/|' Campaigns/evening-news/campaign.yaml > "$work/c/capped.yaml"
printf "\nfrequency_caps:\n  - { ads: '^alpha\$', max: 3, per: 24h }\n  - { ads: '^(bravo|delta)\$', max: 5, per: 1h }\n" >> "$work/c/capped.yaml"
sed 's/^id: evening-news$/id: plain/; s|playlist: media/|playlist: evening-news/media/|' Campaigns/evening-news/campaign.yaml > "$work/c/plain.yaml"
echo "reporting: client" >> "$work/c/plain.yaml"
"${BIN:-$(swift build -c release --show-bin-path)/adstitch}" serve --campaigns "$work/c" --port "$port" --secret b --start-key k --database postgres://adstitch@127.0.0.1:$pg_port/postgres >"$work/serve.log" 2>&1 &
srv=$!
sleep 4
python3 - <<'PY'
import hashlib, hmac, http.client, os, time, urllib.parse, statistics
def signed(params):
    canonical = "&".join(f"{urllib.parse.quote(k, safe='-._~')}={urllib.parse.quote(v, safe='-._~')}" for k, v in sorted(params.items()))
    sig = hmac.new(b"k", canonical.encode(), hashlib.sha256).hexdigest()
    return urllib.parse.urlencode(dict(params, sig=sig), quote_via=urllib.parse.quote)
c = http.client.HTTPConnection("127.0.0.1", int(os.environ["PORT"]))
def get(path):
    t = time.perf_counter(); c.request("GET", path); r = c.getresponse(); body = r.read(); return r.status, body, (time.perf_counter() - t) * 1000
def run(campaign, n, viewers):
    times = []
    for i in range(n):
        q = signed({"session": f"{campaign}-{i}", "viewer": f"v-{i % viewers}", "exp": str(int(time.time()) + 300)})
        s, body, ms = get(f"/v1/campaigns/{campaign}/master.m3u8?{q}")
        assert s == 200, body
        times.append(ms)
    times.sort()
    return times
for campaign in ["plain", "capped", "plain", "capped"]:
    t = run(campaign, 1000, 100)
    print(f"{campaign:7} starts: p50 {statistics.median(t):.2f} ms  p90 {t[int(len(t)*.9)]:.2f}  p99 {t[int(len(t)*.99)]:.2f}")
# tracking.json of client sessions (first fetch: planned and rendered; then cached)
t = []
for i in range(300):
    q = signed({"session": f"track-{i}", "exp": str(int(time.time()) + 300)})
    s, body, _ = get(f"/v1/campaigns/plain/master.m3u8?{q}")
    p = "/v1/campaigns/plain/" + "/".join([l for l in body.decode().split("\n") if l.startswith("sessions/")][0].split("/")[:2]) + "/"
    s, body, ms = get(p + "tracking.json"); assert s == 200; t.append(ms)
t.sort(); print(f"tracking.json first fetch: p50 {statistics.median(t):.2f} ms p99 {t[int(len(t)*.99)]:.2f} ({len(body)} bytes)")
PY
kill $srv $pg; wait 2>/dev/null || true
rm -rf "$work"
