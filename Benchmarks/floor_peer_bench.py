#!/usr/bin/env python3
"""One video item: Marquee against the encoder's floor and the peer script (issue 26).

For one source file and one marquee binary:

1. builds the source once with Marquee (a one-video job, default settings,
   `marquee build job.json --out setup --rebuild`) and reads the ladder and
   the options Marquee used from what it wrote: each rendition's size from
   the master playlist, its exact libx264 options from the options SEI in its
   first segment (CRF, VBV maxrate/bufsize, keyint, keyint_min, B-frames,
   b-adapt, trellis, ...), its AAC bit rate and channels from its init
   section, the frame rate, the segment boundaries and the MP4's size;
   and the `encode finished` log line (was the top rendition encoded again?);
2. runs, after one warm-up round, N rounds (default 3) of, in turn:
     marquee  `marquee build job.json --rebuild --quiet` (default --jobs);
     floor    ONE ffmpeg decoding once and encoding the same ladder (every
              rung, the weak-network one included): `fps`, `split`, per rung
              `scale` (Lanczos) and `setsar=1`, libx264 at Marquee's options,
              plus the AAC encodes (128 kbit/s and, for the weak rung, 56),
              each to the null muxer, FFmpeg's default threads;
     peer     what a competent engineer scripts: one ffmpeg per rendition
              (fMP4 HLS, 1 s first segment then 2 s, same x264 options and
              AAC), then one for the MP4 rendition (nearest 720p) with
              `+faststart`, one after another, FFmpeg's default threads;
   measuring per run the whole pipeline's wall, its CPU (user + sys of every
   child, from os.wait4's rusage) and the peak RSS of its largest process;
   the 1-minute load average (/proc/loadavg, sampled every second) and the
   CPU the rest of the machine used meanwhile (/proc/stat busy time less the
   run's own CPU);
3. prints a Markdown table: per pipeline the median wall, CPU and peak RSS,
   the ratios to the floor of the same round (CPU, wall, RSS: median and
   min-max over the rounds), and peer / marquee CPU and wall.

The warm-up round also checks the floor's and the peer's x264 options against
Marquee's: the peer's streams are written, so their options SEI is compared
with Marquee's key by key (threads excepted), and their segment durations with
Marquee's. Both commands come from one function, so the floor's match too.

libx264 is given Marquee's `asm` flags (every instruction set detected except
AVX-512, `X264Capabilities` in Sources/MediaIO), computed here the same way
from libx264's own `x264_cpu_detect` and `x264_cpu_names`.

CPU seconds and peak RSS hold under other load on the machine; walls do not
(CFS shares the cores per runnable thread, and the floor and the peer run
more x264 threads than Marquee): read the load columns with them.

Usage:
  python3 Benchmarks/floor_peer_bench.py SOURCE --marquee BINARY [--rounds N]
                                         [--work DIR] [--label TEXT]
The source is copied into DIR (default: ./floor-peer-work/<source name>),
next to the job file, since a job refuses sources outside its folder.
"""
import argparse, ctypes, fractions, json, math, os, re, shutil, statistics, subprocess, sys, tempfile, threading, time

SEI_IGNORED = {"threads", "lookahead_threads", "sliced_threads"}  # the floor and the peer keep FFmpeg's defaults
X264_EXTRA = "b-adapt=2:rc-lookahead=60:trellis=2"  # EncoderEffort.x264Options
STANDARD_RATES = [fractions.Fraction(n, d) for n, d in
                  [(24000, 1001), (24, 1), (25, 1), (30000, 1001), (30, 1), (50, 1), (60000, 1001), (60, 1)]]


# ---------------------------------------------------------------- measuring

class LoadSampler(threading.Thread):
    """Samples the 1-minute load average every second into the current list."""

    def __init__(self):
        super().__init__(daemon=True)
        self.current, self.stop = None, threading.Event()

    def run(self):
        while not self.stop.is_set():
            bucket = self.current
            if bucket is not None:
                with open("/proc/loadavg") as f:
                    bucket.append(float(f.read().split()[0]))
            self.stop.wait(1.0)


SAMPLER = LoadSampler()


