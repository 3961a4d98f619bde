# The MPEG-TS demo media toolkit, sourced by Campaigns/evening-news/media/generate.sh and
# Campaigns/single-asset/media/generate.sh: each asset a muxed H.264 + AAC-LC encode from
# ffmpeg's lavfi sources, in 1.92 s segments (48 frames at 25 fps, 90 AAC frames) with a
# keyframe at every segment start, its multivariant playlist written from the streams' own
# figures (peak and average bit rates, RFC 6381 codecs from the SPS, resolution).
#
# Needs: ffmpeg (5.1; libx264, native aac, drawtext), ffprobe, xxd, awk, coreutils. Callers
# set -euo pipefail and cd into their media folder first.

SEGMENT=1.92
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf   # fonts-dejavu-core
[[ -r $FONT ]] || FONT=""                                     # no font: colour + tone only

# Ladders: name width height video-kb/s.  Ads (and the slate) sit a little below the
# program on purpose, so "closest ad variant at or below" has something to decide.
PROGRAM_LADDER=("240p 426 240 120" "360p 640 360 240")
AD_LADDER=("180p 320 180 90" "360p 640 360 200")

# drawtext LABEL HEIGHT: the asset's name and a running timecode (or a no-op filter)
drawtext() {
  local label=$1 h=$2
  [[ -n $FONT ]] || { printf 'null'; return; }
  local big=$(( h / 7 )) small=$(( h / 11 ))
  printf "drawtext=fontfile=%s:text='%s':fontsize=%d:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=6:x=(w-tw)/2:y=h/6," "$FONT" "$label" "$big"
  printf "drawtext=fontfile=%s:text='%%{pts\\\\:hms}':fontsize=%d:fontcolor=yellow:box=1:boxcolor=black@0.6:boxborderw=4:x=(w-tw)/2:y=h-th-h/8" "$FONT" "$small"
}

# encode_variant DIR NAME W H KBPS DURATION VIDEO-SOURCE AUDIO-SOURCE LABEL
encode_variant() {
  local dir=$1 name=$2 w=$3 h=$4 kbps=$5 dur=$6 vsrc=$7 asrc=$8 label=$9
  local sep='='; [[ $vsrc == *=* ]] && sep=':'
  mkdir -p "$dir/$name"
  ffmpeg -nostdin -hide_banner -loglevel error -y -fflags +bitexact \
    -f lavfi -i "${vsrc}${sep}size=${w}x${h}:rate=25:duration=${dur}" \
    -f lavfi -i "${asrc}:sample_rate=48000:duration=${dur}" \
    -filter_complex "[0:v]setsar=1,$(drawtext "$label" "$h"),format=yuv420p[v];[1:a]volume=0.5,aformat=sample_fmts=fltp:channel_layouts=stereo[a]" \
    -map '[v]' -map '[a]' -map_metadata -1 -map_chapters -1 \
    -c:v libx264 -threads 1 -profile:v baseline -level:v 3.0 -preset medium \
    -b:v "${kbps}k" -maxrate "${kbps}k" -bufsize "${kbps}k" \
    -g 48 -keyint_min 48 -sc_threshold 0 -force_key_frames "expr:eq(mod(n,48),0)" \
    -flags:v +bitexact \
    -c:a aac -b:a 64k -ar 48000 -ac 2 -flags:a +bitexact \
    -f hls -hls_time "$SEGMENT" -hls_playlist_type vod -hls_list_size 0 \
    -hls_segment_type mpegts -hls_segment_filename "$dir/$name/seg_%03d.ts" \
    ${KEYINFO:+-hls_key_info_file "$KEYINFO"} \
    "$dir/$name/index.m3u8"
}

# key_for NAME KEY-HEX: the programme is AES-128 (whole segments, RFC 8216bis §4.4.4.4)
# through ffmpeg's -hls_key_info_file, the ads stay clear, so stitched sessions switch keys
# at every splice (DESIGN invariant 5). The key info names no IV; ffmpeg 5.1 then encrypts
# every segment with IV 0 and writes IV=0x0…0 itself. The key is fixed so the demo is
# reproducible; it protects nothing.
key_for() {
  local name=$1 hex=$2
  mkdir -p program/keys
  printf "$(sed 's/../\\x&/g' <<< "$hex")" > "program/keys/$name.key"
  printf '../../keys/%s.key\n%s\n' "$name" "program/keys/$name.key" > "program/keys/$name.keyinfo"
  echo "program/keys/$name.keyinfo"
}

