#!/usr/bin/env bash
# Regenerates every media file of the feature-fmp4 demo campaign from ffmpeg's lavfi
# sources (plus the two committed AES keys in keys/).  Run it from anywhere:
#
#     Campaigns/feature-fmp4/media/generate.sh
#
# It deletes and rewrites program/, ads/ and slate/ next to this script; keys/ is input.
#
# What it exercises (each asset is its own encode; nothing is cut from a longer one):
#   * fMP4 (CMAF-style) segments with EXT-X-MAP, 1.92 s segments, keyframe at each start;
#   * demuxed audio: EXT-X-MEDIA TYPE=AUDIO renditions in group "aud", English (DEFAULT)
#     and Spanish (a different tone); ads/bravo is English-only, so a stitcher must fall
#     back to the DEFAULT rendition for Spanish viewers;
#   * WebVTT subtitles for the program (EXT-X-MEDIA TYPE=SUBTITLES, group "subs");
#   * AES-128 on the program: video, audio and I-frame media and their init sections
#     (subtitles stay clear).  ffmpeg 5.1 refuses to encrypt fMP4 ("Encrypted fmp4 not
#     yet supported"), so files are encrypted here with openssl (AES-128-CBC, PKCS7, each
#     file whole), as RFC 8216 §5.2 describes.  EXT-X-KEY comes before EXT-X-MAP, so the
#     key applies to the init section too, and it carries an explicit IV, which §4.4.4.5
#     requires for an encrypted init section.  (GStreamer 1.22's hlsdemux2 decrypts the
#     init section with the segment's key whatever the tag order, so a clear init after a
#     KEY does not play there.)  Each island has its own key and IV;
#   * byte ranges: ads/bravo and slate are single files (-hls_flags single_file), and
#     the clear I-frame playlist (ads/alpha) addresses one file by EXT-X-BYTERANGE;
#   * I-frame playlists (EXT-X-I-FRAME-STREAM-INF) for the islands and ads/alpha: the
#     variant's own keyframes (copied bit for bit, no re-encode) in a fragmented MP4,
#     one fragment per keyframe, each fragment an I-frame segment of 1.92 s (the
#     encrypted program's I-frames are separate, whole-encrypted files; see below).
#
# Audio: the native AAC encoder adds 1024 priming samples that fMP4 output here does not
# signal (no edit list), so each audio rendition is fed 1024 samples less than its
# duration: it then encodes to exactly the asset's duration (3 x 1.920000 s for 5.76 s)
# and ends together with the video.
#
# The committed build is clear: GStreamer 1.22, the one client here that plays fMP4 across
# discontinuities, cannot decrypt AES-128 fMP4, and the end-to-end tests decode every frame
# of a stitched session. AES-128 meets real clients in the TS demo (evening-news) instead.
# ENCRYPT_PROGRAM=1 builds the encrypted variant described above (keys in keys/).
#
# Needs: ffmpeg 5.1 (libx264, native aac, drawtext), ffprobe, openssl, xxd, od, coreutils.
set -euo pipefail
# (pipelines here never end in an early-exiting reader such as head: with pipefail a
#  writer killed by SIGPIPE would stop the script silently with status 141)

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cd "$here"

SEGMENT=1.92
SEGMENT_US=1920000
FONT=/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf   # fonts-dejavu-core
[[ -r $FONT ]] || FONT=""                                     # no font: colour + tone only

# Ladders: name width height video-kb/s.  Ads and slate sit a little below the program.
PROGRAM_LADDER=("240p 426 240 120" "360p 640 360 240")
AD_LADDER=("180p 320 180 90" "360p 640 360 200")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ff() { ffmpeg -nostdin -hide_banner -loglevel error -y -fflags +bitexact "$@"; }

