#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/: the playlist parser, and the campaign pipeline — load,
# plan, render every file of a session) with AddressSanitizer, and runs each for RUNS executions
# on a corpus seeded with the test fixtures. Usage: scripts/fuzz.sh [RUNS] [TARGET…]
# (default 1000000 executions; targets playlist and campaign). Findings land in .build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1000000}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(playlist campaign)
out=.build-fuzz
mkdir -p "$out/corpus-playlist" "$out/corpus-campaign"
cp Tests/HLSPlaylistTests/Fixtures/*.m3u8 "$out/corpus-playlist/" 2>/dev/null || true
cp Fuzz/Seeds/campaign/*.txt "$out/corpus-campaign/"
cat Fuzz/campaign.dict Fuzz/hls.dict > "$out/campaign.dict"

# Each fuzzer is built as its own product, in the debug configuration with -O, with
# --disable-dead-strip: a release (whole-module) build was seen to compile dependency modules a
# second time without coverage, and the linker's section garbage collection drops the coverage
# counters — either leaves libFuzzer blind. The count is checked before each run.
scratch="${TMPDIR:-/tmp}/adstitch-fuzz-build"
build() {
    rm -f "$scratch/debug/$1"
    local flags=(-c debug -Xswiftc -O --sanitize=fuzzer --sanitize=address --disable-dead-strip --scratch-path "$scratch" --product "$1")
    (cd Fuzz && swift build "${flags[@]}")
    # Observed with Swift 6.3: a clean build leaves our Swift modules' objects without coverage
    # counters (only C code is instrumented), while objects compiled again in a later build of
    # the product get them. So the objects of the modules the fuzzers exercise are compiled
    # once more, in a build where everything else is already there.
    for module in HLSPlaylist AdCampaign AdDecision AdStitching Yams PlaylistFuzzer CampaignFuzzer; do
        rm -f "$scratch/x86_64-unknown-linux-gnu/debug/$module.build/"*.o
    done
    (cd Fuzz && swift build "${flags[@]}")
}
bin="$scratch/debug"
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0"

for target in "${targets[@]}"; do
    case "$target" in
        playlist) fuzzer=PlaylistFuzzer dict=Fuzz/hls.dict max=4096 ;;
        campaign) fuzzer=CampaignFuzzer dict="$out/campaign.dict" max=8192 ;;
        *) echo "unknown fuzz target $target (playlist, campaign)" >&2; exit 2 ;;
    esac
    build "$fuzzer"
    echo "== $fuzzer: $runs executions"
    counters=$("$bin/$fuzzer" -runs=0 -artifact_prefix="$out/" 2>&1 | sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' | head -1)
    if [ "${counters:-0}" -lt 5000 ]; then echo "fuzz: $fuzzer is not instrumented for coverage (${counters:-0} counters)" >&2; exit 1; fi
    # -timeout catches hangs (a freeze is a finding); -rss_limit_mb catches runaway memory.
    "$bin/$fuzzer" "$out/corpus-$target" -runs="$runs" -max_len="$max" -timeout=10 -rss_limit_mb=2048 \
        -dict="$dict" -print_final_stats=1 -artifact_prefix="$out/$target-"
done
