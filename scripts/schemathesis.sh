#!/usr/bin/env bash
# Property-based HTTP checks of `adstitch serve` against docs/openapi.yaml with schemathesis:
# no 5xx (not_a_server_error), every status code documented (status_code_conformance), every
# content type documented (content_type_conformance), every body valid against its schema
# (response_schema_conformance), over GET, HEAD and OPTIONS of every route; and 405 with
# `Allow` for POST, PUT, DELETE, PATCH and TRACE (unsupported_method).
#
# The binary must already be built (`swift build --product adstitch`); this script never builds.
# It installs schemathesis into a venv under .build-py/ when missing, serves Campaigns/ on
# loopback (with the live demo's channel and the catalogue demo's origin), starts real public and
# preview sessions on the demo campaigns, and steers the generated path parameters towards those
# campaigns (evening-news, feature-fmp4, live-news, catalogue and its titles), their tokens,
# files and media paths, so the run explores real sessions and media and not only 404s and
# 403s. Everything it writes goes to a temporary folder (kept on failure) and .build-py/.
# Exits non-zero on any failure, and prints one summary line.
#
# Usage: scripts/schemathesis.sh
# Environment: PORT (18181), MAX_EXAMPLES (30 per operation), MAX_TIME (seconds for the whole
#   run, 180), WORKERS (1), SEED (random), ADSTITCH_BIN (default $(swift build --show-bin-path)/adstitch),
#   SCHEMATHESIS_VERSION (4.32.5), KEEP_WORK=1 keeps the work folder (config, logs, report).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$(pwd)
port=${PORT:-18181}
max_examples=${MAX_EXAMPLES:-30}
max_time=${MAX_TIME:-180}
workers=${WORKERS:-1}
version=${SCHEMATHESIS_VERSION:-4.32.5}
venv=$root/.build-py/schemathesis-$version
base=http://127.0.0.1:$port
say() { echo "schemathesis.sh: $*" >&2; }

# --- schemathesis, pinned, in its own venv ---------------------------------------------------
if [ ! -x "$venv/bin/st" ]; then
    if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
        say "installing python3-venv"
        sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-venv
    fi
    say "installing schemathesis $version into ${venv#"$root"/}"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version"
fi
py=$venv/bin/python

# --- the binary (built beforehand) -------------------------------------------------------------
if [ -n "${ADSTITCH_BIN:-}" ]; then
    binary=$ADSTITCH_BIN
else
    binary="$(swift build --show-bin-path)/adstitch"
fi
if [ ! -x "$binary" ]; then
    say "no binary at $binary: build it first (swift build --product adstitch)"
    exit 2
fi

# --- the embedded schemas must still be docs/boundary-manifest.schema.json, docs/asset-list.schema.json,
# docs/live-boundary-manifest.schema.json and docs/tracking.schema.json
"$py" - "$root/docs/openapi.yaml" "$root/docs/boundary-manifest.schema.json" "$root/docs/asset-list.schema.json" \
    "$root/docs/live-boundary-manifest.schema.json" "$root/docs/tracking.schema.json" <<'EOF'
