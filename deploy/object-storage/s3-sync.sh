#!/bin/sh
# Uploads a published Marquee bundle to S3 (or any S3-compatible store the
# aws CLI reaches) with each file's Content-Type and Cache-Control, the
# playlists and banners.json gzip-encoded:
#
#   s3-sync.sh <bundle dir> <s3://bucket/prefix> [banners.json max-age, s]
#
# Order matters: the media and playlists first, banners.json last, so a
# client never reads a banners.json that names a file not uploaded yet.
# Folders under videos/ and images/ are named by a hash of their content,
# so what is there already is never uploaded again (--size-only) and is
# served immutable. Object storage cannot negotiate Content-Encoding: the
# gzip-encoded playlists and banners.json reach every client as gzip (AVPlayer,
# URLSession, browsers and ExoPlayer decode it). Objects of older bundles
# are left in place: delete them once no cached banners.json names them.
set -eu
src=${1:?usage: s3-sync.sh <bundle dir> <s3://bucket/prefix> [max-age]}
dst=${2:?usage: s3-sync.sh <bundle dir> <s3://bucket/prefix> [max-age]}
dst=${dst%/}
age=${3:-60}
[ -f "$src/banners.json" ] || { echo "s3-sync: $src is not a bundle (no banners.json)" >&2; exit 2; }
immutable="public, max-age=31536000, immutable"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Media: one pass per type (the CLI sets one Content-Type per command).
for spec in "m4s video/iso.segment" "mp4 video/mp4" "webp image/webp" "jpg image/jpeg" "png image/png"; do
  ext=${spec%% *} type=${spec#* }
  for folder in videos images; do
    [ -d "$src/$folder" ] || continue
    aws s3 sync "$src/$folder" "$dst/$folder" --size-only --exclude '*' --include "*.$ext" \
      --content-type "$type" --cache-control "$immutable"
  done
done

# 2. Playlists gzip-encoded (Apple HLS authoring spec 10.1); gzip -n gives
#    the same bytes for the same playlist, so --size-only still skips them.
if [ -d "$src/videos" ]; then
  (cd "$src" && find videos -name '*.m3u8') | while read -r f; do
    mkdir -p "$tmp/$(dirname "$f")"
    gzip -9 -n -c "$src/$f" > "$tmp/$f"
  done
  aws s3 sync "$tmp/videos" "$dst/videos" --size-only --content-type application/vnd.apple.mpegurl \
    --content-encoding gzip --cache-control "$immutable"
fi

# 3. banners.json last: short-lived, revalidated.
gzip -9 -n -c "$src/banners.json" > "$tmp/banners.json"
aws s3 cp "$tmp/banners.json" "$dst/banners.json" --content-type application/json \
  --content-encoding gzip --cache-control "public, max-age=$age, must-revalidate"
