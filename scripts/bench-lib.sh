# Sourced by the bench and soak scripts: their temporary folder and its clean-up, nginx's common
# configuration head, and the machine their reports name.

# bench_workspace NAME: $work, a new temporary folder, removed on exit once the processes whose
# PIDs the script keeps in server_pid, nginx_pid, origin_pid, ads_pid, tracker_pid, holder_pid
# and sampler_pid are stopped (the server waited for, so its port is free).
bench_workspace() {
    work=$(mktemp -d "/tmp/adstitch-$1.XXXXXX")
    server_pid="" nginx_pid="" origin_pid="" ads_pid="" tracker_pid="" holder_pid="" sampler_pid=""
    trap bench_cleanup EXIT
}

bench_cleanup() {
    local pid
    for pid in $holder_pid $sampler_pid $tracker_pid $ads_pid $origin_pid $nginx_pid $server_pid; do
        kill "$pid" 2>/dev/null || true
    done
    if [ -n "$server_pid" ]; then wait "$server_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}

# nginx_head WORKERS CONNECTIONS: the first lines of an nginx.conf in $work (pid file, error log,
# in the foreground); the script writes its `http { … }` after them.
nginx_head() {
    printf 'worker_processes %s;\npid %s/nginx.pid;\nerror_log %s/nginx-error.log warn;\ndaemon off;\nevents { worker_connections %s; }\n' \
        "$1" "$work" "$work" "$2"
}

# machine: what a report's "Machine:" line starts with — CPUs and their model, memory, Swift.
machine() {
    local cpu
    cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
    echo "$(nproc) CPUs ($cpu), $(awk '/^MemTotal:/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); $(swift --version 2>&1 | head -1 | sed 's/ (.*//')"
}

# write_reports SESSIONS_LUA OUT: a wrk script posting a viewing-quality report (a level, a stall,
# the end) to each of the first 1,000 sessions of SESSIONS_LUA in turn, 100 ms apart per connection.
write_reports() {
    python3 - "$1" "$2" <<'PY'
import re, sys
paths = re.findall(r'"(/v1/[^"]+)/v3\.m3u8"', open(sys.argv[1]).read())[:1000]
assert len(paths) == 1000, len(paths)
body = '{"events": [{"type": "level", "at": 12.5, "bandwidth": 2500000}, {"type": "stall", "at": 14.2, "duration": 0.6}, {"type": "ended", "at": 30}]}'
with open(sys.argv[2], "w") as lua:
    lua.write("paths = {\n" + ",\n".join(f'  "{p}/qoe"' for p in paths) + "\n}\n")
    lua.write("counter = 0\n")
    lua.write(f"body = '{body}'\n")
    lua.write('request = function()\n  counter = counter % #paths + 1\n  return wrk.format("POST", paths[counter], {["Content-Type"] = "application/json"}, body)\nend\n')
    lua.write("delay = function() return 100 end\n")
PY
}
