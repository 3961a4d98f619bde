#!/usr/bin/env bash
# Installs the Debian packages AdStitch needs to build and test, skipping what is present.
# Usage: scripts/install-deps.sh [extra-package…]
set -euo pipefail

# Build: pkg-config, PCRE2, zlib (gzip responses), libxml2 (VAST and VMAP). End-to-end tests: ffmpeg (ffprobe), GStreamer with the HLS demuxer and
# decoders, Chromium and its WebDriver, python3 (the test origins; python3-venv: hls.js and schemathesis come from PyPI),
# PostgreSQL (the live break history's tests start their own server on loopback), nginx (a CDN in front of a live
# channel's primary playlists; the HTTP benchmarks' reference server).
packages=(pkg-config libpcre2-dev zlib1g-dev libxml2-dev ffmpeg gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
    gstreamer1.0-plugins-bad gstreamer1.0-libav chromium chromium-driver python3 python3-venv postgresql nginx "$@")

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
