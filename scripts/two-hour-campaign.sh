# Sourced by bench-http.sh and soak.sh: builds `adstitch` and the two-hour campaign writer
# (release), writes the campaign under $1/campaigns/two-hours, and defines free_port and
# wait_ready. Sets $binary.
echo "$(basename "$0"): building (release)…" >&2
swift build -c release --product adstitch >&2
(cd Benchmarks && swift build -c release --product write-two-hour-campaign >&2)
binary=$(swift build -c release --show-bin-path)/adstitch
writer=$(cd Benchmarks && swift build -c release --show-bin-path)/write-two-hour-campaign
mkdir -p "$1/campaigns/two-hours"
"$writer" "$1/campaigns/two-hours" >/dev/null

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_ready PORT LOG: until /readyz answers (10 s at most), else the log and exit 1.
wait_ready() {
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$1/readyz" >/dev/null && return 0; sleep 0.1; done
    cat "$2" >&2
    echo "$(basename "$0"): the server did not start" >&2
    exit 1
}

# write_sessions PORT OUT PREFIX [CAMPAIGN RENDITION]: starts 2,000 sessions (PREFIX-0 …) of
# CAMPAIGN (default two-hours) and writes OUT (a wrk script asking for their RENDITION.m3u8,
# default v3, in turn) and OUT's -gzip twin (the same with Accept-Encoding: gzip).
write_sessions() {
    python3 - "$1" "$2" "$3" "${4:-two-hours}" "${5:-v3}" <<'PY'
import http.client, sys
port, out, prefix, campaign, rendition = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
connection = http.client.HTTPConnection("127.0.0.1", port)
paths = []
for index in range(2000):
    connection.request("GET", f"/v1/campaigns/{campaign}/master.m3u8?session={prefix}-{index}&locale=en-GB")
    master = connection.getresponse().read().decode()
    paths += [f"/v1/campaigns/{campaign}/" + line for line in master.splitlines() if line.endswith(f"/{rendition}.m3u8")]
assert len(paths) == 2000, f"{len(paths)} sessions of {campaign} started"
for name, headers in ((out, "nil"), (out.replace(".lua", "-gzip.lua"), '{["Accept-Encoding"] = "gzip"}')):
    with open(name, "w") as lua:
        lua.write("paths = {\n" + ",\n".join(f'  "{p}"' for p in paths) + "\n}\n")
        lua.write(f"counter = 0\nrequest = function()\n  counter = counter % #paths + 1\n  return wrk.format(\"GET\", paths[counter], {headers})\nend\n")
PY
}