def machine_busy_seconds():
    """CPU seconds every core of the machine has spent busy since boot."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest is inside user)
    busy = v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)
    return busy / os.sysconf("SC_CLK_TCK")


def run_one(cmd, cwd):
    """Runs one command; (CPU s, peak RSS KiB) from its rusage."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            sys.exit(f"failed ({os.waitstatus_to_exitcode(status)}): {' '.join(cmd)}\n{err.read().decode()[-3000:]}")
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss


def measure(steps):
    """Runs the steps [(cmd, cwd)] one after another; a dict of the figures."""
    loads = []
    SAMPLER.current = loads
    busy0, start = machine_busy_seconds(), time.monotonic()
    cpu, rss = 0.0, 0
    for cmd, cwd in steps:
        c, r = run_one(cmd, cwd)
        cpu, rss = cpu + c, max(rss, r)
    wall = time.monotonic() - start
    others = max(0.0, machine_busy_seconds() - busy0 - cpu)
    SAMPLER.current = None
    with open("/proc/loadavg") as f:
        loads.append(float(f.read().split()[0]))
    return {"wall": wall, "cpu": cpu, "rss": rss / 1024.0, "loads": loads, "others": others}


# ---------------------------------------------------------------- Marquee's ladder

def x264_asm_without_avx512():
    """Marquee's `asm=` value: libx264's detected flags less AVX-512, or None."""
    try:
        lib = ctypes.CDLL("libx264.so.164")
    except OSError:
        return None
    lib.x264_cpu_detect.restype = ctypes.c_uint32
    flags = lib.x264_cpu_detect()

    class Name(ctypes.Structure):
        _fields_ = [("name", ctypes.c_char_p), ("flags", ctypes.c_uint32)]
    named = {}
    for e in (Name * 128).in_dll(lib, "x264_cpu_names"):
        if e.flags == 0:
            break
        named[e.name.decode()] = e.flags
    if "AVX512" not in named or "AVX2" not in named:
        return None
    avx512 = named["AVX512"] & ~named["AVX2"]
    return flags & ~avx512 if avx512 and flags & avx512 else None


def sei_options(path):
    """libx264's options SEI in an H.264 file, as a dict."""
    data = open(path, "rb").read()
    i = data.find(b"x264 - core")
    if i < 0:
        sys.exit(f"no x264 options SEI in {path}")
    text = data[i:data.find(b"\0", i)].decode("ascii", "replace")
    opts = text.split(" options: ", 1)[1]
    return dict(kv.split("=", 1) for kv in opts.split() if "=" in kv)


