#!/usr/bin/env bash
# Writes the fuzz targets' seed inputs into $1/<target>/ (default
# .build-fuzz/seeds): images from ../shared/corpus (cut to 64 kB: the
# headers are at the front), the job files in Pipelines/ and the corpus's
# JSON, and HLS playlists and a banners.json written here. Nothing it makes
# is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${1:-.build-fuzz/seeds}
CORPUS=${MARQUEE_CORPUS:-../shared/corpus}
mkdir -p "$SEEDS"/{FuzzJobReader,FuzzImageHeaders,FuzzPlaylists,FuzzManifest}

# Images (and the MP4s' first bytes, for the fragmented-MP4 reader).
if [ -d "$CORPUS" ]; then
  for f in "$CORPUS"/image-* "$CORPUS"/broken-jpeg-*; do
    [ -f "$f" ] && head -c 65536 "$f" >"$SEEDS/FuzzImageHeaders/$(basename "$f")"
  done
  for f in "$CORPUS"/video-h264-aac-1080x720-faststart.mp4 "$CORPUS"/audio-aac-mono-44.1k-1s.mp4; do
    [ -f "$f" ] && head -c 16384 "$f" >"$SEEDS/FuzzPlaylists/$(basename "$f")"
  done
  [ -f "$CORPUS/corpus.json" ] && cp "$CORPUS/corpus.json" "$SEEDS/FuzzJobReader/"
fi
printf 'II*\0\x08\0\0\0\x01\0\x12\x01\x03\0\x01\0\0\0\x06\0\0\0\0\0\0\0' >"$SEEDS/FuzzImageHeaders/exif-orientation-6.tiff"

# Job files.
cp Pipelines/*.json "$SEEDS/FuzzJobReader/"
cat >"$SEEDS/FuzzJobReader/every-key.json" <<'JSON'
{"$schema": "./job.schema.json", "name": "home", "base_url": "https://cdn.example.com/home/",
 "settings": {"segment_duration": 2, "max_height": 720, "image_width": 1170, "webp_quality": 80,
   "jpeg_quality": 85, "dark_surface": "#1C1C1E", "background": "#FFFFFF", "max_duration": 600,
   "max_pixels": 40000000, "max_file_size_mb": 2048, "video_url": "hls", "mp4_height": 720,
   "renditions": [{"height": 720, "bitrate_kbps": 3000}, {"height": 360, "bitrate_kbps": 730}],
   "allow_outside_sources": false},
 "banners": [
  {"id": "spring", "type": "video", "source": "media/spring.mov", "autoplay": true, "muted": true,
   "link": "https://example.com/spring", "cover": {"at": 1.5}},
  {"id": "sale", "type": "image", "source": "../media/sale.jpg", "link": "http://example.com/sale"}]}
JSON

# Playlists.
cat >"$SEEDS/FuzzPlaylists/master.m3u8" <<'M3U'
#EXTM3U
#EXT-X-VERSION:7
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-STREAM-INF:BANDWIDTH=3300000,AVERAGE-BANDWIDTH=2900000,CODECS="avc1.64001F,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000
720p/index.m3u8
#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=400000,CODECS="avc1.64001F",RESOLUTION=1280x720,URI="720p/iframes.m3u8"
M3U
cat >"$SEEDS/FuzzPlaylists/index.m3u8" <<'M3U'
#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:2
#EXT-X-MEDIA-SEQUENCE:0
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-INDEPENDENT-SEGMENTS
#EXT-X-MAP:URI="init.mp4"
#EXTINF:2.000000,
segment_00000.m4s
#EXTINF:1.500000,
../720p/segment_00001.m4s
#EXT-X-ENDLIST
M3U
cat >"$SEEDS/FuzzPlaylists/iframes.m3u8" <<'M3U'
#EXTM3U
#EXT-X-VERSION:7
#EXT-X-TARGETDURATION:2
#EXT-X-PLAYLIST-TYPE:VOD
#EXT-X-I-FRAMES-ONLY
#EXT-X-MAP:URI="init.mp4"
#EXTINF:2.000000,
#EXT-X-BYTERANGE:41234@0
segment_00000.m4s
#EXT-X-ENDLIST
M3U

# banners.json.
cat >"$SEEDS/FuzzManifest/banners.json" <<'JSON'
{"banners": [
 {"type": "video", "id": "spring", "url": "https://cdn.example.com/home/videos/spring-0123456789abcdef/master.m3u8",
  "hls_url": "https://cdn.example.com/home/videos/spring-0123456789abcdef/master.m3u8",
  "mp4_url": "https://cdn.example.com/home/videos/spring-0123456789abcdef/video.mp4",
  "cover_url": "https://cdn.example.com/home/videos/spring-0123456789abcdef/cover.webp",
  "cover_jpeg_url": "https://cdn.example.com/home/videos/spring-0123456789abcdef/cover.jpg",
  "cover_dark_url": "https://cdn.example.com/home/videos/spring-0123456789abcdef/cover.dark.webp",
  "duration": 15.2, "autoplay": true, "muted": true, "width": 1280, "height": 720, "link": "https://example.com/spring"},
 {"type": "image", "id": "sale", "url": "images/sale-0123456789abcdef/w1170.webp", "jpeg_url": "images%2F..%2Fx.jpg",
  "dark_url": "images/sale-0123456789abcdef/w1170.dark.webp", "width": 1170, "height": 658, "link": "javascript:alert(1)",
  "sources": [{"width": 780, "height": 439, "url": "images/sale-0123456789abcdef/w780.webp", "jpeg_url": "images/sale-0123456789abcdef/w780.jpg"}]}
]}
JSON
echo "seeds in $SEEDS: $(find "$SEEDS" -type f | wc -l) files"
