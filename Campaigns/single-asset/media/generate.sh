#!/usr/bin/env bash
# Regenerates every media file of the single-asset demo campaign (docs/campaign-format.md "One programme asset"): ONE continuous
# programme encode (MPEG-TS, muxed H.264 + AAC-LC, two variants, 30.72 s in sixteen 1.92 s
# segments) whose playlists carry the ad markers a packager writes, two ads and a slate.
# Run it from anywhere:
#
#     Campaigns/single-asset/media/generate.sh
#
# Markers, in both programme variants (the segment numbers count from 0):
#   - EXT-X-CUE-OUT:DURATION=3.84 before segment 3, EXT-X-CUE-OUT-CONT before 4, EXT-X-CUE-IN
#     before 5: segments 3–4 (5.76–9.60 s) are replaced by ads;
#   - EXT-X-DATERANGE SCTE35-OUT (a splice_insert, event 42) before segment 8 and its SCTE35-IN
#     before segment 9: segment 8 (15.36–17.28 s) is replaced;
# and the campaign asks for a third break at 24.0 s, which snaps to 23.04 s.
#
# Needs what scripts/ts-demo-media.sh needs, and awk.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"
source "$here/../../../scripts/ts-demo-media.sh"

# mark PLAYLIST: writes the markers into a programme media playlist (before the EXTINF of
# the segments named above) and a PROGRAM-DATE-TIME, which date ranges need (RFC 8216bis §4.4.5.1).
mark() {
  local out=$1 insert=0xFC302500000000000000FFF014050000002A7FEFFE001B7740FE000AFC8000010000000028B71513
  local back=0xFC302000000000000000FFF00F050000002A7F4FFE001B7740000100000000B8C67A81
  awk -v out="$insert" -v back="$back" '
    /^#EXTINF/ {
      if (n == 0) print "#EXT-X-PROGRAM-DATE-TIME:2026-11-24T00:00:00.000Z"
      if (n == 3) print "#EXT-X-CUE-OUT:DURATION=3.84"
      if (n == 4) print "#EXT-X-CUE-OUT-CONT:ElapsedTime=1.92,Duration=3.84"
      if (n == 5) print "#EXT-X-CUE-IN"
      if (n == 8) print "#EXT-X-DATERANGE:ID=\"splice-42\",START-DATE=\"2026-11-24T00:00:15.360Z\",PLANNED-DURATION=1.92,SCTE35-OUT=" out
      if (n == 9) print "#EXT-X-DATERANGE:ID=\"splice-42\",START-DATE=\"2026-11-24T00:00:15.360Z\",END-DATE=\"2026-11-24T00:00:17.280Z\",SCTE35-IN=" back
      n++
    }
    { print }
  ' "$out" > "$out.marked" && mv "$out.marked" "$out"
}

echo "single-asset media:"
rm -rf program ads slate
#     directory      seconds  video source          audio source                          label        ladder
asset program        30.72    testsrc2              "sine=frequency=440"                  "PROGRAMME"  PROGRAM_LADDER
asset ads/alpha      3.84     smptebars             "sine=frequency=660:beep_factor=2"    "AD ALPHA"   AD_LADDER
asset ads/bravo      1.92     "color=c=0xB22222"    "sine=frequency=770:beep_factor=2"    "AD BRAVO"   AD_LADDER
asset slate          1.92     "color=c=0x404040"    "sine=frequency=220"                  "SLATE"      AD_LADDER
for playlist in program/*/index.m3u8; do mark "$playlist"; done
echo "  markers written into program/*/index.m3u8"
