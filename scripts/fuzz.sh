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

(cd Fuzz && swift build -c release --sanitize=fuzzer --sanitize=address --scratch-path "../$out/build")
bin="$out/build/release"

for target in "${targets[@]}"; do
    case "$target" in
        playlist) fuzzer=PlaylistFuzzer dict=Fuzz/hls.dict max=4096 ;;
        campaign) fuzzer=CampaignFuzzer dict="$out/campaign.dict" max=8192 ;;
        *) echo "unknown fuzz target $target (playlist, campaign)" >&2; exit 2 ;;
    esac
    echo "== $fuzzer: $runs executions"
    # -timeout catches hangs (a freeze is a finding); -rss_limit_mb catches runaway memory.
    LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0" "$bin/$fuzzer" "$out/corpus-$target" -runs="$runs" -max_len="$max" -timeout=10 -rss_limit_mb=2048 \
        -dict="$dict" -print_final_stats=1 -artifact_prefix="$out/$target-"
done