# micros DECIMAL: "1.920000" -> 1920000
micros() {
  local int=${1%%.*} frac=
  [[ $1 == *.* ]] && frac=${1#*.}
  frac=${frac}000000
  echo $(( 10#$int * 1000000 + 10#${frac:0:6} ))
}

# drawtext LABEL HEIGHT: the asset's name and a running timecode (or a no-op filter)
drawtext() {
  local label=$1 h=$2
  [[ -n $FONT ]] || { printf 'null'; return; }
  local big=$(( h / 7 )) small=$(( h / 11 ))
  printf "drawtext=fontfile=%s:text='%s':fontsize=%d:fontcolor=white:box=1:boxcolor=black@0.6:boxborderw=6:x=(w-tw)/2:y=h/6," "$FONT" "$label" "$big"
  printf "drawtext=fontfile=%s:text='%%{pts\\\\:hms}':fontsize=%d:fontcolor=yellow:box=1:boxcolor=black@0.6:boxborderw=4:x=(w-tw)/2:y=h-th-h/8" "$FONT" "$small"
}

# hls_args DIR MODE STEM: ffmpeg HLS fMP4 muxer options (MODE: segments | single)
hls_args() {
  local dir=$1 mode=$2 stem=$3
  printf '%s\n' -f hls -hls_time "$SEGMENT" -hls_playlist_type vod -hls_list_size 0 -hls_segment_type fmp4
  if [[ $mode == single ]]; then
    printf '%s\n' -hls_flags single_file -hls_segment_filename "$dir/$stem.mp4"
  else
    printf '%s\n' -hls_fmp4_init_filename init.mp4 -hls_segment_filename "$dir/seg_%03d.m4s"
  fi
  printf '%s\n' "$dir/index.m3u8"
}

# set_version PLAYLIST N: ffmpeg declares 7; declare the minimum the features need
set_version() { sed -i "s/^#EXT-X-VERSION:.*/#EXT-X-VERSION:$2/" "$1"; }

# video DIR W H KBPS DURATION VIDEO-SOURCE LABEL MODE IFRAMES(yes|no)
video() {
  local dir=$1 w=$2 h=$3 kbps=$4 dur=$5 vsrc=$6 label=$7 mode=$8 iframes=$9
  local sep='=' tmp="$work/video.mp4" args
  [[ $vsrc == *=* ]] && sep=':'
  mkdir -p "$dir"
  # One encode; the variant and its I-frame media are both copies of this bitstream.
  ff -f lavfi -i "${vsrc}${sep}size=${w}x${h}:rate=25:duration=${dur}" \
     -vf "setsar=1,$(drawtext "$label" "$h"),format=yuv420p" -map_metadata -1 \
     -c:v libx264 -threads 1 -profile:v baseline -level:v 3.0 -preset medium \
     -b:v "${kbps}k" -maxrate "${kbps}k" -bufsize "${kbps}k" \
     -g 48 -keyint_min 48 -sc_threshold 0 -force_key_frames "expr:eq(mod(n,48),0)" \
     -flags:v +bitexact -f mp4 "$tmp"
  mapfile -t args < <(hls_args "$dir" "$mode" video)
  ff -i "$tmp" -map 0:v -c copy -map_metadata -1 -flags:v +bitexact "${args[@]}"
  set_version "$dir/index.m3u8" 6
  if [[ $iframes == yes ]]; then
    # keyframes only, each lasting until the next one (1.92 s), one fragment each
    ff -i "$tmp" -map 0:v -c copy -bsf:v "noise=drop=not(key),setts=duration=${SEGMENT}/TB" \
       -map_metadata -1 -flags:v +bitexact \
       -movflags +frag_keyframe+empty_moov+default_base_moof+skip_trailer -f mp4 "$dir/iframes.mp4"
  fi
}

# audio DIR DURATION AUDIO-SOURCE MODE
audio() {
  local dir=$1 dur=$2 asrc=$3 mode=$4 args samples
  samples=$(( $(micros "$dur") * 48 / 1000 - 1024 ))   # + 1024 priming = exactly DURATION
  mkdir -p "$dir"
  mapfile -t args < <(hls_args "$dir" "$mode" audio)
  ff -f lavfi -i "${asrc}:sample_rate=48000:duration=${dur}" \
     -af "atrim=end_sample=${samples},volume=0.5,aformat=sample_fmts=fltp:channel_layouts=stereo" \
     -map_metadata -1 -c:a aac -b:a 64k -ar 48000 -ac 2 -flags:a +bitexact "${args[@]}"
  set_version "$dir/index.m3u8" 6
}

# subtitles DIR DURATION LABEL: WebVTT, one file per 1.92 s segment, two cues in each.
# Cue times are on the island's own timeline, which starts at 0 like the fMP4 media
# (tfdt 0), hence X-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000.
subtitles() {
  local dir=$1 dur=$2 label=$3 n i c start
  n=$(( $(micros "$dur") / SEGMENT_US ))
  mkdir -p "$dir"
  vtt_time() { printf '00:00:%02d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )); }   # ms < 60 s
  {
    printf '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n'
    for (( i = 0; i < n; i++ )); do printf '#EXTINF:1.920000,\nseg_%03d.vtt\n' "$i"; done
    printf '#EXT-X-ENDLIST\n'
  } > "$dir/index.m3u8"
  for (( i = 0; i < n; i++ )); do
    {
      printf 'WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n'
      for c in 0 1; do
        start=$(( i * 1920 + c * 960 ))
        printf '%s --> %s\n%s, line %d of %d\n\n' "$(vtt_time $start)" "$(vtt_time $(( start + 960 )))" \
          "$label" $(( 2 * i + c + 1 )) $(( 2 * n ))
      done
    } > "$dir/$(printf 'seg_%03d.vtt' "$i")"
  done
}

# top_boxes FILE: "offset size type" for each top-level ISO BMFF box
top_boxes() {
  local file=$1 off=0 len hdr size
  len=$(stat -c %s "$file")
  while (( off < len )); do
    hdr=$(od -An -tx1 -j "$off" -N 8 "$file" | tr -d ' \n')
    size=$(( 16#${hdr:0:8} ))
    (( size >= 8 )) || { echo "unsupported box size at $off in $file" >&2; exit 1; }
    echo "$off $size $(xxd -r -p <<< "${hdr:8:8}")"
    off=$(( off + size ))
  done
}

# aes FILE-IN FILE-OUT KEYHEX IVHEX
aes() { openssl enc -aes-128-cbc -K "$3" -iv "$4" -in "$1" -out "$2"; }

# iframe_playlist DIR TOTAL-SECONDS [KEYHEX KEYURI KEYIV]: writes DIR/iframes.m3u8 over
# DIR/iframes.mp4 (init = ftyp+moov, then one moof+mdat fragment per keyframe).
#   clear:     the playlist addresses that one file with EXT-X-BYTERANGE;
#   encrypted: the init and each fragment become separate files (iframe_init.mp4,
#              iframe_NNN.m4s), each encrypted whole, because players disagree on how
#              AES-128 applies to byte ranges (per sub-range, or over the resource).
iframe_playlist() {
  local dir=$1 dur=$2 key=${3:-} uri=${4:-} iv=${5:-} off size type init_end=0 n=0 seq=0
  local file="$dir/iframes.mp4" ranges=() frag name
  while read -r off size type; do
    case $type in
      ftyp|moov) init_end=$(( off + size )) ;;
      moof) frag=$off ;;
      mdat) ranges+=("$frag $(( off + size - frag ))") ;;
    esac
  done < <(top_boxes "$file")
  n=${#ranges[@]}
  (( n * SEGMENT_US == $(micros "$dur") )) || { echo "$file: $n keyframes for $dur s" >&2; exit 1; }
  {
    printf '#EXTM3U\n#EXT-X-VERSION:%d\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n' 5
    printf '#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-I-FRAMES-ONLY\n'
    if [[ -n $key ]]; then
      head -c "$init_end" "$file" > "$work/frag"
      aes "$work/frag" "$dir/iframe_init.mp4" "$key" "$iv"
      printf '#EXT-X-KEY:METHOD=AES-128,URI="%s",IV=0x%s\n' "$uri" "$iv"
      printf '#EXT-X-MAP:URI="iframe_init.mp4"\n'
    else
      printf '#EXT-X-MAP:URI="iframes.mp4",BYTERANGE="%d@0"\n' "$init_end"
    fi
    for range in "${ranges[@]}"; do
      read -r off size <<< "$range"
      printf '#EXTINF:1.920000,\n'
      if [[ -n $key ]]; then
        name=$(printf 'iframe_%03d.m4s' "$seq")
        dd if="$file" of="$work/frag" iflag=skip_bytes,count_bytes bs=65536 skip="$off" count="$size" status=none
        aes "$work/frag" "$dir/$name" "$key" "$iv"
        printf '%s\n' "$name"
      else
        printf '#EXT-X-BYTERANGE:%d@%d\niframes.mp4\n' "$size" "$off"
      fi
      seq=$(( seq + 1 ))
    done
    printf '#EXT-X-ENDLIST\n'
  } > "$dir/iframes.m3u8"
  [[ -z $key ]] || rm "$file"
}

# encrypt_playlist PLAYLIST KEYHEX KEYURI KEYIV: encrypts the init section and every
# media segment file of an fMP4 playlist (separate files) and puts the EXT-X-KEY just
# before EXT-X-MAP, so it applies to both.
encrypt_playlist() {
  local playlist=$1 key=$2 uri=$3 iv=$4 dir line file
  dir=$(dirname "$playlist")
  while IFS= read -r line; do
    file=
    case $line in
      '#EXT-X-MAP:'*) file=$(sed -n 's/.*URI="\([^"]*\)".*/\1/p' <<< "$line") ;;
      '#'*|'') ;;
      *) file=$line ;;
    esac
    if [[ -n $file ]]; then
      aes "$dir/$file" "$work/enc" "$key" "$iv"
      mv "$work/enc" "$dir/$file"
    fi
  done < "$playlist"
  sed -i "/^#EXT-X-MAP:/i #EXT-X-KEY:METHOD=AES-128,URI=\"$uri\",IV=0x$iv" "$playlist"
}

# bandwidth PLAYLIST: "PEAK AVERAGE" bit/s (rounded up) over its media segments;
# a segment's size is its EXT-X-BYTERANGE length or else its file's size.
bandwidth() {
  local playlist=$1 dir line us=0 range= peak=0 total_bytes=0 total_us=0 bytes rate
  dir=$(dirname "$playlist")
  while IFS= read -r line; do
    case $line in
      '#EXTINF:'*) line=${line#'#EXTINF:'}; us=$(micros "${line%%,*}") ;;
      '#EXT-X-BYTERANGE:'*) range=${line#'#EXT-X-BYTERANGE:'}; range=${range%%@*} ;;
      '#'*|'') ;;
      *)
        if [[ -n $range ]]; then bytes=$range; else bytes=$(stat -c %s "$dir/$line"); fi
        range=
        rate=$(( (bytes * 8 * 1000000 + us - 1) / us ))
        (( rate > peak )) && peak=$rate
        total_bytes=$(( total_bytes + bytes )); total_us=$(( total_us + us )) ;;
    esac
  done < "$playlist"
  echo "$peak $(( (total_bytes * 8 * 1000000 + total_us - 1) / total_us ))"
}