def ffprobe(path, *args):
    out = subprocess.run(["ffprobe", "-v", "error", "-of", "json", *args, path],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def extinf(playlist):
    return [float(m) for m in re.findall(r"#EXTINF:([0-9.]+),", open(playlist).read())]


def frame_rate(value):
    r = fractions.Fraction(value).limit_denominator(1001)
    near = min(STANDARD_RATES, key=lambda s: abs(s - r))
    return near if abs(near - r) < fractions.Fraction(1, 100) else r


def read_ladder(item_dir, job_crf=23.0):
    """What Marquee built: renditions (in the master playlist's order), the MP4's size."""
    master = open(os.path.join(item_dir, "master.m3u8")).read()
    rungs = []
    for attrs, uri in re.findall(r"#EXT-X-STREAM-INF:([^\n]*)\n([^\n]+)", master):
        w, h = map(int, re.search(r"RESOLUTION=(\d+)x(\d+)", attrs).groups())
        rate = frame_rate(re.search(r"FRAME-RATE=([0-9.]+)", attrs).group(1))
        folder = os.path.join(item_dir, os.path.dirname(uri))
        sei = sei_options(os.path.join(folder, "segment_00000.m4s"))
        audio = ffprobe(os.path.join(folder, "init.mp4"), "-select_streams", "a",
                        "-show_entries", "stream=bit_rate,channels,sample_rate")["streams"]
        crf = float(sei["crf"])
        # The SEI prints one decimal; Marquee passes two (RenditionPlanner.crfOffset).
        pixels = w * h
        planned = job_crf - (min(4.0, math.log2(640 * 360 / pixels)) if pixels < 640 * 360 else 0.0)
        if abs(planned - crf) < 0.05:
            crf = round(planned, 2)
        rungs.append({"name": os.path.dirname(uri), "width": w, "height": h, "rate": rate, "crf": crf, "sei": sei,
                      "audio": audio[0] if audio else None, "extinf": extinf(os.path.join(folder, "index.m3u8"))})
    rungs.sort(key=lambda r: -r["width"] * r["height"])
    mp4 = ffprobe(os.path.join(item_dir, "video.mp4"), "-select_streams", "v", "-show_entries", "stream=width,height")
    mw, mh = mp4["streams"][0]["width"], mp4["streams"][0]["height"]
    mp4_rung = next(r for r in rungs if (r["width"], r["height"]) == (mw, mh))
    return rungs, mp4_rung


def keyframe_times(duration):
    """Marquee's IDRs: 0, 1 s, then every 2 s (segment_duration)."""
    times, t = [0], 1
    while t < duration:
        times.append(t)
        t += 2
    return ",".join(str(t) for t in times)


def x264_args(r, asm, keyframes):
    s = r["sei"]
    params = ["scenecut=0", "open-gop=0", X264_EXTRA,
              f"keyint={s['keyint']}", f"min-keyint={s['keyint_min']}", f"bframes={s['bframes']}",
              f"vbv-maxrate={s['vbv_maxrate']}", f"vbv-bufsize={s['vbv_bufsize']}", "vbv-init=0.5"]
    if asm is not None:
        params.append(f"asm={asm}")
    return ["-c:v", "libx264", "-preset", "medium", "-profile:v", "high", "-pix_fmt", "yuv420p",
            "-crf", f"{r['crf']:g}", "-x264-params", ":".join(params), "-forced-idr", "1", "-flags", "+cgop",
            "-force_key_frames", keyframes,
            "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv"]


def aac_args(r):
    a = r["audio"]
    return ["-c:a", "aac", "-b:a", f"{int(a['bit_rate']) // 1000}k", "-ar", a["sample_rate"], "-ac", str(a["channels"])]


def rung_filter(r):
    return f"scale={r['width']}:{r['height']}:flags=lanczos,setsar=1"


def floor_cmd(src, rungs, asm, keyframes):
    n = len(rungs)
    graph = ";".join([f"[0:v]fps={rungs[0]['rate']},split={n}" + "".join(f"[s{i}]" for i in range(n))] +
                     [f"[s{i}]{rung_filter(r)}[o{i}]" for i, r in enumerate(rungs)])
    cmd = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", src, "-filter_complex", graph]
    for i, r in enumerate(rungs):
        cmd += ["-map", f"[o{i}]"] + x264_args(r, asm, keyframes) + ["-f", "null", "-"]
    for rate in sorted({int(r["audio"]["bit_rate"]) for r in rungs if r["audio"]}, reverse=True):
        r = next(r for r in rungs if r["audio"] and int(r["audio"]["bit_rate"]) == rate)
        cmd += ["-map", "0:a:0"] + aac_args(r) + ["-f", "null", "-"]
    return cmd


def peer_steps(src_rel, rungs, mp4_rung, asm, keyframes, peer_dir):
    """[(cmd, cwd)]: one ffmpeg per rendition (run in its folder), then the MP4."""
    steps = []
    for r in rungs:
        cmd = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", os.path.join("..", "..", src_rel),
               "-map", "0:v:0", "-vf", f"fps={r['rate']},{rung_filter(r)}"] + x264_args(r, asm, keyframes)
        if r["audio"]:
            cmd += ["-map", "0:a:0"] + aac_args(r)
        cmd += ["-f", "hls", "-hls_time", "2", "-hls_init_time", "1", "-hls_playlist_type", "vod",
                "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
                "-hls_segment_filename", "segment_%05d.m4s", "index.m3u8"]
        steps.append((cmd, os.path.join(peer_dir, r["name"])))
    r = mp4_rung
    cmd = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", os.path.join("..", src_rel),
           "-map", "0:v:0", "-vf", f"fps={r['rate']},{rung_filter(r)}"] + x264_args(r, asm, keyframes)
    if r["audio"]:
        cmd += ["-map", "0:a:0"] + aac_args(r)
    cmd += ["-movflags", "+faststart", "video.mp4"]
    steps.append((cmd, peer_dir))
    return steps


