#!/usr/bin/env bash
# Repeatable bytes under load: builds the same job RUNS times for each
# --jobs value in JOBS while two `yes > /dev/null` processes (bounded by
# `timeout`) keep both cores busy, then PERTURB more builds with glibc's
# MALLOC_PERTURB_ set (every block malloc returns is filled with a
# different byte), and compares the bundles by digest: one SHA-256 over the
# sorted list of every file's path and SHA-256. Prints one line per build
# and exits 1 when any digest differs from the first.
#
# The job has ITEMS videos (testsrc2 with differently seeded noise and a
# sine), so at --jobs 2 and up items are encoded side by side in one
# process: the case where memory one thread frees is reused by another's
# encoder. ITEMS=4 SECONDS_OF_VIDEO=2 SIZE=1280x720 MAX_HEIGHT=720 (a
# 960x540 rung) is the job that showed libx264's AVX-512 reading memory
# nothing wrote (BENCHMARKS.md, "Repeatable bytes under load").
#
# Usage: Benchmarks/determinism.sh [work-dir]
#   RUNS=3 (per --jobs value), JOBS="1 2", ITEMS=1, PERTURB=0 (builds with
#   MALLOC_PERTURB_, alternating two fillings, at the last --jobs value),
#   MARQUEE=<binary> (default .build/release/marquee, built when missing),
#   SECONDS_OF_VIDEO=6, SIZE=1920x1080, MAX_HEIGHT=1080.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d -t marquee-determinism-XXXXXX)}
runs=${RUNS:-3}
jobs_list=${JOBS:-1 2}
items=${ITEMS:-1}
perturb=${PERTURB:-0}
marquee=${MARQUEE:-$root/.build/release/marquee}
seconds=${SECONDS_OF_VIDEO:-6}
size=${SIZE:-1920x1080}
[ -x "$marquee" ] || (cd "$root" && swift build -c release)
mkdir -p "$work"
banners=""
for n in $(seq 1 "$items"); do
  noise=""
  [ "$items" -gt 1 ] && noise=",noise=alls=40:allf=t+u:all_seed=$n"
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=$size:rate=30:duration=$seconds$noise" \
    -f lavfi -i "sine=frequency=$((390 + 50 * n)):sample_rate=44100:duration=$seconds" \
    -c:v libx264 -preset veryfast -b:v 8M -pix_fmt yuv420p -c:a aac "$work/src$n.mp4"
  banners="$banners${banners:+, }{\"id\": \"v$n\", \"type\": \"video\", \"source\": \"src$n.mp4\"}"
done
cat > "$work/job.json" <<EOF
{"name": "det", "settings": {"max_height": ${MAX_HEIGHT:-1080}},
 "banners": [$banners]}
EOF

bundle_digest() {
  (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

# Load: two busy loops, ended by timeout even if this script is killed.
timeout 3600 yes > /dev/null &
load1=$!
timeout 3600 yes > /dev/null &
load2=$!
trap 'kill $load1 $load2 2>/dev/null || true' EXIT

first=""
ref=""
status=0
builds=0
# One build: label, --jobs, then `env` arguments (none, or MALLOC_PERTURB_=n).
build() {
  local label=$1 jobs=$2
  shift 2
  local out=$work/out-$label
  rm -rf "$out"
  local start end digest files
  start=$(date +%s.%N)
  env "$@" "$marquee" build "$work/job.json" --out "$out" --jobs "$jobs" --quiet
  end=$(date +%s.%N)
  digest=$(bundle_digest "$out/det")
  files=$(find "$out/det" -type f | wc -l)
  builds=$((builds + 1))
  printf '%s (--jobs %s%s): %s (%s files, %.1f s, load %s)\n' "$label" "$jobs" "${1:+, $1}" "$digest" "$files" \
    "$(echo "$end - $start" | bc)" "$(cut -d' ' -f1 /proc/loadavg)"
  if [ -z "$first" ]; then
    first=$digest
    ref=$out/det
    return
  fi
  if [ "$digest" != "$first" ]; then
    status=1
    # Name the files that differ and where.
    (cd "$out/det" && find . -type f | sort) | while read -r f; do
      if ! cmp -s "$ref/$f" "$out/det/$f"; then
        echo "  differs: $f: $(cmp "$ref/$f" "$out/det/$f" 2>&1 | head -1 | sed 's/.* differ: //')"
      fi
    done
  fi
  rm -rf "$out"
}

last_jobs=1
for jobs in $jobs_list; do
  last_jobs=$jobs
  for i in $(seq 1 "$runs"); do build "j$jobs-$i" "$jobs"; done
done
for i in $(seq 1 "$perturb"); do
  build "heap-$i" "$last_jobs" "MALLOC_PERTURB_=$(( i % 2 == 1 ? 85 : 170 ))"
done
echo "$([ $status = 0 ] && echo 'identical' || echo 'DIFFERENT'): $builds builds, first digest $first"
exit $status
