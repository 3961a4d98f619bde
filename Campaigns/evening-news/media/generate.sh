#!/usr/bin/env bash
# Regenerates every media file of the evening-news demo campaign (MPEG-TS, muxed
# H.264 + AAC-LC) from nothing but ffmpeg's lavfi sources.  Run it from anywhere:
#
#     Campaigns/evening-news/media/generate.sh
#
# It deletes and rewrites program/, ads/ and slate/ next to this script; nothing else.
# Each asset (island, ad, slate) is its own encode, so audio and video end together.
#
# Timing: every duration is a multiple of 0.64 s, where 25 fps video frames (40 ms)
# and AAC frames (1024/48000 s) both end; segments are 1.92 s (48 frames, 90 AAC
# frames) with a keyframe at every segment start.  The AAC encoder's 1024 priming
# samples make each asset's audio start 21.333 ms before its video; both end together.
#
# Needs: ffmpeg (5.1; libx264, native aac, drawtext), ffprobe, xxd, awk, coreutils.
set -euo pipefail
# (pipelines here never end in an early-exiting reader such as head: with pipefail a
#  writer killed by SIGPIPE would stop the script silently with status 141)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

# The encoding functions (encode_variant, key_for, asset…) and the ladders.
source "$here/../../../scripts/ts-demo-media.sh"

echo "evening-news media:"
rm -rf program ads slate
#     directory        seconds  video source              audio source                          label         ladder
KEYINFO=$(key_for act-1 000102030405060708090a0b0c0d0e0f) \
asset program/act-1    7.68     testsrc2                  "sine=frequency=440"                  "ACT 1"       PROGRAM_LADDER
KEYINFO=$(key_for act-2 f0e0d0c0b0a090807060504030201000) \
asset program/act-2    5.76     testsrc                   "sine=frequency=523"                  "ACT 2"       PROGRAM_LADDER
rm -f program/keys/*.keyinfo
asset ads/alpha        5.76     smptebars                 "sine=frequency=660:beep_factor=2"    "AD ALPHA"    AD_LADDER
asset ads/bravo        3.84     "color=c=0xB22222"        "sine=frequency=770:beep_factor=2"    "AD BRAVO"    AD_LADDER
asset ads/charlie      7.68     "color=c=0x1E3A8A"        "sine=frequency=880:beep_factor=2"    "AD CHARLIE"  AD_LADDER
asset ads/delta        1.92     "color=c=0x2E7D32"        "sine=frequency=990:beep_factor=2"    "AD DELTA"    AD_LADDER
asset slate            1.92     "color=c=0x404040"        "sine=frequency=220"                  "SLATE"       AD_LADDER
