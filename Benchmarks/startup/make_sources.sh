#!/usr/bin/env bash
# Sources of the startup benchmark (Benchmarks/startup/README.md), made
# once into DIR (kept while their parameters are unchanged):
#   DIR/clip.mp4   SECONDS s of 1920x1080 30 fps moving content with sound:
#                  a zooming, hue-drifting Mandelbrot (rendered at 960x540
#                  and scaled up, so it is soft like camera footage) overlaid
#                  with a blurred Game of Life and fine temporal grain; pink
#                  noise with a quiet 220 Hz tone, AAC 48 kHz stereo. Every
#                  random source is seeded: the same bytes on every run.
#   DIR/photo.jpg  the photo-like 1600x1000 JPEG of `marquee demo-sources`.
#
# Usage: make_sources.sh DIR SECONDS MARQUEE
set -euo pipefail
dir=$1 seconds=$2 marquee=$3
mkdir -p "$dir"
stamp="clip-v2 ${seconds}s"
if [ ! -s "$dir/clip.mp4" ] || [ "$(cat "$dir/clip.stamp" 2>/dev/null)" != "$stamp" ]; then
  frames=$((seconds * 30))
  ffmpeg -nostdin -loglevel error -y \
    -f lavfi -i "mandelbrot=s=960x540:r=30:maxiter=256:start_scale=3:end_scale=0.02:end_pts=${frames},hue=H=t*0.4" \
    -f lavfi -i "life=s=480x270:r=30:seed=20231:mold=8:ratio=0.12:death_color=#102030:life_color=#d09050:mold_color=#306040" \
    -f lavfi -i "anoisesrc=c=pink:a=0.06:r=48000:seed=7" \
    -f lavfi -i "sine=f=220:r=48000" \
    -filter_complex "[0:v]scale=1920:1080:flags=bicubic[m];[1:v]scale=1920:1080:flags=bilinear,gblur=sigma=2[l];[m][l]blend=all_mode=overlay:all_opacity=0.45,noise=alls=2:allf=t:all_seed=123457,format=yuv420p[v];[2:a][3:a]amix=inputs=2:weights=1 0.3,aformat=channel_layouts=stereo[a]" \
    -map "[v]" -map "[a]" -t "$seconds" \
    -c:v libx264 -preset veryfast -crf 18 -g 60 -c:a aac -b:a 192k -movflags +faststart \
    "$dir/clip.tmp.mp4"
  mv "$dir/clip.tmp.mp4" "$dir/clip.mp4"
  echo "$stamp" >"$dir/clip.stamp"
fi
if [ ! -s "$dir/photo.jpg" ]; then
  rm -rf "$dir/demo-sources"
  "$marquee" demo-sources "$dir/demo-sources" >/dev/null
  cp "$dir/demo-sources/photo.jpg" "$dir/photo.jpg"
  rm -rf "$dir/demo-sources"
fi