# micros DECIMAL: "1.920000" -> 1920000
micros() {
  local int=${1%%.*} frac=
  [[ $1 == *.* ]] && frac=${1#*.}
  frac=${frac}000000
  echo $(( 10#$int * 1000000 + 10#${frac:0:6} ))
}

# bandwidth PLAYLIST: prints "PEAK AVERAGE" in bit/s, each rounded up.
# PEAK is the largest segment bit rate (bytes*8/EXTINF), as RFC 8216 §4.3.4.2 asks.
bandwidth() {
  local playlist=$1 dir line us=0 peak=0 total_bytes=0 total_us=0 bytes rate
  dir=$(dirname "$playlist")
  while IFS= read -r line; do
    line=${line%$'\r'}
    if [[ $line == '#EXTINF:'* ]]; then
      line=${line#'#EXTINF:'}; us=$(micros "${line%%,*}")
    elif [[ -n $line && $line != '#'* ]]; then
      bytes=$(stat -c %s "$dir/$line")
      rate=$(( (bytes * 8 * 1000000 + us - 1) / us ))
      (( rate > peak )) && peak=$rate
      total_bytes=$(( total_bytes + bytes )); total_us=$(( total_us + us ))
    fi
  done < "$playlist"
  echo "$peak $(( (total_bytes * 8 * 1000000 + total_us - 1) / total_us ))"
}

# avc_codec PLAYLIST: RFC 6381 string from the stream's own SPS (profile, flags, level)
avc_codec() {
  local sps
  sps=$(ffmpeg -nostdin -v error -allowed_extensions ALL -i "$1" -map 0:v:0 -c copy -frames:v 1 -f h264 - \
        | xxd -p | tr -d '\n' | grep -oE '000001[0-7]7[0-9a-f]{6}' || true)
  sps=${sps%%$'\n'*}
  [[ -n $sps ]] || { echo "no SPS in $1" >&2; exit 1; }
  echo "avc1.${sps:8:6}"
}

aac_codec() {
  local profile
  profile=$(ffprobe -v error -allowed_extensions ALL -select_streams a:0 -show_entries stream=profile -of csv=p=0 "$1" | awk 'NF && !n++')
  [[ $profile == LC ]] || { echo "expected AAC-LC in $1, got $profile" >&2; exit 1; }
  echo "mp4a.40.2"
}

# write_master DIR VARIANT...: multivariant playlist over the variants, lowest first
write_master() {
  local dir=$1; shift
  local name first w h bw avg codecs
  {
    echo '#EXTM3U'
    echo '#EXT-X-VERSION:3'
    echo '#EXT-X-INDEPENDENT-SEGMENTS'
    for name in "$@"; do
      # Probe through the playlist: ffmpeg decrypts the programme with its key.
      IFS=x read -r w h < <(ffprobe -v error -allowed_extensions ALL -select_streams v:0 -show_entries stream=width,height \
                        -of csv=p=0:s=x "$dir/$name/index.m3u8" | awk 'NF && !n++')
      read -r bw avg < <(bandwidth "$dir/$name/index.m3u8")
      codecs="$(avc_codec "$dir/$name/index.m3u8"),$(aac_codec "$dir/$name/index.m3u8")"
      echo "#EXT-X-STREAM-INF:BANDWIDTH=$bw,AVERAGE-BANDWIDTH=$avg,CODECS=\"$codecs\",RESOLUTION=${w}x${h},FRAME-RATE=25.000"
      echo "$name/index.m3u8"
    done
  } > "$dir/master.m3u8"
}

# asset DIR DURATION VIDEO-SOURCE AUDIO-SOURCE LABEL LADDER-NAME
asset() {
  local dir=$1 dur=$2 vsrc=$3 asrc=$4 label=$5 ladder=$6 rung names=()
  local -n rungs=$ladder
  rm -rf "$dir"
  for rung in "${rungs[@]}"; do
    read -r name w h kbps <<< "$rung"
    encode_variant "$dir" "$name" "$w" "$h" "$kbps" "$dur" "$vsrc" "$asrc" "$label"
    names+=("$name")
  done
  write_master "$dir" "${names[@]}"
  echo "  $dir ($dur s)"
}

