#!/usr/bin/env bash
# Startup benchmark (issue 23, point 3: "startup in milliseconds"). A
# benchmark, not a test: it measures, prints and writes a table; it fails
# only when it cannot measure. See Benchmarks/startup/README.md.
#
# Time from the request of the master playlist to the first picture, and
# from the request of banners.json to the first placeholder paint, of
# Marquee's bundle and of a plain ffmpeg-CLI bundle of the same sources,
# served by nginx through `marquee nginx-config`, to GStreamer and headless
# Chromium, over a shaped link ("3G": 1.6 Mbit/s, 150 ms RTT; "LTE":
# 12 Mbit/s, 50 ms RTT) between two network namespaces.
#
# Usage (as root: it makes network namespaces):
#   bash Benchmarks/startup/run.sh [--runs N] [--marquee PATH] [--seconds S]
#        [--profiles 3G,LTE] [--clients gstreamer,chromium,placeholder]
#        [--timeout S] [--scratch DIR] [--results DIR] [--no-slow-start]
#
#   --runs N       runs of each bundle x profile x client (default 10)
#   --clients L    of gstreamer (playbin), chromium, placeholder, and
#                  playbin3 (GStreamer's playbin3 and hlsdemux2, not run by
#                  default); default gstreamer,chromium,placeholder
#   --marquee P    the marquee binary (default: the repo's release build,
#                  built with `swift build -c release --product marquee`
#                  when missing)
#   --seconds S    length of the generated clip (default 20)
#   --timeout S    a run without a picture after S seconds is a timeout
#                  (default 60)
#   --scratch DIR  sources, bundles, nginx and logs (default
#                  $TMPDIR/marquee-startup-bench; kept, so a second run
#                  reuses the sources and the built bundles)
#   --results DIR  where results.md and runs.jsonl go (default
#                  Benchmarks/startup/results)
#   --no-slow-start  the latency proxy passes the server's bytes on at once
#                  instead of in TCP slow-start rounds
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

runs=10 seconds=20 timeout=60 profiles=3G,LTE clients=gstreamer,chromium,placeholder
slow_start=true marquee="" scratch="${TMPDIR:-/tmp}/marquee-startup-bench" results="$here/results"
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --marquee) marquee=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --profiles) profiles=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    --results) results=$2; shift 2 ;;
    --no-slow-start) slow_start=false; shift ;;
    -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

say() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }

# -- what it needs ------------------------------------------------------------
[ "$(id -u)" = 0 ] || die "run as root (network namespaces, tc)"
py=/usr/bin/python3   # the system python: python3-gi lives there
missing=()
for t in nginx ffmpeg ffprobe chromium curl ip tc gst-launch-1.0; do command -v "$t" >/dev/null || missing+=("$t"); done
"$py" -c 'import gi; gi.require_version("Gst", "1.0")' 2>/dev/null || missing+=(gi-gst)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing what is missing (${missing[*]}) with apt-get"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light ffmpeg chromium curl iproute2 \
    gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav \
    python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 >/dev/null \
    || die "could not install: ${missing[*]}"
fi
chromium=$(command -v chromium)

if [ -z "$marquee" ]; then
  marquee="$repo/.build/release/marquee"
  if [ ! -x "$marquee" ]; then
    say "building marquee (swift build -c release --product marquee)"
    (cd "$repo" && swift build -c release --product marquee >&2)
  fi
fi
[ -x "$marquee" ] || die "no marquee binary at $marquee"
marquee=$(cd "$(dirname "$marquee")" && pwd)/$(basename "$marquee")

mkdir -p "$scratch" "$results"
scratch=$(cd "$scratch" && pwd)