# init_of PLAYLIST: path of its EXT-X-MAP resource
init_of() { echo "$(dirname "$1")/$(sed -n 's/^#EXT-X-MAP:URI="\([^"]*\)".*/\1/p' "$1" | awk '!n++')"; }

# avc_codec INIT: RFC 6381 string from the avcC box (profile, constraint flags, level)
avc_codec() {
  local c
  c=$(xxd -p "$1" | tr -d '\n' | grep -oE '61766343[0-9a-f]{8}' || true)
  c=${c%%$'\n'*}
  [[ -n $c ]] || { echo "no avcC in $1" >&2; exit 1; }
  echo "avc1.${c:10:6}"
}

aac_codec() {
  local profile
  profile=$(ffprobe -v error -select_streams a:0 -show_entries stream=profile -of csv=p=0 "$1" | awk 'NF && !n++')
  [[ $profile == LC ]] || { echo "expected AAC-LC in $1, got $profile" >&2; exit 1; }
  echo "mp4a.40.2"
}

# asset DIR DURATION VIDEO-SOURCE LABEL LADDER MODE IFRAMES KEYNAME AUDIO... 
#   AUDIO: "lang|Name|DEFAULT|audio-source"; KEYNAME: "" (clear) or keys/KEYNAME.keyinfo
#   Subtitles are made when the asset is a program island (DIR program/*).
asset() {
  local dir=$1 dur=$2 vsrc=$3 label=$4 ladder=$5 mode=$6 iframes=$7 keyname=$8; shift 8
  local -n rungs=$ladder
  local rung name w h kbps spec lang lname def asrc key= uri= iv= subs=no
  local amax_peak=0 amax_avg=0 speak=0 savg=0 p a peak avg codecs vcodec media=() variants=()
  rm -rf "$dir"; mkdir -p "$dir"
  [[ ${ENCRYPT_PROGRAM:-0} == 1 ]] || keyname=""   # clear unless asked, see the header
  if [[ -n $keyname ]]; then
    { read -r uri; read -r keyfile; read -r iv; } < "keys/$keyname.keyinfo"
    [[ $iv =~ ^[0-9a-f]{32}$ ]] || { echo "keys/$keyname.keyinfo: needs an IV (32 hex digits)" >&2; exit 1; }
    key=$(xxd -p "$keyfile" | tr -d '\n')
    cp "$keyfile" "$dir/aes.key"          # served next to the media; URIs are relative
  fi

  for rung in "${rungs[@]}"; do
    read -r name w h kbps <<< "$rung"
    video "$dir/$name" "$w" "$h" "$kbps" "$dur" "$vsrc" "$label" "$mode" "$iframes"
    # CODECS from the clear init section (the I-frame media is a copy of the same stream)
    variants+=("$name $w $h $(avc_codec "$(init_of "$dir/$name/index.m3u8")")")
  done
  for spec in "$@"; do
    IFS='|' read -r lang lname def asrc <<< "$spec"
    audio "$dir/audio_$lang" "$dur" "$asrc" "$mode"
    media+=("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud\",NAME=\"$lname\",LANGUAGE=\"$lang\",DEFAULT=$def,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"audio_$lang/index.m3u8\"")
  done
  if [[ $dir == program/* ]]; then
    subs=yes
    subtitles "$dir/subs_en" "$dur" "$label"
    media+=("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI=\"subs_en/index.m3u8\"")
  fi

  IFS='|' read -r lang _ <<< "$1"
  local acodec; acodec=$(aac_codec "$dir/audio_$lang/index.m3u8")   # while still clear

  # encryption (program only): video, audio and I-frame media; init sections and subtitles clear
  for rung in "${variants[@]}"; do
    read -r name w h _ <<< "$rung"
    [[ -n $key ]] && encrypt_playlist "$dir/$name/index.m3u8" "$key" "$uri" "$iv"
    [[ $iframes == yes ]] && iframe_playlist "$dir/$name" "$dur" "$key" "$uri" "$iv"
  done
  for spec in "$@"; do
    IFS='|' read -r lang _ <<< "$spec"
    [[ -n $key ]] && encrypt_playlist "$dir/audio_$lang/index.m3u8" "$key" "$uri" "$iv"
  done

  # multivariant playlist; BANDWIDTH = video + the largest audio rendition (+ subtitles)
  for spec in "$@"; do
    IFS='|' read -r lang _ <<< "$spec"
    read -r p a < <(bandwidth "$dir/audio_$lang/index.m3u8")
    (( p > amax_peak )) && amax_peak=$p
    (( a > amax_avg )) && amax_avg=$a
  done
  [[ $subs == yes ]] && read -r speak savg < <(bandwidth "$dir/subs_en/index.m3u8")
  {
    echo '#EXTM3U'
    echo '#EXT-X-VERSION:6'
    echo '#EXT-X-INDEPENDENT-SEGMENTS'
    printf '%s\n' "${media[@]}"
    for rung in "${variants[@]}"; do
      read -r name w h vcodec <<< "$rung"
      read -r peak avg < <(bandwidth "$dir/$name/index.m3u8")
      codecs="$vcodec,$acodec"
      printf '#EXT-X-STREAM-INF:BANDWIDTH=%d,AVERAGE-BANDWIDTH=%d,CODECS="%s",RESOLUTION=%dx%d,FRAME-RATE=25.000,AUDIO="aud"%s\n' \
        $(( peak + amax_peak + speak )) $(( avg + amax_avg + savg )) "$codecs" "$w" "$h" \
        "$([[ $subs == yes ]] && echo ',SUBTITLES="subs"')"
      echo "$name/index.m3u8"
    done
    if [[ $iframes == yes ]]; then
      for rung in "${variants[@]}"; do
        read -r name w h vcodec <<< "$rung"
        read -r peak avg < <(bandwidth "$dir/$name/iframes.m3u8")
        printf '#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=%d,AVERAGE-BANDWIDTH=%d,CODECS="%s",RESOLUTION=%dx%d,URI="%s/iframes.m3u8"\n' \
          "$peak" "$avg" "$vcodec" "$w" "$h" "$name"
      done
    fi
  } > "$dir/master.m3u8"
  echo "  $dir ($dur s${key:+, AES-128}$([[ $mode == single ]] && echo ", single file"), audio: $(printf '%s ' "$@" | grep -oE '(^| )[a-z]{2}\|' | tr -d '| ' | paste -sd+))"
}

# Deterministic demo keys (committed; regenerated identically if missing)
mkdir -p keys
for k in act-1 act-2; do
  hash=$(printf 'adstitch demo key %s' "$k" | sha256sum)
  [[ -s keys/$k.key ]] || xxd -r -p <<< "${hash:0:32}" > "keys/$k.key"
done
for k in act-1 act-2; do   # ffmpeg's keyinfo format: key URI, key file, IV
  [[ -s keys/$k.keyinfo ]] || printf '../aes.key\nkeys/%s.key\n%s\n' "$k" \
    "$(printf 'adstitch demo iv %s' "$k" | sha256sum | cut -c1-32)" > "keys/$k.keyinfo"
done

echo "feature-fmp4 media:"
rm -rf program ads slate
#     dir            secs  video source        label         ladder          mode      I-frames key     audio renditions (lang|NAME|DEFAULT|source)
asset program/act-1  5.76  testsrc2            "ACT 1"       PROGRAM_LADDER  segments  yes      act-1  "en|English|YES|sine=frequency=440" "es|Español|NO|sine=frequency=494"
asset program/act-2  5.76  testsrc             "ACT 2"       PROGRAM_LADDER  segments  yes      act-2  "en|English|YES|sine=frequency=523" "es|Español|NO|sine=frequency=587"
asset ads/alpha      3.84  smptebars           "AD ALPHA"    AD_LADDER       segments  yes      ""     "en|English|YES|sine=frequency=660:beep_factor=2" "es|Español|NO|sine=frequency=740:beep_factor=2"
asset ads/bravo      1.92  "color=c=0xB22222"  "AD BRAVO"    AD_LADDER       single    no       ""     "en|English|YES|sine=frequency=770:beep_factor=2"
asset ads/charlie    3.84  "color=c=0x1E3A8A"  "AD CHARLIE"  AD_LADDER       segments  no       ""     "en|English|YES|sine=frequency=880:beep_factor=2" "es|Español|NO|sine=frequency=988:beep_factor=2"
asset slate          1.92  "color=c=0x404040"  "SLATE"       AD_LADDER       single    no       ""     "en|English|YES|sine=frequency=220" "es|Español|NO|sine=frequency=247"