def reset_peer(peer_dir, rungs):
    shutil.rmtree(peer_dir, ignore_errors=True)
    for r in rungs:
        os.makedirs(os.path.join(peer_dir, r["name"]))


def check_peer(peer_dir, rungs):
    """Differences between the peer's streams and Marquee's, as text lines."""
    notes = []
    for r in rungs:
        folder = os.path.join(peer_dir, r["name"])
        sei = sei_options(os.path.join(folder, sorted(f for f in os.listdir(folder) if f.endswith(".m4s"))[0]))
        diff = sorted(k for k in set(sei) | set(r["sei"]) if k not in SEI_IGNORED and sei.get(k) != r["sei"].get(k))
        if diff:
            notes.append(f"{r['name']}: x264 options differ: " +
                         ", ".join(f"{k} marquee {r['sei'].get(k)} / peer {sei.get(k)}" for k in diff))
        theirs = extinf(os.path.join(folder, "index.m3u8"))
        if [round(x, 2) for x in theirs] != [round(x, 2) for x in r["extinf"]]:
            notes.append(f"{r['name']}: segments differ: marquee {r['extinf']} / peer {theirs}")
    return notes or ["peer x264 options (threads aside) and segment durations = Marquee's, every rendition"]


def top_crf(work):
    """The CRF in the options SEI of the top rendition Marquee last published under work/Output."""
    for root, _, files in os.walk(os.path.join(work, "Output")):
        if "master.m3u8" in files:
            rungs, _ = read_ladder(root)
            return rungs[0]["sei"]["crf"]
    return None


# ---------------------------------------------------------------- report

def med(xs):
    return statistics.median(xs)


