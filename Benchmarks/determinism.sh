#!/usr/bin/env bash
# Repeatable bytes under load: builds the same one-video job RUNS times at
# --jobs 1 and at --jobs 2 while two `yes > /dev/null` processes (bounded by
# `timeout`) keep both cores busy, and compares the bundles by digest: one
# SHA-256 over the sorted list of every file's path and SHA-256. Prints one
# line per build and exits 1 when any digest differs from the first.
#
# Usage: Benchmarks/determinism.sh [work-dir]
#   RUNS=3 (per --jobs value), MARQUEE=<binary> (default .build/release/marquee,
#   built when missing), SECONDS_OF_VIDEO=6, MAX_HEIGHT=1080.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d -t marquee-determinism-XXXXXX)}
runs=${RUNS:-3}
marquee=${MARQUEE:-$root/.build/release/marquee}
seconds=${SECONDS_OF_VIDEO:-6}
[ -x "$marquee" ] || (cd "$root" && swift build -c release)
mkdir -p "$work"
src=$work/src.mp4
ffmpeg -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30:duration=$seconds" \
  -f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$seconds" \
  -c:v libx264 -preset veryfast -b:v 8M -pix_fmt yuv420p -c:a aac "$src"
cat > "$work/job.json" <<EOF
{"name": "det", "settings": {"max_height": ${MAX_HEIGHT:-1080}},
 "banners": [{"id": "v", "type": "video", "source": "$src"}]}
EOF

bundle_digest() {
  (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

# Load: two busy loops, ended by timeout even if this script is killed.
timeout 1800 yes > /dev/null &
load1=$!
timeout 1800 yes > /dev/null &
load2=$!
trap 'kill $load1 $load2 2>/dev/null || true' EXIT

first=""
status=0
for jobs in 1 2; do
  for i in $(seq 1 "$runs"); do
    out=$work/out-j$jobs-$i
    rm -rf "$out"
    start=$(date +%s.%N)
    "$marquee" build "$work/job.json" --out "$out" --jobs "$jobs" --quiet
    end=$(date +%s.%N)
    digest=$(bundle_digest "$out/det")
    files=$(find "$out/det" -type f | wc -l)
    printf 'jobs %s run %s: %s (%s files, %.1f s, load %s)\n' "$jobs" "$i" "$digest" "$files" \
      "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1 /proc/loadavg)"
    if [ -z "$first" ]; then
      first=$digest
    elif [ "$digest" != "$first" ]; then
      status=1
      # Name the first file and offset that differ.
      ref=$work/out-j1-1/det
      (cd "$out/det" && find . -type f | sort) | while read -r f; do
        if ! cmp -s "$ref/$f" "$out/det/$f"; then
          echo "  differs: $f: $(cmp "$ref/$f" "$out/det/$f" 2>&1 | head -1)"
        fi
      done
    fi
    [ "$i" -gt 1 ] && rm -rf "$out"
  done
done
echo "$([ $status = 0 ] && echo 'identical' || echo 'DIFFERENT'): $((2 * runs)) builds, first digest $first"
exit $status
