#!/usr/bin/env bash
# The ffmpeg-CLI peer of the startup benchmark: what a plain ffmpeg script
# makes of the same two sources, written into OUT (made once; kept while
# its sources and this recipe are unchanged):
#   - Apple's HLS authoring ladder at fixed rates, libx264 (veryfast: the
#     rates fix the bytes) + AAC 128k muxed into every variant:
#     1080p 6000k, 720p 3000k, 540p 2000k, 360p 730k (maxrate 1.1x,
#     bufsize 2x), a keyframe every 2 s, fMP4 segments of 6 s
#     (-hls_time 6), VOD playlists;
#   - the master playlist ffmpeg writes with -master_pl_name and
#     -var_stream_map: the variants in map order, the TOP one (1080p) first;
#   - a JPEG cover of the first frame at the video's size;
#   - the photo scaled to 1170 px wide as a JPEG;
#   - banners.json with the seven contract keys only (type, url, cover_url,
#     duration, autoplay, muted, link; an image has type, url, link), no
#     placeholders.
#
# Usage: peer_bundle.sh SOURCES_DIR OUT
set -euo pipefail
src=$1 out=$2
recipe="peer-v1 $(stat -c '%s %Y' "$src/clip.mp4" "$src/photo.jpg" | tr '\n' ' ')"
if [ -s "$out/banners.json" ] && [ "$(cat "$out.stamp" 2>/dev/null)" = "$recipe" ]; then exit 0; fi
rm -rf "$out" "$out.tmp"
mkdir -p "$out.tmp/videos/hero-clip" "$out.tmp/images/sale-photo"
v="$out.tmp/videos/hero-clip"

ffmpeg -nostdin -loglevel error -y -i "$src/clip.mp4" \
  -filter_complex "[0:v]split=4[a][b][c][d];[a]scale=1920:1080[v0];[b]scale=1280:720[v1];[c]scale=960:540[v2];[d]scale=640:360[v3]" \
  -map "[v0]" -map "[v1]" -map "[v2]" -map "[v3]" -map 0:a -map 0:a -map 0:a -map 0:a \
  -c:v libx264 -preset veryfast -profile:v high -pix_fmt yuv420p \
  -b:v:0 6000k -maxrate:v:0 6600k -bufsize:v:0 12000k \
  -b:v:1 3000k -maxrate:v:1 3300k -bufsize:v:1 6000k \
  -b:v:2 2000k -maxrate:v:2 2200k -bufsize:v:2 4000k \
  -b:v:3 730k -maxrate:v:3 803k -bufsize:v:3 1460k \
  -g 60 -keyint_min 60 -sc_threshold 0 \
  -c:a aac -b:a 128k -ar 48000 -ac 2 \
  -f hls -hls_time 6 -hls_playlist_type vod -hls_segment_type fmp4 -hls_flags independent_segments \
  -hls_fmp4_init_filename init.mp4 -hls_segment_filename "$v/v%v/seg_%05d.m4s" \
  -master_pl_name master.m3u8 -var_stream_map "v:0,a:0 v:1,a:1 v:2,a:2 v:3,a:3" \
  "$v/v%v/index.m3u8"

ffmpeg -nostdin -loglevel error -y -i "$src/clip.mp4" -frames:v 1 -q:v 3 "$v/cover.jpg"
ffmpeg -nostdin -loglevel error -y -i "$src/photo.jpg" -vf scale=1170:-2 -q:v 3 "$out.tmp/images/sale-photo/image.jpg"

duration=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$src/clip.mp4")
cat >"$out.tmp/banners.json" <<EOF
{"banners": [
  {"type": "video", "url": "videos/hero-clip/master.m3u8", "cover_url": "videos/hero-clip/cover.jpg",
   "duration": $(printf '%.3f' "$duration"), "autoplay": true, "muted": true, "link": "https://example.com/hero"},
  {"type": "image", "url": "images/sale-photo/image.jpg", "link": "https://example.com/sale"}
]}
EOF
mv "$out.tmp" "$out"
echo "$recipe" >"$out.stamp"
