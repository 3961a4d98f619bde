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