import json, sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
schemas = spec["components"]["schemas"]
# Each schema file: its top-level name in openapi and where its `$defs` went.
embedded = [
    (sys.argv[2], "BoundaryManifest", {"time": "BoundaryTime", "id": "BoundaryId", "break": "BoundaryBreak", "ad": "BoundaryAd",
                                       "island": "BoundaryIsland", "primary": "BoundaryPrimary"}),
    (sys.argv[3], "AssetList", {"asset": "AssetListAsset", "signaling": "AssetListSignaling", "creative": "AssetListCreative"}),
    (sys.argv[4], "LiveBoundaryManifest", {"date": "LiveBoundaryDate", "break": "LiveBoundaryBreak", "ad": "LiveBoundaryAd"}),
    (sys.argv[5], "TrackingDocument", {"time": "TrackingTime", "urls": "TrackingUrls", "break": "TrackingBreak", "ad": "TrackingAd",
                                       "event": "TrackingEvent", "verification": "TrackingVerification"}),
]
for path, top, names in embedded:
    def moved(node):
        if isinstance(node, dict):
            return {k: ("#/components/schemas/" + names[v.rsplit("/", 1)[1]] if k == "$ref" and v.startswith("#/$defs/") else moved(v))
                    for k, v in node.items()}
        return [moved(v) for v in node] if isinstance(node, list) else node
    schema = json.load(open(path))
    expected = {top: moved({k: v for k, v in schema.items() if k not in ("$schema", "$id", "$defs")})}
    expected.update({names[k]: moved(v) for k, v in schema["$defs"].items()})
    drift = [name for name, value in expected.items() if schemas.get(name) != value]
    if drift:
        sys.exit(f"schemathesis.sh: docs/openapi.yaml's {', '.join(drift)} differ from docs/{path.rsplit('/', 1)[1]}; copy it again")
EOF