# -- clean-up, whatever happens -------------------------------------------------
id=$$
ns_srv="mqs-srv-$id" ns_cli="mqs-cli-$id" dev_srv="mqs${id}s" dev_cli="mqs${id}c"
server_ip=10.77.0.1 client_ip=10.77.0.2 nginx_port=8080 proxy_port=80 page_port=8081
run_dir="$scratch/run-$id"
nginx_pid=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  for f in "$run_dir/proxy.pid" "$run_dir/bench.pid"; do
    [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
  # Whatever still runs inside the two namespaces was started by this run.
  for ns in "$ns_cli" "$ns_srv"; do
    if ip netns list 2>/dev/null | grep -qw "$ns"; then
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    fi
  done
  sleep 0.3
  for ns in "$ns_cli" "$ns_srv"; do ip netns del "$ns" 2>/dev/null || true; done
  rm -rf "$run_dir"/chromium-* 2>/dev/null || true
  [ $rc -ne 0 ] && say "stopped (exit $rc); logs in $run_dir"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$run_dir"

# -- sources and the two bundles -------------------------------------------
say "sources: ${seconds} s of 1920x1080 30 fps with sound, and a photo (made once)"
bash "$here/make_sources.sh" "$scratch/sources" "$seconds" "$marquee"

say "Marquee's bundle: $(basename "$marquee") build (reuses its store when the sources are unchanged)"
job="$scratch/marquee-job"
mkdir -p "$job/media"
for f in clip.mp4 photo.jpg; do
  cmp -s "$scratch/sources/$f" "$job/media/$f" 2>/dev/null || cp "$scratch/sources/$f" "$job/media/$f"
done
cat >"$job/job.json" <<'EOF'
{
  "name": "startup",
  "settings": { "segment_duration": 2 },
  "banners": [
    {"id": "hero-clip", "type": "video", "source": "media/clip.mp4",
     "autoplay": true, "muted": true, "link": "https://example.com/hero"},
    {"id": "sale-photo", "type": "image", "source": "media/photo.jpg", "link": "https://example.com/sale"}
  ]
}
EOF
NO_COLOR=1 TERM=dumb "$marquee" build "$job/job.json" --out "$scratch/marquee-out" >"$run_dir/marquee-build.log" 2>&1 \
  || { tail -20 "$run_dir/marquee-build.log" >&2; die "marquee build failed"; }
grep -E 'encode finished|run summary' "$run_dir/marquee-build.log" | sed 's/^[^ ]* /  /' >&2 || true
marquee_bundle="$scratch/marquee-out/startup"

say "the peer's bundle: plain ffmpeg, Apple's ladder at fixed rates, 6 s segments, top variant first (made once)"
bash "$here/peer_bundle.sh" "$scratch/sources" "$scratch/peer"
peer_bundle="$scratch/peer"

master_of() { "$py" -c 'import json,sys; print(next(b["url"] for b in json.load(open(sys.argv[1]))["banners"] if b["type"] == "video"))' "$1/banners.json"; }
marquee_master=$(master_of "$marquee_bundle")
peer_master=$(master_of "$peer_bundle")

# -- nginx --------------------------------------------------------------------
www="$run_dir/www"
mkdir -p "$www" "$run_dir/nginx/logs" "$run_dir/nginx/tmp"
cp "$here/pages/"* "$www/"
printf 'ok\n' >"$www/probe-small.txt"
head -c 200000 /dev/urandom >"$www/probe-200k.bin"
head -c 2000000 /dev/urandom >"$www/probe-2mb.bin"
cors="http://$server_ip:$page_port"
"$marquee" nginx-config "$marquee_bundle" --prefix /marquee/ --cors "$cors" >"$run_dir/nginx/marquee.conf"
# The peer's files are served by the same printed configuration (same
# types, gzip of playlists and banners.json, caching headers).
"$marquee" nginx-config "$peer_bundle" --prefix /peer/ --cors "$cors" \
  | sed '/^location ~ "(^|\/)\\.marquee(\/|\$)" {$/,/^}$/d' >"$run_dir/nginx/peer.conf"
cat >"$run_dir/nginx/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $run_dir/nginx/nginx.pid;
error_log $run_dir/nginx/logs/error.log warn;
events { worker_connections 512; }
http {
  log_format bench '\$msec \$connection \$status \$body_bytes_sent \$server_port "\$request_uri"';
  access_log $run_dir/nginx/logs/access.log bench;
  client_body_temp_path $run_dir/nginx/tmp/body;
  proxy_temp_path $run_dir/nginx/tmp/proxy;
  fastcgi_temp_path $run_dir/nginx/tmp/fastcgi;
  uwsgi_temp_path $run_dir/nginx/tmp/uwsgi;
  scgi_temp_path $run_dir/nginx/tmp/scgi;
  sendfile on;
  tcp_nopush on;
  keepalive_timeout 65;
  # The bundles, behind the latency proxy.
  server {
    listen 127.0.0.1:$nginx_port;
    server_name bench;
    include $run_dir/nginx/marquee.conf;
    include $run_dir/nginx/peer.conf;
    location /bench/ { alias $www/; types { text/plain txt; application/octet-stream bin; } add_header Cache-Control no-store; }
  }
  # The test pages, straight (another origin: its connections are not the bundle's).
  server {
    listen $server_ip:$page_port;
    server_name pages;
    location /bench/ {
      alias $www/;
      types { text/html html; text/javascript js; }
      add_header Cache-Control no-store;
    }
  }
}
EOF

# -- two namespaces and a veth pair ---------------------------------------------
say "network: namespaces $ns_srv ($server_ip) and $ns_cli ($client_ip), veth $dev_srv/$dev_cli"
ip netns add "$ns_srv"
ip netns add "$ns_cli"
ip link add "$dev_srv" type veth peer name "$dev_cli"
ip link set "$dev_srv" netns "$ns_srv"
ip link set "$dev_cli" netns "$ns_cli"
ip -n "$ns_srv" addr add "$server_ip/24" dev "$dev_srv"
ip -n "$ns_cli" addr add "$client_ip/24" dev "$dev_cli"
for ns in "$ns_srv" "$ns_cli"; do ip -n "$ns" link set lo up; done
ip -n "$ns_srv" link set "$dev_srv" up
ip -n "$ns_cli" link set "$dev_cli" up
# (tbf splits a GSO packet larger than its burst into segments, so the
# veth's offloads stay as they are.)

ip netns exec "$ns_srv" nginx -p "$run_dir/nginx" -c "$run_dir/nginx/nginx.conf" -t >/dev/null 2>&1 \
  || { ip netns exec "$ns_srv" nginx -p "$run_dir/nginx" -c "$run_dir/nginx/nginx.conf" -t; die "nginx -t failed"; }
ip netns exec "$ns_srv" nginx -p "$run_dir/nginx" -c "$run_dir/nginx/nginx.conf" </dev/null \
  >"$run_dir/nginx/logs/stdout.log" 2>&1 &
nginx_pid=$!
for _ in $(seq 50); do
  ip netns exec "$ns_srv" curl -s -o /dev/null "http://127.0.0.1:$nginx_port/bench/probe-small.txt" && break
  sleep 0.1
done
ip netns exec "$ns_srv" curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/marquee/$marquee_master" || die "nginx does not serve Marquee's master"
ip netns exec "$ns_srv" curl -sf -o /dev/null "http://127.0.0.1:$nginx_port/peer/$peer_master" || die "nginx does not serve the peer's master"

# -- measure -----------------------------------------------------------------
prof_json=""
IFS=, read -r -a profs <<<"$profiles"
for p in "${profs[@]}"; do
  case $p in
    3G) prof_json+='{"name": "3G", "rate_kbit": 1600, "rtt_ms": 150},' ;;
    LTE) prof_json+='{"name": "LTE", "rate_kbit": 12000, "rtt_ms": 50},' ;;
    *) die "unknown profile $p (3G, LTE)" ;;
  esac
