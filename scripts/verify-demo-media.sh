#!/usr/bin/env bash
# Checks a demo campaign's media folder (e.g. Campaigns/evening-news/media):
#   1. `adstitch validate` on every .m3u8 (must report no errors);
#   2. per media playlist: segment count, EXTINF sum, distinct EXTINF values;
#   3. per media playlist, with ffprobe: first/last timestamp of each stream, so audio
#      and video can be seen to end together;
#   4. per master.m3u8 and media playlist, a full GStreamer decode (playbin3, so
#      hlsdemux2, over HTTP from a throwaway local server, since hlsdemux2 fetches with
#      libsoup and cannot read file://): frames / seconds decoded per sink, and errors.
# Usage: scripts/verify-demo-media.sh MEDIA-DIR   (ADSTITCH=path overrides the binary)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
media=$(cd "${1:?usage: $0 MEDIA-DIR}" && pwd)
adstitch=${ADSTITCH:-$root/.build/debug/adstitch}
status=0

echo "== adstitch validate"
mapfile -t playlists < <(cd "$media" && find . -name '*.m3u8' | sed 's|^\./||' | LC_ALL=C sort)
if (cd "$media" && "$adstitch" validate "${playlists[@]}"); then
  echo "   ${#playlists[@]} playlists, no errors"
else
  echo "   ERRORS (see above)"; status=1
fi

echo "== media playlists: EXTINF and stream timing (ffprobe, seconds)"
for p in "${playlists[@]}"; do
  grep -q '^#EXTINF' "$media/$p" || continue
  extinf=$(grep '^#EXTINF:' "$media/$p" | sed 's/^#EXTINF:\([^,]*\),.*/\1/')
  n=$(wc -l <<< "$extinf")
  sum=$(awk '{s+=$1} END{printf "%.6f", s}' <<< "$extinf")
  values=$(sort -u <<< "$extinf" | paste -sd' ')
  timing=$({ ffprobe -v error -allowed_extensions ALL -show_entries packet=codec_type,pts_time,duration_time \
             -of csv=p=0 "$media/$p" 2>/dev/null || true; } | { grep . || true; } | awk -F, '
      $2 != "N/A" { t=$1; s=$2+0; e=s+$3; n[t]++
        if (!(t in lo) || s < lo[t]) lo[t]=s
        if (!(t in hi) || e > hi[t]) hi[t]=e }
      END { for (t in n) printf "%s %.6f..%.6f (%.6f s, %d pkts)  ", t, lo[t], hi[t], hi[t]-lo[t], n[t]
            if (("video" in hi) && ("audio" in hi)) printf "end video-audio %+.6f", hi["video"]-hi["audio"] }')
  printf '%-36s %2d segs, sum %s, EXTINF {%s}\n      %s\n' "$p" "$n" "$sum" "$values" "$timing"
done

echo "== GStreamer (playbin3 over HTTP; video scaled to 64x36 I420, audio S16LE 48 kHz stereo)"
scratch=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# http.server answers Range requests with the whole file; byte-range playlists need 206s
cat > "$scratch/serve.py" <<'PY'
import http.server, os, re, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    def send_head(self):
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        path = self.translate_path(self.path)
        if not m or not os.path.isfile(path):
            return super().send_head()
        data = open(path, "rb").read()
        start = int(m[1]); end = int(m[2]) if m[2] else len(data) - 1
        body = data[start:end + 1]
        self.send_response(206)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Range", f"bytes {start}-{start + len(body) - 1}/{len(data)}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        import io
        return io.BytesIO(body)
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])),
    lambda *a: Handler(*a, directory=sys.argv[2])).serve_forever()
PY
python3 "$scratch/serve.py" "$port" "$media" > "$scratch/http.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$scratch"' EXIT
for _ in $(seq 50); do curl -fs -o /dev/null "http://127.0.0.1:$port/" 2>/dev/null && break; sleep 0.1; done
for p in "${playlists[@]}"; do
  [[ $p == *iframe* ]] && continue   # I-frame playlists are not for playback
  for attempt in 1 2; do   # one retry: the first request to the local server is sometimes refused
    rm -f "$scratch"/[vat]
    out=$(timeout 30 gst-launch-1.0 -q playbin3 "uri=http://127.0.0.1:$port/$p" \
            video-sink="videoconvert ! videoscale ! video/x-raw,format=I420,width=64,height=36 ! filesink location=$scratch/v" \
            audio-sink="audioconvert ! audioresample ! audio/x-raw,format=S16LE,rate=48000,channels=2 ! filesink location=$scratch/a" \
            text-sink="filesink location=$scratch/t" 2>&1) && rc=0 || rc=$?
    (( rc == 0 || rc == 124 )) && break   # 124: timed out, no point in waiting again
  done
  size() { [[ -f $1 ]] && stat -c %s "$1" || echo 0; }
  frames=$(( $(size "$scratch/v") / 3456 ))
  audio=$(awk -v b="$(size "$scratch/a")" 'BEGIN{printf "%.6f", b/192000}')
  text=$(size "$scratch/t")
  errors=$(grep -E 'ERROR|WARNING' <<< "$out" | head -n3 | paste -sd' ' || true)
  printf '%-36s rc=%d  video %3d frames (%.2f s)  audio %s s  text %d bytes %s\n' \
    "$p" "$rc" "$frames" "$(awk -v f="$frames" 'BEGIN{print f/25}')" "$audio" "$text" "$errors"
  (( rc == 0 )) || status=1
done
exit $status
