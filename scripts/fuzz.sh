#!/usr/bin/env bash
# Builds the libFuzzer targets (Fuzz/: the playlist parser, the campaign pipeline — load,
# plan, render every file of a session —, the SCTE-35 decoder, a live channel's numbering under
# origin faults, and ad servers' VAST/VMAP answers) with AddressSanitizer, and runs each for RUNS
# executions on a corpus seeded with the test fixtures. Usage: scripts/fuzz.sh [RUNS] [TARGET…]
# (default 1000000 executions; targets playlist, campaign, scte35, live and vast). Findings land in
# .build-fuzz/. VAST_SAMPLES=DIR adds the XML files below DIR to the VAST corpus (IAB Tech Lab's
# VAST_Samples repository, say: not ours to commit).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-1000000}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(playlist campaign scte35 live vast)
out=.build-fuzz
mkdir -p "$out/corpus-playlist" "$out/corpus-campaign" "$out/corpus-scte35" "$out/corpus-live" "$out/corpus-vast"
cp Tests/HLSPlaylistTests/Fixtures/*.m3u8 "$out/corpus-playlist/" 2>/dev/null || true
cp Fuzz/Seeds/campaign/*.txt "$out/corpus-campaign/"
cp Fuzz/Seeds/scte35/*.bin "$out/corpus-scte35/"
cp Fuzz/Seeds/live/*.bin "$out/corpus-live/"
cp Fuzz/Seeds/vast/*.xml Tests/AdServerTests/Fixtures/*.xml "$out/corpus-vast/"
if [ -n "${VAST_SAMPLES:-}" ]; then
    find "$VAST_SAMPLES" -name '*.xml' | while read -r sample; do cp "$sample" "$out/corpus-vast/iab-$(basename "$sample" | tr ' ' '_')"; done
fi
cat Fuzz/campaign.dict Fuzz/hls.dict > "$out/campaign.dict"

# Each fuzzer is built as its own product, in the debug configuration with -O, with
# --disable-dead-strip: a release (whole-module) build was seen to compile dependency modules a
# second time without coverage, and the linker's section garbage collection drops the coverage
# counters — either leaves libFuzzer blind. The count is checked before each run.
scratch="${TMPDIR:-/tmp}/adstitch-fuzz-build"
build() {
    rm -f "$scratch/debug/$1"
    # -sanitize=fuzzer,address in one flag as well: given as two (--sanitize=fuzzer
    # --sanitize=address), Swift 6.3's driver was seen to hand the compiler jobs only one of them,
    # leaving some modules without coverage counters (libFuzzer then runs blind).
    (cd Fuzz && swift build -c debug -Xswiftc -O -Xswiftc -sanitize=fuzzer,address --sanitize=fuzzer --sanitize=address \
        --disable-dead-strip --scratch-path "$scratch" --product "$1")
}
bin="$scratch/debug"
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0"

for target in "${targets[@]}"; do
    case "$target" in
        # least: the coverage counters an instrumented build has at the least (a blind one has
        # only the C code's, or none).
        playlist) fuzzer=PlaylistFuzzer dict=Fuzz/hls.dict max=4096 least=5000 ;;
        campaign) fuzzer=CampaignFuzzer dict="$out/campaign.dict" max=8192 least=5000 ;;
        scte35) fuzzer=SCTE35Fuzzer dict="" max=512 least=500 ;;
        # live: each input is a script of origin behaviour; its windows are counted on exit.
        live) fuzzer=LiveFuzzer dict="" max=1024 least=2000 ;;
        vast) fuzzer=VASTFuzzer dict=Fuzz/vast.dict max=32768 least=3000 ;;
        *) echo "unknown fuzz target $target (playlist, campaign, scte35, live, vast)" >&2; exit 2 ;;
    esac
    build "$fuzzer"
    echo "== $fuzzer: $runs executions"
    counters=$("$bin/$fuzzer" -runs=0 -artifact_prefix="$out/" 2>&1 | sed -n 's/.*(\([0-9]*\) inline 8-bit counters).*/\1/p' | head -1)
    if [ "${counters:-0}" -lt "$least" ]; then echo "fuzz: $fuzzer is not instrumented for coverage (${counters:-0} counters)" >&2; exit 1; fi
    # -timeout catches hangs (a freeze is a finding); -rss_limit_mb catches runaway memory.
    "$bin/$fuzzer" "$out/corpus-$target" -runs="$runs" -max_len="$max" -timeout=10 -rss_limit_mb=2048 \
        ${dict:+-dict="$dict"} -print_final_stats=1 -artifact_prefix="$out/$target-"
done
