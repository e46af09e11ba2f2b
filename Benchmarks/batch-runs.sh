#!/usr/bin/env bash
# Batch-run benchmarks (BENCHMARKS.md, "Batch runs"). Not a test: it times
# the release build of `marquee` and prints the ratios.
#
#   1. An unchanged 8-item rebuild vs the full build (target: under 2 %).
#   2. `--jobs 2` vs `--jobs 1` on the same job (target: at least 1.8x on
#      two cores).
#
# The job: six 1280x720 30 fps clips of 6 s with audio (libavfilter
# testsrc2, a different hue each, encoded by the ffmpeg CLI) and the demo's
# two images. Each measurement is repeated (RUNS, default 3) and the median
# reported; every full build starts from an empty output root.
#
# Usage: Benchmarks/batch-runs.sh [work-dir]     (default: a temporary folder)
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
WORK=${1:-$(mktemp -d /tmp/marquee-bench.XXXXXX)}
MARQUEE=${MARQUEE:-.build/release/marquee}

if [ -z "${SKIP_BUILD:-}" ]; then swift build -c release >/dev/null; fi
mkdir -p "$WORK/media"

# Sources (made once).
for i in 1 2 3 4 5 6; do
  f="$WORK/media/clip$i.mp4"
  [ -f "$f" ] || ffmpeg -loglevel error -y \
    -f lavfi -i "testsrc2=size=1280x720:rate=30,hue=h=$((i * 50))" \
    -f lavfi -i "sine=frequency=$((300 + i * 60)):sample_rate=48000" \
    -t 6 -c:v libx264 -preset veryfast -pix_fmt yuv420p -c:a aac -b:a 128k "$f"
done
[ -f "$WORK/media/photo.jpg" ] || "$MARQUEE" demo-sources "$WORK/demo" >/dev/null
cp -n "$WORK/demo/photo.jpg" "$WORK/demo/product-on-white.png" "$WORK/media/" 2>/dev/null || true

cat >"$WORK/job.json" <<EOF
{
  "name": "bench",
  "base_url": "https://cdn.example.com/bench/",
  "banners": [
    {"id": "clip-1", "type": "video", "source": "media/clip1.mp4"},
    {"id": "clip-2", "type": "video", "source": "media/clip2.mp4"},
    {"id": "clip-3", "type": "video", "source": "media/clip3.mp4"},
    {"id": "clip-4", "type": "video", "source": "media/clip4.mp4"},
    {"id": "clip-5", "type": "video", "source": "media/clip5.mp4"},
    {"id": "clip-6", "type": "video", "source": "media/clip6.mp4"},
    {"id": "photo", "type": "image", "source": "media/photo.jpg"},
    {"id": "product", "type": "image", "source": "media/product-on-white.png"}
  ]
}
EOF

# Runs marquee; prints its wall time and its CPU time (user + system),
# in seconds, on one line.
timed() {
  local TIMEFORMAT='%R %U %S' t
  t=$( { time "$MARQUEE" "$@" --quiet >/dev/null 2>&1; } 2>&1 )
  echo "$t" | awk '{printf "%.3f %.3f\n", $1, $2 + $3}'
}
# Median of the first column, with the second column of the same line.
median() { sort -g | awk '{w[NR]=$1; c[NR]=$2} END {m=int((NR+1)/2); print w[m], c[m]}'; }

full() {  # full build from an empty output root with --jobs $1
  rm -rf "$WORK/out"
  timed build "$WORK/job.json" --out "$WORK/out" --jobs "$1"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr)"
echo "job: 6 videos (1280x720, 6 s, 30 fps, AAC) + 2 images; median of $RUNS runs"

read -r full2 cpu2 < <(for _ in $(seq "$RUNS"); do full 2; done | median)
read -r noop _ < <(for _ in $(seq "$RUNS"); do timed build "$WORK/job.json" --out "$WORK/out" --jobs 2; done | median)
read -r full1 cpu1 < <(for _ in $(seq "$RUNS"); do full 1; done | median)

printf 'full build, --jobs 2:        %8.3f s   (CPU %.1f s: %.2f cores busy)\n' "$full2" "$cpu2" "$(echo "$cpu2 / $full2" | bc -l)"
printf 'unchanged rebuild, --jobs 2: %8.3f s   (%.2f %% of the full build; target < 2 %%)\n' "$noop" "$(echo "100 * $noop / $full2" | bc -l)"
printf 'full build, --jobs 1:        %8.3f s   (CPU %.1f s: %.2f cores busy)\n' "$full1" "$cpu1" "$(echo "$cpu1 / $full1" | bc -l)"
printf 'speed-up --jobs 2 vs 1:      %8.2fx   (target >= 1.8x on two cores)\n' "$(echo "$full1 / $full2" | bc -l)"
"$MARQUEE" verify "$WORK/out/bench" --quiet && echo "bundle verifies"