def span(xs):
    return f"{med(xs):.2f} ({min(xs):.2f}–{max(xs):.2f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source")
    ap.add_argument("--marquee", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work")
    ap.add_argument("--label")
    a = ap.parse_args()
    marquee = os.path.abspath(a.marquee)
    name = os.path.basename(a.source)
    work = os.path.abspath(a.work or os.path.join("floor-peer-work", os.path.splitext(name)[0]))
    os.makedirs(work, exist_ok=True)
    src_rel = name
    if os.path.abspath(a.source) != os.path.join(work, name):
        shutil.copyfile(a.source, os.path.join(work, name))
    with open(os.path.join(work, "job.json"), "w") as f:
        json.dump({"name": "bench", "base_url": "https://cdn.example.com/bench/",
                   "banners": [{"id": "v", "type": "video", "source": src_rel}]}, f, indent=1)
    SAMPLER.start()

    # 1. Marquee's ladder and options, and whether it encoded the top rendition again.
    shutil.rmtree(os.path.join(work, "setup"), ignore_errors=True)
    log = subprocess.run([marquee, "build", "job.json", "--out", "setup", "--rebuild", "--log-format", "plain"],
                         cwd=work, capture_output=True, text=True)
    if log.returncode != 0:
        sys.exit(f"marquee build failed ({log.returncode}):\n{log.stdout[-3000:]}{log.stderr[-3000:]}")
    finished = next((l for l in log.stdout.splitlines() if "encode finished" in l), "")
    finished = finished.split(": ", 1)[1] if ": " in finished else finished
    item_dir = next(os.path.join(root) for root, _, files in os.walk(os.path.join(work, "setup", "bench"))
                    if "master.m3u8" in files)
    rungs, mp4_rung = read_ladder(item_dir)
    duration = float(ffprobe(os.path.join(item_dir, "video.mp4"), "-show_entries", "format=duration")["format"]["duration"])
    asm = x264_asm_without_avx512()
    keyframes = keyframe_times(duration)
    floor = floor_cmd(src_rel, rungs, asm, keyframes)
    peer_dir = os.path.join(work, "peer")
    peer = peer_steps(src_rel, rungs, mp4_rung, asm, keyframes, peer_dir)
    again = "encoded again" in finished
    cannot = "a correction cannot help" in finished

    print(f"## {a.label or name}\n")
    print(f"- marquee: `{finished}`")
    print(f"- top rendition encoded a second time: {'yes' if again else 'no'}"
          f"{' (log: a correction cannot help)' if cannot else ''}")
    print("- ladder read from Marquee's streams: " + "; ".join(
        f"{r['width']}x{r['height']} CRF {r['crf']:g} VBV {r['sei']['vbv_maxrate']}/{r['sei']['vbv_bufsize']} kbit "
        f"keyint {r['sei']['keyint']}/{r['sei']['keyint_min']} bframes {r['sei']['bframes']} "
        f"AAC {int(r['audio']['bit_rate']) // 1000 if r['audio'] else '-'}k" for r in rungs) +
        f"; {rungs[0]['rate']} fps; MP4 {mp4_rung['width']}x{mp4_rung['height']}; IDRs at {keyframes} s; "
        f"asm={asm if asm is not None else 'libx264 default'}")
    print(f"- floor: `{' '.join(floor)}`")
    for cmd, cwd in peer:
        print(f"- peer (in {os.path.relpath(cwd, work)}): `{' '.join(cmd)}`")
    sys.stdout.flush()

    pipelines = {
        "marquee": lambda: [([marquee, "build", "job.json", "--rebuild", "--quiet"], work)],
        "floor": lambda: [(floor, work)],
        "peer": lambda: peer,
    }
    results = {k: [] for k in pipelines}
    crfs = []
    for round_ in range(a.rounds + 1):
        for k, steps in pipelines.items():
            if k == "peer":
                reset_peer(peer_dir, rungs)
            m = measure(steps())
            if k == "marquee":
                crfs.append(top_crf(work))
            if round_ == 0:
                if k == "peer":
                    for note in check_peer(peer_dir, rungs):
                        print(f"- check: {note}")
                continue
            results[k].append(m)
            print(f"  round {round_} {k:8} wall {m['wall']:7.2f} s  CPU {m['cpu']:7.2f} s  RSS {m['rss']:6.1f} MiB  "
                  f"load {min(m['loads']):.1f}–{max(m['loads']):.1f}  others' CPU {m['others']:.1f} s "
                  f"({m['others'] / m['wall']:.2f} cores)", file=sys.stderr, flush=True)
    if len(set(crfs)) > 1 or (crfs and crfs[0] != rungs[0]["sei"]["crf"]):
        print(f"- note: the top rendition's CRF changed between Marquee runs: {crfs}")

    # 3. The table.
    fl = results["floor"]
    print()
    print("| pipeline | rounds | wall s | CPU s | peak RSS MiB | CPU / floor | wall / floor | RSS / floor | load (1 min) | others' cores |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in ("marquee", "floor", "peer"):
        rs = results[k]
        ratios = {f: [r[f] / b[f] for r, b in zip(rs, fl)] for f in ("cpu", "wall", "rss")}
        loads = [x for r in rs for x in r["loads"]]
        cells = ["1.00"] * 3 if k == "floor" else [span(ratios[f]) for f in ("cpu", "wall", "rss")]
        print(f"| {k} | {len(rs)} | {med([r['wall'] for r in rs]):.2f} | {med([r['cpu'] for r in rs]):.2f} | "
              f"{med([r['rss'] for r in rs]):.1f} | " + " | ".join(cells) +
              f" | {min(loads):.1f}–{max(loads):.1f} | {med([r['others'] / r['wall'] for r in rs]):.2f} |")
    pm_cpu = [p["cpu"] / m["cpu"] for p, m in zip(results["peer"], results["marquee"])]
    pm_wall = [p["wall"] / m["wall"] for p, m in zip(results["peer"], results["marquee"])]
    print(f"\npeer / marquee: CPU {span(pm_cpu)}, wall {span(pm_wall)} (median, min–max of the rounds)")
    print(f"{os.cpu_count()} cores; walls and wall ratios depend on the other load (load, others' cores columns); "
          f"CPU and peak RSS hold.")
    SAMPLER.stop.set()


if __name__ == "__main__":
    main()