done
clients_json=$(printf '"%s",' ${clients//,/ })
raw="$run_dir/runs.jsonl"
: >"$raw"
cat >"$run_dir/bench.json" <<EOF
{
  "ns_server": "$ns_srv", "ns_client": "$ns_cli", "dev_server": "$dev_srv", "dev_client": "$dev_cli",
  "server_ip": "$server_ip", "nginx_port": $nginx_port, "proxy_port": $proxy_port, "page_port": $page_port,
  "profiles": [${prof_json%,}], "clients": [${clients_json%,}], "runs": $runs, "timeout_s": $timeout, "slow_start": $slow_start,
  "bundles": [
    {"name": "marquee", "prefix": "/marquee/", "master": "$marquee_master", "master_file": "$marquee_bundle/$marquee_master"},
    {"name": "peer", "prefix": "/peer/", "master": "$peer_master", "master_file": "$peer_bundle/$peer_master"}
  ],
  "scratch": "$run_dir", "chromium": "$chromium", "raw": "$raw",
  "access_log": "$run_dir/nginx/logs/access.log", "proxy_log": "$run_dir/proxy.log", "proxy_pidfile": "$run_dir/proxy.pid"
}
EOF
say "measuring: $runs run(s) x 2 bundles x profiles $profiles x clients $clients"
"$py" "$here/bench.py" "$run_dir/bench.json" &
echo $! >"$run_dir/bench.pid"
wait $!

# -- report --------------------------------------------------------------------
sizes() { # bytes a client needs for the first picture at each rung: init + first segment
  "$py" - "$1" "$2" <<'PYEOF'
import os, re, sys
bundle, master = sys.argv[1], sys.argv[2]
d = os.path.dirname(os.path.join(bundle, master))
out = []
for line in open(os.path.join(bundle, master)):
    line = line.strip()
    if line and not line.startswith("#"):
        v = os.path.join(d, line); vd = os.path.dirname(v)
        pl = open(v).read()
        init = re.search(r'#EXT-X-MAP:URI="([^"]+)"', pl).group(1)
        segs = [l for l in pl.splitlines() if l and not l.startswith("#")]
        dur = re.search(r"#EXTINF:([\d.]+)", pl).group(1)
        n = os.path.getsize(os.path.join(vd, init)) + os.path.getsize(os.path.join(vd, segs[0]))
        out.append(f"{os.path.dirname(line)}: {n} B (first segment {float(dur):g} s)")
print("; ".join(out))
PYEOF
}
{
  echo "marquee_rungs=$(sizes "$marquee_bundle" "$marquee_master")"
  echo "peer_rungs=$(sizes "$peer_bundle" "$peer_master")"
  echo "marquee_version=$("$marquee" --version | head -1)"
  echo "commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "seconds=$seconds"
  echo "chromium=$("$chromium" --version 2>/dev/null | head -1)"
  echo "gstreamer=$(gst-launch-1.0 --version | sed -n 2p)"
  echo "kernel=$(uname -r)"
  echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$run_dir/meta.txt"
cp "$raw" "$results/runs.jsonl"
"$py" "$here/report.py" "$raw" "$run_dir/meta.txt" "$marquee_bundle/$marquee_master" "$peer_bundle/$peer_master" \
  | tee "$results/results.md"
say "written: $results/results.md and $results/runs.jsonl"
