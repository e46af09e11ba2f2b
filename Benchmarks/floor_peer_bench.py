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

HEVC twins (the `<rung>-hevc/` variants, CODECS `hvc1...`): the floor and
the peer encode exactly the twins Marquee's master playlist lists (Marquee
encodes every twin of its plan and leaves out one that is not under its
H.264 rendition's bytes; such a twin is not encoded by the others). Each
twin's libx265 settings are Marquee's (Sources/MediaIO/Encoder.swift
`openHEVC`, EncoderEffort `hevcPreset`, `x265Options`, RenditionPlanner
`hevcTwin`): preset medium, Main profile, yuv420p, BT.709 tags, the H.264
rendition's GOP (`-g`, `-keyint_min` min(GOP, 25)), 3 B-frames (`-bf` and
`bframes=3`), the same forced IDRs (`-forced-idr 1`), closed GOPs, global
headers, `scenecut=0:open-gop=0:log-level=error:info=0`, `vbv-init` half the
buffer; VBV cap and buffer 0.7 of the H.264 rung's in bit/s (libavcodec
hands libx265 whole kbit/s, as for Marquee). The H.264 options SEI gives the
rung's cap only in whole kbit/s, so the cap in bit/s is recomputed with
`RenditionPlanner.bitRate`'s formula (default ladder, `WeakNetworkRung`'s
80 kbit/s and 0.5 s buffer) and used only when it gives the SEI's kbit/s;
the twin's kbit/s are printed. CRF: the H.264 rendition's planned CRF + 1;
the top twin's from the `encode finished` line (`HEVC top SSIM ... at CRF
x.xx`, the last encode: Marquee formats the CRF it gives libx265 with two
decimals, and so does the log, so the value is exact; libx265 writes no
options SEI with `info=0`).

Threads: Marquee runs each libx265 on one thread (`pools=none:
frame-threads=1:lookahead-slices=0`). The floor and the peer leave those
three out and keep libx265's defaults (a worker pool of one thread per core
per encoder, wavefront rows, frame threads by core count, lookahead slices),
as they keep libx264's: the floor is the encoder on every core. In the floor
each twin takes its H.264 rung's scaled pictures (one `scale` per size, then
`split` to the two encoders: the least work; Marquee scales per rendition);
the peer runs one ffmpeg per twin, like its H.264 renditions (fMP4 HLS, the
same segments, the twin's AAC), after the H.264 ones and before the MP4.
The warm-up round checks each peer twin's codec (hevc, Main), size and
segment durations against Marquee's twin, and prints the video bytes of
both (libx265's threads change its bytes, so these are not expected equal).
With `--twin-bytes`, before the rounds, each twin is encoded once more by
the ffmpeg CLI at the same settings plus Marquee's one thread, and its
packets are compared with Marquee's (equal: the settings are Marquee's).

Usage:
  python3 Benchmarks/floor_peer_bench.py SOURCE --marquee BINARY [--rounds N]
                                         [--work DIR] [--label TEXT] [--twin-bytes]
The source is copied into DIR (default: ./floor-peer-work/<source name>),
next to the job file, since a job refuses sources outside its folder.
"""
import argparse, ctypes, fractions, json, math, os, re, shutil, statistics, subprocess, sys, tempfile, threading, time

SEI_IGNORED = {"threads", "lookahead_threads", "sliced_threads"}  # the floor and the peer keep FFmpeg's defaults
X264_EXTRA = "b-adapt=2:rc-lookahead=60:trellis=2"  # EncoderEffort.x264Options
HEVC_SUFFIX = "-hevc"  # RenditionPlanner.hevcNameSuffix
HEVC_CRF_OFFSET = 1.0  # RenditionPlanner.hevcCRFOffset
HEVC_RATE_SHARE = 0.7  # RenditionPlanner.hevcRateShare
# Encoder.openHEVC's x265-params less its three threading ones (pools=none,
# frame-threads=1, lookahead-slices=0), then EncoderEffort.x265Options.
X265_FIXED = "scenecut=0:open-gop=0:log-level=error:info=0"
X265_EXTRA = "bframes=3"
# RenditionRequest.defaultLadder (short side, kbit/s), RenditionPlanner's exponents,
# WeakNetworkRung's cap and buffer: the H.264 rungs' caps in bit/s.
DEFAULT_LADDER = [(1080, 6000), (720, 3000), (540, 2000), (360, 730)]
PIXEL_EXPONENTS = (0.75, 0.5)  # pixelExponent, smallSourcePixelExponent
FRAME_RATE_EXPONENT = 0.585
WEAK_RATE, WEAK_BUFFER_SECONDS = 80_000, 0.5
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
        if "hvc1" in attrs or "hev1" in attrs:
            continue  # an HEVC twin: read_twins
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


def swift_round(x):
    """Swift's `rounded()` of a non-negative Double (half away from zero)."""
    return int(math.floor(x + 0.5))


def planner_rate(w, h, fps, short, kbps, exponent):
    """RenditionPlanner.bitRate, bit/s, with Swift's order of operations."""
    nominal = float(short) * float(short) * 16 / 9
    pixels = math.pow(float(w * h) / nominal, exponent)
    rate = math.pow(max(1.0, fps) / 30, FRAME_RATE_EXPONENT)
    return swift_round(float(kbps * 1000) * pixels * rate)


def twin_vbv(r):
    """The HEVC twin's (cap, buffer) in bit/s and `vbv-init` for H.264 rendition r, and a note.

    hevcTwin: round(0.7 x) of the rung's cap and buffer, vbv-init (buffer / 2) / buffer
    (`%.4f`). The rung's cap in bit/s: a RenditionPlanner.bitRate candidate (or the weak
    rung's 80 kbit/s) whose whole kbit/s, and whose buffer's (the cap, or 0.5 s of it on the
    weak rung), are the options SEI's."""
    fps = float(r["rate"].numerator) / float(r["rate"].denominator)
    kmax, kbuf = int(r["sei"]["vbv_maxrate"]), int(r["sei"]["vbv_bufsize"])
    caps = {planner_rate(r["width"], r["height"], fps, short, kbps, e)
            for short, kbps in DEFAULT_LADDER for e in PIXEL_EXPONENTS} | {WEAK_RATE}
    found = set()
    for cap in caps:
        if cap // 1000 != kmax:
            continue
        for buf in (cap, swift_round(cap * WEAK_BUFFER_SECONDS)):
            if buf // 1000 == kbuf:
                tcap, tbuf = swift_round(cap * HEVC_RATE_SHARE), swift_round(buf * HEVC_RATE_SHARE)
                found.add((tcap, tbuf, "%.4f" % ((tbuf // 2) / tbuf)))
    if len({(c // 1000, b // 1000, i) for c, b, i in found}) == 1:
        return sorted(found)[0], "exact"
    # Not reproduced (or ambiguous): 0.7 of the SEI's kbit/s.
    tcap, tbuf = swift_round(kmax * 1000 * HEVC_RATE_SHARE), swift_round(kbuf * 1000 * HEVC_RATE_SHARE)
    return (tcap, tbuf, "%.4f" % ((tbuf // 2) / tbuf)), \
        f"APPROXIMATE (0.7 of the SEI's {kmax}/{kbuf} kbit/s; {len(found)} planner candidates)"


def hevc_top_crfs(finished):
    """The CRFs of the top twin's encodes in the `encode finished` line, in order."""
    m = re.search(r"HEVC top SSIM ((?:[0-9.]+ at CRF [0-9.]+(?: → )?)+)", finished)
    return [float(x) for x in re.findall(r"at CRF ([0-9.]+)", m.group(1))] if m else []


def read_twins(item_dir, rungs, finished, job_crf=23.0):
    """The HEVC twins Marquee's master lists, largest first, with their libx265 settings."""
    master = open(os.path.join(item_dir, "master.m3u8")).read()
    by_name = {r["name"]: r for r in rungs}
    top_crfs = hevc_top_crfs(finished)
    twins = []
    for attrs, uri in re.findall(r"#EXT-X-STREAM-INF:([^\n]*)\n([^\n]+)", master):
        if not ("hvc1" in attrs or "hev1" in attrs):
            continue
        name = os.path.dirname(uri)
        w, h = map(int, re.search(r"RESOLUTION=(\d+)x(\d+)", attrs).groups())
        base = by_name[name[:-len(HEVC_SUFFIX)]]  # its H.264 rendition
        assert (w, h) == (base["width"], base["height"]), name
        folder = os.path.join(item_dir, name)
        audio = ffprobe(os.path.join(folder, "init.mp4"), "-select_streams", "a",
                        "-show_entries", "stream=bit_rate,channels,sample_rate")["streams"]
        pixels = w * h
        planned = job_crf - (min(4.0, math.log2(640 * 360 / pixels)) if pixels < 640 * 360 else 0.0)
        crf, crf_from = round(max(1.0, planned) + HEVC_CRF_OFFSET, 2), "planned"
        if base is rungs[0] and top_crfs:
            crf, crf_from = top_crfs[-1], "log"
        (vcap, vbuf, vinit), vbv_note = twin_vbv(base)
        gop = int(base["sei"]["keyint"])
        twins.append({"name": name, "width": w, "height": h, "rate": base["rate"], "crf": crf, "crf_from": crf_from,
                      "maxrate": vcap, "bufsize": vbuf, "vbv_init": vinit, "vbv_note": vbv_note,
                      "keyint": gop, "keyint_min": min(gop, 25), "base": base["name"],
                      "audio": audio[0] if audio else None, "extinf": extinf(os.path.join(folder, "index.m3u8")),
                      "video_bytes": video_bytes(folder)})
    twins.sort(key=lambda t: -t["width"] * t["height"])
    return twins


def packet_digests(path):
    """MD5 of each video packet of a file (framemd5 of a stream copy)."""
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-c", "copy", "-f", "framemd5", "-"],
                         check=True, capture_output=True, text=True).stdout
    return [l.rsplit(",", 1)[1].strip() for l in out.splitlines() if l and not l.startswith("#")]


def check_twin_bytes(work, src_rel, item_dir, twins, keyframes):
    """Each twin encoded again by the ffmpeg CLI with the settings above plus Marquee's one
    thread (`pools=none:frame-threads=1:lookahead-slices=0`), its packets compared with
    Marquee's twin's: equal packets show that the settings are Marquee's. Not timed."""
    notes = []
    with tempfile.TemporaryDirectory(dir=work) as tmp:
        for t in twins:
            out = os.path.join(tmp, t["name"] + ".mp4")
            subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", src_rel, "-map", "0:v:0",
                            "-vf", f"fps={t['rate']},{rung_filter(t)}"] + x265_args(t, keyframes, one_thread=True) +
                           ["-an", out], cwd=work, check=True)
            joined = os.path.join(tmp, t["name"] + ".marquee.mp4")
            with open(joined, "wb") as j:
                folder = os.path.join(item_dir, t["name"])
                for f in ["init.mp4"] + sorted(f for f in os.listdir(folder) if f.endswith(".m4s")):
                    with open(os.path.join(folder, f), "rb") as part:
                        shutil.copyfileobj(part, j)
            ours, theirs = packet_digests(joined), packet_digests(out)
            same = sum(a == b for a, b in zip(ours, theirs))
            notes.append(f"{t['name']}: one-thread CLI encode at these settings: {same} of {len(ours)} packets "
                         f"identical to Marquee's ({len(theirs)} packets)" +
                         (" - the settings are Marquee's" if same == len(ours) == len(theirs) else
                          " - they differ: in the settings, or in the pictures (a rotated source: the CLI "
                          "rotates before scaling, Marquee after)"))
    return notes


def video_bytes(folder):
    """The video packets' bytes of a rendition (its init section and segments, joined)."""
    with tempfile.NamedTemporaryFile(suffix=".mp4") as joined:
        for f in ["init.mp4"] + sorted(f for f in os.listdir(folder) if f.endswith(".m4s")):
            with open(os.path.join(folder, f), "rb") as part:
                shutil.copyfileobj(part, joined)
        joined.flush()
        out = ffprobe(joined.name, "-select_streams", "v", "-show_entries", "packet=size")
    return sum(int(p["size"]) for p in out.get("packets", []))


MARQUEE_X265_THREADS = "pools=none:frame-threads=1:lookahead-slices=0"  # Encoder.openHEVC


def x265_args(t, keyframes, one_thread=False):
    params = ([MARQUEE_X265_THREADS] if one_thread else []) + [X265_FIXED, f"vbv-init={t['vbv_init']}", X265_EXTRA]
    return ["-c:v", "libx265", "-preset", "medium", "-profile:v", "main", "-pix_fmt", "yuv420p",
            "-crf", f"{t['crf']:.2f}", "-b:v", "0", "-maxrate", str(t["maxrate"]), "-bufsize", str(t["bufsize"]),
            "-g", str(t["keyint"]), "-keyint_min", str(t["keyint_min"]), "-bf", "3",
            "-x265-params", ":".join(params), "-forced-idr", "1", "-flags", "+cgop+global_header",
            "-force_key_frames", keyframes, "-tag:v", "hvc1",
            "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv"]


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


def floor_cmd(src, rungs, asm, keyframes, twins=()):
    n = len(rungs)
    twin_of = {t["base"]: j for j, t in enumerate(twins)}

    def tail(i, r):  # a twin shares its rung's scaled pictures
        if r["name"] not in twin_of:
            return f"[s{i}]{rung_filter(r)}[o{i}]"
        return f"[s{i}]{rung_filter(r)},split=2[o{i}][t{twin_of[r['name']]}]"
    graph = ";".join([f"[0:v]fps={rungs[0]['rate']},split={n}" + "".join(f"[s{i}]" for i in range(n))] +
                     [tail(i, r) for i, r in enumerate(rungs)])
    cmd = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", src, "-filter_complex", graph]
    for i, r in enumerate(rungs):
        cmd += ["-map", f"[o{i}]"] + x264_args(r, asm, keyframes) + ["-f", "null", "-"]
    for j, t in enumerate(twins):
        cmd += ["-map", f"[t{j}]"] + x265_args(t, keyframes) + ["-f", "null", "-"]
    for rate in sorted({int(r["audio"]["bit_rate"]) for r in rungs if r["audio"]}, reverse=True):
        r = next(r for r in rungs if r["audio"] and int(r["audio"]["bit_rate"]) == rate)
        cmd += ["-map", "0:a:0"] + aac_args(r) + ["-f", "null", "-"]
    return cmd


def peer_steps(src_rel, rungs, mp4_rung, asm, keyframes, peer_dir, twins=()):
    """[(cmd, cwd)]: one ffmpeg per rendition (run in its folder), one per HEVC twin, then the MP4."""
    steps = []
    for r in list(rungs) + list(twins):
        video = x265_args(r, keyframes) if r["name"].endswith(HEVC_SUFFIX) else x264_args(r, asm, keyframes)
        cmd = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", os.path.join("..", "..", src_rel),
               "-map", "0:v:0", "-vf", f"fps={r['rate']},{rung_filter(r)}"] + video
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


def reset_peer(peer_dir, rungs, twins=()):
    shutil.rmtree(peer_dir, ignore_errors=True)
    for r in list(rungs) + list(twins):
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


def check_peer_twins(peer_dir, twins):
    """The peer's HEVC twins against Marquee's: codec, profile, size, segments; text lines."""
    notes = []
    for t in twins:
        folder = os.path.join(peer_dir, t["name"])
        v = ffprobe(os.path.join(folder, "init.mp4"), "-select_streams", "v",
                    "-show_entries", "stream=codec_name,codec_tag_string,profile,width,height")["streams"][0]
        got = (v.get("codec_name"), v.get("profile"), v.get("width"), v.get("height"))
        want = ("hevc", "Main", t["width"], t["height"])
        theirs = extinf(os.path.join(folder, "index.m3u8"))
        same_segments = [round(x, 2) for x in theirs] == [round(x, 2) for x in t["extinf"]]
        if got != want:
            notes.append(f"{t['name']}: stream differs: marquee {want} / peer {got}")
        if not same_segments:
            notes.append(f"{t['name']}: segments differ: marquee {t['extinf']} / peer {theirs}")
        peer_bytes = video_bytes(folder)
        notes.append(f"{t['name']}: peer {v.get('codec_name')} {v.get('profile')} {v.get('codec_tag_string')} "
                     f"{v.get('width')}x{v.get('height')}, {len(theirs)} segments"
                     f"{' = Marquee' if same_segments else ' (DIFFER)'}; video bytes peer {peer_bytes:,} / "
                     f"Marquee {t['video_bytes']:,} = {peer_bytes / max(1, t['video_bytes']):.3f}")
    return notes


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
    ap.add_argument("--twin-bytes", action="store_true",
                    help="before the rounds, encode each HEVC twin once more with Marquee's one libx265 "
                         "thread and compare its packets with Marquee's (not timed)")
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
    twins = read_twins(item_dir, rungs, finished)
    duration = float(ffprobe(os.path.join(item_dir, "video.mp4"), "-show_entries", "format=duration")["format"]["duration"])
    asm = x264_asm_without_avx512()
    keyframes = keyframe_times(duration)
    floor = floor_cmd(src_rel, rungs, asm, keyframes, twins)
    peer_dir = os.path.join(work, "peer")
    peer = peer_steps(src_rel, rungs, mp4_rung, asm, keyframes, peer_dir, twins)
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
    if twins:
        print("- HEVC twins read from Marquee's master: " + "; ".join(
            f"{t['name']} {t['width']}x{t['height']} CRF {t['crf']:.2f} ({t['crf_from']}) "
            f"VBV {t['maxrate'] // 1000}/{t['bufsize'] // 1000} kbit ({t['maxrate']}/{t['bufsize']} bit/s, "
            f"{t['vbv_note']}) vbv-init {t['vbv_init']} keyint {t['keyint']}/{t['keyint_min']} "
            f"AAC {int(t['audio']['bit_rate']) // 1000 if t['audio'] else '-'}k" for t in twins))
        crfs = hevc_top_crfs(finished)
        print(f"- top twin encoded a second time: {'yes' if len(crfs) > 1 else 'no'} (log CRFs {crfs})")
    print(f"- floor: `{' '.join(floor)}`")
    for cmd, cwd in peer:
        print(f"- peer (in {os.path.relpath(cwd, work)}): `{' '.join(cmd)}`")
    if a.twin_bytes:
        for note in check_twin_bytes(work, src_rel, item_dir, twins, keyframes):
            print(f"- check: {note}")
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
                reset_peer(peer_dir, rungs, twins)
            m = measure(steps())
            if k == "marquee":
                crfs.append(top_crf(work))
            if round_ == 0:
                if k == "peer":
                    for note in check_peer(peer_dir, rungs) + check_peer_twins(peer_dir, twins):
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