# --- the server ----------------------------------------------------------------------------------
work=$(mktemp -d /tmp/adstitch-schemathesis.XXXXXX)
server_pid=""
origin_pid=""
titles_pid=""
cleanup() {
    status=$?
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null || true
    [ -n "$titles_pid" ] && kill "$titles_pid" 2>/dev/null || true
    if [ "${KEEP_WORK:-0}" = 1 ]; then say "work folder kept: $work"; else rm -rf "$work"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fetch() { "$py" -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1"; }

# The live demo's channel (Campaigns/live-news.yaml names 127.0.0.1:8081), so live sessions are
# explored too; without it (the port taken, by `make run` say) live-news fails to load and the
# run covers the VOD demos only.
live=(live-news live-news-interstitials)
if "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 8081))' 2>/dev/null; then
    "$py" scripts/live-origin.py --port 8081 --window 10 --first-break 3 --break-every 8 --break-length 3 --speed 2 >"$work/origin.log" 2>&1 &
    origin_pid=$!
    sleep 4  # a few segments published, so the live campaign loads with a window
else
    say "port 8081 is taken: the live demo is left out"
    live=()
fi

# The catalogue demo's origin (Campaigns/catalogue.yaml names 127.0.0.1:8083: the Campaigns folder
# served as it is), so catalogue titles are started too; without it (the port taken) the run
# leaves the catalogue out.
catalogue=(catalogue)
if "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 8083))' 2>/dev/null; then
    "$py" scripts/test-origin.py Campaigns 8083 >"$work/titles.log" 2>&1 &
    titles_pid=$!
else
    say "port 8083 is taken: the catalogue demo is left out"
    catalogue=()
fi

"$binary" serve --campaigns Campaigns --host 127.0.0.1 --port "$port" --secret test-secret --preview >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 150); do
    fetch "$base/healthz" >/dev/null 2>&1 && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.2
done
if ! fetch "$base/healthz" >/dev/null 2>&1; then
    tail -20 "$work/server.log" >&2
    say "the server did not answer $base/healthz (port taken? set PORT)"
    exit 1
fi

# Real sessions on each demo campaign, public and preview: their tokens, the files their masters
# list, and the media paths their first media playlist names.
ids=(evening-news feature-fmp4 "${live[@]}")
for id in "${live[@]}"; do
    for _ in $(seq 50); do fetch "$base/v1/campaigns/$id/master.m3u8" >/dev/null 2>&1 && break; sleep 0.2; done
done
: >"$work/sessions.txt"
: >"$work/media.txt"
token_uris='sessions/[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*/[^"/[:space:]]*'
for id in "${ids[@]}"; do
    fetch "$base/v1/campaigns/$id/master.m3u8?session=st-1&locale=es-ES&device=tv" >"$work/$id.master" || true
    grep -o "$token_uris" "$work/$id.master" >"$work/$id.txt" || true
    # A live interstitial session's master names the channel's playlists, its token in their query.
    grep -o 'channel/[^?]*?token=[A-Za-z0-9_.-]*' "$work/$id.master" | sed 's|channel/.*?token=\(.*\)|sessions/\1/assets-seq-1.json|' | sort -u >>"$work/$id.txt" || true
    fetch "$base/preview/$id/master.m3u8?session=st-1&at=2026-11-27T19:30:00Z" 2>/dev/null | grep -o "$token_uris" >>"$work/sessions.txt" || true
    cat "$work/$id.txt" >>"$work/sessions.txt"
    first=$(grep -m1 '/v0\.m3u8$' "$work/$id.txt" || grep -m1 '\.m3u8$' "$work/$id.txt" || true)
    [ -n "$first" ] && fetch "$base/v1/campaigns/$id/$first" | grep -o "/v1/campaigns/$id/media/[^\"[:space:]]*" |
        sed "s|^/v1/campaigns/$id/media/|$id |" | sort -u | head -20 >>"$work/media.txt" || true
done
# Catalogue titles: sessions of one, and title paths (some of them ad playlists, some not titles
# at all) for the `path` of its start route (the hook below puts them in place, as media paths).
titles=(single-asset/media/program/master.m3u8 evening-news/media/program/act-2/master.m3u8 single-asset/media/ads/alpha/master.m3u8
    single-asset/media/program/240p/index.m3u8 no-such-title/master.m3u8)
for id in "${catalogue[@]}"; do
    for title in "${titles[@]}"; do echo "$id $title" >>"$work/media.txt"; done
    fetch "$base/v1/campaigns/$id/assets/${titles[0]}?session=st-1&device=tv" | grep -o "$token_uris" >>"$work/sessions.txt" || true
done
if [ ! -s "$work/sessions.txt" ]; then
    tail -20 "$work/server.log" >&2
    say "could not start a session on the demo campaigns"
    exit 1
fi
toml_list() { sort -u | "$py" -c 'import json, sys; print(json.dumps([l for l in sys.stdin.read().split() if l]))'; }
tokens=$(cut -d/ -f2 "$work/sessions.txt" | toml_list)
files=$( (cut -d/ -f3 "$work/sessions.txt"; echo boundaries.json; echo empty.vtt) | toml_list)
media=$( (seq -f 'adstitch-media-%g' 0 9; echo campaign.yaml; echo no-such-file.ts) | toml_list)

# Path parameters mostly from these dictionaries (the rest generated, so 404s and 403s are
# explored too); Range headers mostly real ones, satisfiable or not.
cat >"$work/schemathesis.toml" <<EOF
[cache]
directory = "$root/.build-py/schemathesis-cache"

[dictionaries]
campaigns = { values = $(printf '%s\n' "${ids[@]}" "${catalogue[@]}" | toml_list) }
tokens = { values = $tokens }
files = { values = $files }
media = { values = $media }
ranges = { values = ["bytes=0-99", "bytes=10-", "bytes=-16", "bytes=0-0", "bytes=999999999-", "bytes=5-2", "bytes=0-1,4-5", "items=0-1", "bytes=-0"] }

[parameters]
"path.id" = { dictionary = "campaigns", probability = 0.9 }
"path.token" = { dictionary = "tokens", probability = 0.8 }
"path.file" = { dictionary = "files", probability = 0.8 }
"path.path" = { dictionary = "media", probability = 0.8 }
"header.Range" = { dictionary = "ranges", probability = 0.6 }

[phases.coverage]
# The methods the routes answer 405 to (QUERY is not routed at all: 404).
unexpected-methods = ["POST", "PUT", "DELETE", "PATCH", "TRACE"]
EOF

# Playlists, WebVTT, HTML, CSS and JavaScript are text: read them so their schemas are checked.
# Media paths have several segments, which one OpenAPI path parameter cannot hold (schemathesis
# never generates a `/` in one): the dictionary has placeholders `adstitch-media-N`, and just
# before each call this hook puts the campaign's N-th real media path (media.txt) in their place.
cat >"$work/hooks.py" <<'EOF'
import collections, os
import schemathesis

MEDIA = collections.defaultdict(list)
for line in open(os.environ["ADSTITCH_MEDIA_PATHS"]):
    campaign, _, path = line.strip().partition(" ")
    if path:
        MEDIA[campaign].append(path)
PLACEHOLDER = "adstitch-media-"

@schemathesis.hook
def before_call(context, case, kwargs):
    parameters = case.path_parameters or {}
    value, campaign = parameters.get("path"), parameters.get("id")
    if isinstance(value, str) and value[len(PLACEHOLDER):].isdigit() and value.startswith(PLACEHOLDER) and MEDIA.get(campaign):
        paths = MEDIA[campaign]
        parameters["path"] = paths[int(value[len(PLACEHOLDER):]) % len(paths)]

@schemathesis.deserializer("application/vnd.apple.mpegurl", "text/vtt", "text/html", "text/css", "text/javascript")
def text(ctx, response):
    return response.content.decode("utf-8")
EOF

say "running schemathesis $version against $base (max $max_examples examples per operation, ${max_time}s)"
seed_args=()
[ -n "${SEED:-}" ] && seed_args=(--seed "$SEED")
set +e
SCHEMATHESIS_HOOKS=$work/hooks.py ADSTITCH_MEDIA_PATHS=$work/media.txt "$venv/bin/st" --config-file "$work/schemathesis.toml" run docs/openapi.yaml \
    --url "$base" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,unsupported_method \
    --max-examples "$max_examples" --max-time "$max_time" --workers "$workers" --request-timeout 10 \
    --suppress-health-check all --warnings off \
    --report junit --report-junit-path "$work/junit.xml" "${seed_args[@]}" 2>&1 | tee "$work/schemathesis.log"
st_status=${PIPESTATUS[0]}
set -e

server_alive=1
kill -0 "$server_pid" 2>/dev/null || server_alive=0
# What the run reached, from the server's own request counter: answers by route and status.
if [ "$server_alive" = 1 ] && fetch "$base/metrics" >"$work/metrics.txt" 2>/dev/null; then
    "$py" - "$work/metrics.txt" <<'EOF' >&2 || true
import collections, re, sys
counts = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    m = re.match(r'adstitch_http_requests_total\{(.*)\} ([0-9.e+]+)$', line.strip())
    if m:
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        counts[labels.get("route", "?")][labels.get("status", "?")] += int(float(m.group(2)))
print("schemathesis.sh: answers by route and status:")
for route in sorted(counts):
    print(f"  {route:48} " + "  ".join(f"{status}×{n}" for status, n in sorted(counts[route].items())))
EOF
fi
if [ "$server_alive" = 0 ]; then
    tail -30 "$work/server.log" >&2
    say "the server died during the run (above: the end of its log)"
fi
if grep -qE ' (error|critical) |Fatal error' "$work/server.log"; then
    say "the server logged errors (first ten):"
    grep -E ' (error|critical) |Fatal error' "$work/server.log" | head -10 >&2
fi

summary=$("$py" - "$work/junit.xml" "$work/schemathesis.log" <<'EOF' 2>/dev/null || echo "no JUnit report"
import re, sys, xml.etree.ElementTree as ET
cases = [c for c in ET.parse(sys.argv[1]).getroot().iter("testcase") if c.get("name") != "Stateful tests"]
failed = sum(1 for c in cases if c.find("failure") is not None or c.find("error") is not None)
generated = re.search(r"(\d+) generated", open(sys.argv[2], errors="replace").read())
print(f"{len(cases)} operations, {failed} with failures, {generated.group(1) if generated else '?'} test cases")
EOF
)
if [ "$st_status" -eq 0 ] && [ "$server_alive" = 1 ]; then
    echo "schemathesis: PASS — $summary (schemathesis $version, max $max_examples examples, ${max_time}s)"
    exit 0
fi
echo "schemathesis: FAIL — $summary; schemathesis exit $st_status, server $([ "$server_alive" = 1 ] && echo alive || echo DEAD)"
KEEP_WORK=1
exit 1
