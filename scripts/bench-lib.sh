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
