#!/usr/bin/env bash
# Builds the libFuzzer target over the playlist parser (Fuzz/PlaylistFuzzer.swift plus the
# HLSPlaylist sources, with AddressSanitizer) and runs it on a corpus seeded with the test
# fixtures. Usage: scripts/fuzz.sh [RUNS]   (default 1000000 executions)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1000000}"
out=.build-fuzz
mkdir -p "$out/corpus"
cp Tests/HLSPlaylistTests/Fixtures/*.m3u8 "$out/corpus/" 2>/dev/null || true

swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    -module-name PlaylistFuzzer \
    $(find Sources/HLSPlaylist -name '*.swift') Fuzz/PlaylistFuzzer.swift \
    -o "$out/playlist-fuzzer"

# -max_len 4096 keeps inputs playlist-sized; -timeout catches hangs.
"$out/playlist-fuzzer" "$out/corpus" -runs="$runs" -max_len=4096 -timeout=10 \
    -dict=Fuzz/hls.dict -print_final_stats=1 -artifact_prefix="$out/"
