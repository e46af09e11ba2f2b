#!/usr/bin/env python3
"""Image throughput and cover-extraction memory: Marquee against libvips, ImageMagick and ffmpeg.

A benchmark, not a test (issue #4). Python 3 standard library only; it installs nothing.

Images
  One Marquee job of N image banners (default settings: widths 780 and 1170, WebP q80,
  JPEG q85) built with `marquee build job.json --out <fresh dir> --jobs 2 --quiet`
  (decode, EXIF orientation, colour to sRGB, resize, WebP + JPEG + dark WebP + dark JPEG).
  The peers produce the same normal files (the width of every rung Marquee wrote, WebP q80
  and JPEG q85 4:2:0 with optimised Huffman tables like Marquee's, sRGB, auto-rotated,
  metadata stripped), two processes at a time (like `xargs -P2`), each single-threaded
  (VIPS_CONCURRENCY / MAGICK_THREAD_LIMIT = 1; --peer-threads 0 keeps the tools' defaults):
    vips           vips thumbnail IN 'OUT.webp[Q=80,strip]' W --height 100000 --export-profile srgb
                   (one process per output file)
    vipsthumbnail  vipsthumbnail -s Wx --export-profile srgb -o 'DIR/%s-wW.webp[Q=80,strip]' IN...
                   (many inputs per process: libvips's start-up, ~60 ms of dynamic loading
                   on Debian, is paid once per width, format and half of the inputs)
    imagemagick    convert IN -auto-orient -profile <sRGB.icc> -strip -resize Wx -quality 80 OUT.webp
                   (one process per output file; JPEGs add -sampling-factor 4:2:0)
  (and the same with .jpg, quality 85 and optimize_coding for vips). The peers write no dark
  variants: Marquee's figures are also given per file written and per rung. Every peer file's
  size is checked against Marquee's (width equal, height within 1).

Covers
  Peak RSS of `marquee build` on a one-video job (the cover is chosen during the one
  decode of the transcode, so the figure is the whole transcode's) against
  `ffmpeg -i src.mp4 -vf thumbnail=N -frames:v 1 out.png` for N = 100 and 300, on a
  generated 1080p30 60 s H.264 clip.

Measurements: wall time (time.perf_counter around the whole batch), CPU time (user + system
of every child from os.wait4's rusage) and peak RSS of each process (ru_maxrss). Runs are
interleaved (Marquee, vips, vipsthumbnail, ImageMagick, Marquee, ...) and the median is
reported with every run's figure and the 1-minute load average before each run (the machine
may be shared: compare CPU times when the load is above the core count).

Usage:  python3 Benchmarks/images_bench.py [--runs 3] [--batch 32] [--cover-runs 1] [--markdown FILE]
        python3 Benchmarks/images_bench.py --images-only --tools vipsthumbnail   (one peer)
Needs:  apt-get install libvips-tools imagemagick ffmpeg   (Debian 12)
"""

import argparse
import json
import os
import platform
import shutil
import statistics
import struct
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The photos, in the order they are repeated to fill the batch. Widths below are upright.
PHOTOS = [
    "image-jpeg-progressive-photo-pixel7pro-srgb.jpg",  # 1020x768, sRGB ICC, progressive
    "image-jpeg-adobergb1998-photo-2000x1072.jpg",  # Adobe RGB ICC: a real colour conversion
    "image-jpeg-exif-orientation-6.jpg",  # stored 1200x1800, rotate 90
    "image-jpeg-exif-orientation-1.jpg",  # 1800x1200
    "image-jpeg-exif-orientation-3.jpg",  # 1800x1200, rotate 180
    "image-jpeg-ultrahdr-gainmap-3072x4080.jpg",  # 12.5 MP phone photo (primary image)
    "image-heic-iphone11promax-displayp3-grid-2566x3313.heic",  # HEIC grid, Display P3
    "image-jpeg-product-white-mug-on-white-1000.jpg",  # product on white
]

WEBP_Q, JPEG_Q = 80, 85


def fail(message):
    sys.exit(f"images_bench: {message}")


# ----------------------------------------------------------------------------- tools


def output_of(argv):
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (r.stdout + r.stderr) if r.returncode == 0 else None


def find_imagemagick():
    """ImageMagick's `convert`: Debian's /usr/bin/convert first, then PATH's `convert` and `magick`.

    Only a program whose `-version` starts with "Version: ImageMagick" counts, so a wrapper or
    stand-in that cannot convert (or GraphicsMagick) is skipped.
    """
    candidates = ["/usr/bin/convert"] + [p for p in (shutil.which("convert"), shutil.which("magick")) if p]
    for path in candidates:
        if not os.access(path, os.X_OK):
            continue
        text = output_of([path, "-version"]) or ""
        if text.startswith("Version: ImageMagick"):
            return path, text.splitlines()[0].replace("Version: ", "").split(" https://")[0]
    return None, None


def find_srgb_profile():
    names = ("srgb.icc", "srgb.icm", "srgb-iec61966-2.1.icc", "srgb_iec61966-2-1_black_scaled.icc")
    for base in ("/usr/share/color/icc", "/usr/local/share/color/icc"):
        for dirpath, _, files in sorted(os.walk(base)):
            for f in sorted(files):
                if f.lower() in names:
                    return os.path.join(dirpath, f)
    return None


def check_tools(need_images, need_covers):
    tools, missing = {}, []
    if need_images:
        vips = shutil.which("vips")
        text = output_of([vips, "--version"]) if vips else None
        if not text:
            missing.append("vips (libvips command line): apt-get install libvips-tools")
        else:
            tools["vips"] = vips
            tools["vips_version"] = text.strip()
            tools["vipsthumbnail"] = shutil.which("vipsthumbnail")
            if not tools["vipsthumbnail"]:
                missing.append("vipsthumbnail: apt-get install libvips-tools")
        convert, version = find_imagemagick()
        if not convert:
            missing.append("ImageMagick's convert (`convert -version` must say ImageMagick): apt-get install imagemagick")
        else:
            tools["convert"], tools["convert_version"] = convert, version
        tools["srgb_icc"] = find_srgb_profile()
    if need_covers:
        ffmpeg = shutil.which("ffmpeg")
        text = output_of([ffmpeg, "-version"]) if ffmpeg else None
        if not text:
            missing.append("ffmpeg: apt-get install ffmpeg")
        else:
            tools["ffmpeg"], tools["ffmpeg_version"] = ffmpeg, text.splitlines()[0].split(" Copyright")[0]
    if missing:
        fail("missing tools; install them first (Debian 12, as root):\n  " + "\n  ".join(missing))
    return tools


def build_marquee(repo, skip):
    binary = os.path.join(repo, ".build", "release", "marquee")
    if not skip:
        print(f"+ swift build -c release   (in {repo})", flush=True)
        r = subprocess.run(["swift", "build", "-c", "release"], cwd=repo, stdin=subprocess.DEVNULL)
        if r.returncode != 0:
            fail("swift build -c release failed")
    if not os.access(binary, os.X_OK):
        fail(f"{binary} is missing (run `swift build -c release` in {repo})")
    return binary


# ----------------------------------------------------------------------------- running


class Batch:
    """What one batch of processes cost."""

    def __init__(self, wall, procs, failures, load_before, load_after):
        self.wall = wall
        self.procs = procs  # list of (cpu seconds, peak RSS KiB)
        self.failures = failures
        self.load = (load_before, load_after)

    @property
    def cpu(self):
        return sum(c for c, _ in self.procs)

    @property
    def peak_rss_kib(self):
        return max((r for _, r in self.procs), default=0)

    @property
    def median_rss_kib(self):
        return statistics.median(r for _, r in self.procs) if self.procs else 0


def spawn(argv, env, log):
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    return os.posix_spawnp(argv[0], argv, env, file_actions=actions)


def run_batch(commands, parallel, env, log):
    """Runs `commands` (argv lists), `parallel` at a time, reaping each with os.wait4."""
    pending = list(commands)
    running = {}
    procs, failures = [], []
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    while pending or running:
        while pending and len(running) < parallel:
            argv = pending.pop(0)
            running[spawn(argv, env, log)] = argv
        pid, status, usage = os.wait4(-1, 0)
        argv = running.pop(pid, None)
        if argv is None:
            continue
        procs.append((usage.ru_utime + usage.ru_stime, usage.ru_maxrss))
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            failures.append((code, argv))
    wall = time.perf_counter() - start
    return Batch(wall, procs, failures, load_before, os.getloadavg()[0])


# ----------------------------------------------------------------------------- image sizes


def image_size(path):
    """(width, height) of a JPEG or WebP file, read from its header; None if unknown."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
                i += 1 if marker == 0xFF else 2
                continue
            length = struct.unpack(">H", data[i + 2 : i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", data[i + 5 : i + 9])
                return w, h
            i += 2 + length
        return None
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        chunk = data[12:16]
        if chunk == b"VP8 ":
            w, h = struct.unpack("<HH", data[26:30])
            return w & 0x3FFF, h & 0x3FFF
        if chunk == b"VP8L":
            b = int.from_bytes(data[21:25], "little")
            return (b & 0x3FFF) + 1, ((b >> 14) & 0x3FFF) + 1
        if chunk == b"VP8X":
            return int.from_bytes(data[24:27], "little") + 1, int.from_bytes(data[27:30], "little") + 1
    return None


# ----------------------------------------------------------------------------- images


def prepare_inputs(corpus, work, batch, photos):
    folder = os.path.join(work, "inputs")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    inputs = []
    for i in range(batch):
        name = photos[i % len(photos)]
        dest = os.path.join(folder, f"{i:03d}-{name}")
        shutil.copyfile(os.path.join(corpus, name), dest)
        inputs.append(dest)
    return inputs


def write_job(work, inputs, name):
    banners = [{"id": f"img{i:03d}", "type": "image", "source": os.path.relpath(p, work)} for i, p in enumerate(inputs)]
    path = os.path.join(work, f"{name}.json")
    with open(path, "w") as f:
        json.dump({"name": name, "banners": banners}, f, indent=1)
    return path


def vips_command(tools, src, dst, width, quality):
    # Marquee's JPEGs are 4:2:0 with optimised Huffman tables: vips's default is 4:2:0 below
    # Q90 but unoptimised tables, so optimize_coding is asked for.
    options = f"Q={quality},strip" + (",optimize_coding" if dst.endswith(".jpg") else "")
    return [tools["vips"], "thumbnail", src, f"{dst}[{options}]", str(width),
            "--height", "100000", "--export-profile", "srgb"]


def magick_command(tools, src, dst, width, quality):
    argv = [tools["convert"], src, "-auto-orient"]
    if tools.get("srgb_icc"):
        argv += ["-profile", tools["srgb_icc"]]
    argv += ["-strip", "-resize", f"{width}x", "-quality", str(quality)]
    if dst.endswith(".jpg"):  # ImageMagick 6 keeps a 4:4:4 source's sampling; Marquee writes 4:2:0
        argv += ["-sampling-factor", "4:2:0"]
    return argv + [dst]


PEERS = {"vips": vips_command, "imagemagick": magick_command}  # one process per output file
TOOLS = ("marquee", "vips", "vipsthumbnail", "imagemagick")
LABELS = {"marquee": "Marquee", "vips": "libvips `vips thumbnail` (1 file/process)",
          "vipsthumbnail": "libvips `vipsthumbnail` (batched)", "imagemagick": "ImageMagick `convert`"}


def stem_of(src):
    return os.path.splitext(os.path.basename(src))[0]


def peer_commands(peer, tools, rungs, out, jobs):
    """The argv lists of one peer for `rungs`, and the (file, width, height) they must write."""
    os.makedirs(out, exist_ok=True)
    commands, expected = [], []
    formats = (("webp", WEBP_Q), ("jpg", JPEG_Q))
    if peer in PEERS:
        for src, width, height in rungs:
            for ext, q in formats:
                dst = os.path.join(out, f"{stem_of(src)}-w{width}.{ext}")
                commands.append(PEERS[peer](tools, src, dst, width, q))
                expected.append((dst, width, height))
        return commands, expected
    # vipsthumbnail takes many files per process (libvips starts once, ~60 ms of dynamic
    # loading on Debian): one process per width, format and contiguous slice of the inputs.
    for width in sorted({w for _, w, _ in rungs}):
        group = [(src, h) for src, w, h in rungs if w == width]
        for ext, q in formats:
            options = f"Q={q},strip" + (",optimize_coding" if ext == "jpg" else "")
            pattern = os.path.join(out, f"%s-w{width}.{ext}[{options}]")
            for k in range(jobs):
                part = group[k * len(group) // jobs:(k + 1) * len(group) // jobs]
                if not part:
                    continue
                commands.append([tools["vipsthumbnail"], "-s", f"{width}x", "--export-profile", "srgb",
                                 "-o", pattern] + [src for src, _ in part])
                expected += [(os.path.join(out, f"{stem_of(src)}-w{width}.{ext}"), width, h) for src, h in part]
    return commands, expected


def marquee_rungs(bundle, inputs):
    """(input, width, height) for every rung Marquee wrote, from banners.json."""
    with open(os.path.join(bundle, "banners.json")) as f:
        manifest = json.load(f)
    by_id = {f"img{i:03d}": p for i, p in enumerate(inputs)}
    rungs = []
    for item in manifest["banners"]:
        for s in item["sources"]:
            rungs.append((by_id[item["id"]], s["width"], s["height"]))
    return rungs


def file_bytes(paths):
    total = {"webp": 0, "jpg": 0}
    for p in paths:
        total[p.rsplit(".", 1)[1]] += os.path.getsize(p)
    return total


def marquee_files(bundle):
    normal, dark = [], []
    for dirpath, _, files in os.walk(os.path.join(bundle, "images")):
        for f in files:
            (dark if ".dark." in f else normal).append(os.path.join(dirpath, f))
    return normal, dark


def check_peer_outputs(expected):
    """Count outputs missing or of another size than Marquee's (height may differ by rounding)."""
    bad = []
    for path, w, h in expected:
        size = image_size(path) if os.path.exists(path) else None
        if size is None or size[0] != w or abs(size[1] - h) > 1:
            bad.append((os.path.basename(path), size, (w, h)))
    return bad


def probe_photos(tools, corpus, photos, work, env):
    """Drops photos a peer cannot read (checked with one small output each)."""
    folder = os.path.join(work, "probe")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    kept, dropped = [], []
    for name in photos:
        src = os.path.join(corpus, name)
        if not os.path.exists(src):
            dropped.append((name, "not in the corpus"))
            continue
        why = None
        for peer in PEERS:
            dst = os.path.join(folder, f"{peer}-{name}.webp")
            argv = PEERS[peer](tools, src, dst, 64, WEBP_Q)
            r = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
            if r.returncode != 0 or not os.path.exists(dst):
                why = f"{peer} cannot read it: {(r.stderr or '').strip()[:200]}"
                break
        (dropped.append((name, why)) if why else kept.append(name))
    return kept, dropped


def bench_images(args, tools, marquee, work):
    env = dict(os.environ)
    if args.peer_threads > 0:
        n = str(args.peer_threads)
        env.update(VIPS_CONCURRENCY=n, MAGICK_THREAD_LIMIT=n, OMP_NUM_THREADS=n)
    photos, dropped = probe_photos(tools, args.corpus, PHOTOS, work, env)
    for name, why in dropped:
        print(f"  skipped {name}: {why}")
    if not photos:
        fail("no usable photo in the corpus")
    inputs = prepare_inputs(args.corpus, work, args.batch, photos)
    job = write_job(work, inputs, "imgbench")
    log = os.path.join(work, "images.log")
    open(log, "w").close()

    def run_marquee(tag):
        out = os.path.join(work, "out", f"marquee-{tag}")
        shutil.rmtree(out, ignore_errors=True)
        argv = [marquee, "build", job, "--out", out, "--jobs", str(args.jobs), "--quiet"]
        b = run_batch([argv], 1, dict(os.environ), log)
        if b.failures:
            fail(f"marquee build failed (exit {b.failures[0][0]}); see {log}")
        return b, os.path.join(out, "imgbench")

    # Warm-up (page cache, dynamic loader): one unmeasured run of each tool.
    print("  warm-up", flush=True)
    _, bundle = run_marquee("warmup")
    rungs = marquee_rungs(bundle, inputs)
    normal, dark = marquee_files(bundle)
    for peer in args.tools[1:]:
        cmds, _ = peer_commands(peer, tools, rungs[: 2 * len(photos)], os.path.join(work, "out", f"{peer}-warmup"),
                                args.jobs)
        run_batch(cmds, args.jobs, env, log)

    results = {t: [] for t in args.tools}
    sizes, mismatches = {}, {}
    for run in range(args.runs):
        for tool in args.tools:
            if tool == "marquee":
                b, bundle = run_marquee(f"run{run}")
                normal, dark = marquee_files(bundle)
                sizes["marquee"] = file_bytes(normal)
                sizes["marquee_dark"] = file_bytes(dark)
                outputs = len(normal) + len(dark)
            else:
                out = os.path.join(work, "out", f"{tool}-run{run}")
                shutil.rmtree(out, ignore_errors=True)
                cmds, expected = peer_commands(tool, tools, rungs, out, args.jobs)
                b = run_batch(cmds, args.jobs, env, log)
                if b.failures:
                    fail(f"{tool}: {len(b.failures)} command(s) failed, first: {' '.join(b.failures[0][1])}; see {log}")
                mismatches[tool] = check_peer_outputs(expected)
                sizes[tool] = file_bytes(p for p, _, _ in expected)
                outputs = len(expected)
            results[tool].append(b)
            print(f"  run {run + 1} {tool:12s} wall {b.wall:7.2f} s  cpu {b.cpu:7.2f} s  "
                  f"peak RSS {b.peak_rss_kib / 1024:6.0f} MiB  outputs {outputs:3d}  processes {len(b.procs):3d}  "
                  f"load {b.load[0]:.2f}->{b.load[1]:.2f}", flush=True)
    for tool, bad in mismatches.items():
        for name, got, want in bad[:5]:
            print(f"  warning: {tool} {name}: size {got}, Marquee's {want}")
    return {
        "photos": photos, "dropped": dropped, "batch": len(inputs), "rungs": len(rungs),
        "marquee_outputs": len(normal) + len(dark), "peer_outputs": 2 * len(rungs),
        "results": results, "sizes": sizes, "mismatches": {k: len(v) for k, v in mismatches.items()},
        "env": {k: env[k] for k in ("VIPS_CONCURRENCY", "MAGICK_THREAD_LIMIT", "OMP_NUM_THREADS") if k in env},
    }


# ----------------------------------------------------------------------------- covers


def bench_covers(args, tools, marquee, work):
    folder = os.path.join(work, "covers")
    os.makedirs(folder, exist_ok=True)
    src = os.path.join(folder, f"src-1080p30-{args.video_seconds}s.mp4")
    log = os.path.join(work, "covers.log")
    open(log, "w").close()
    if not os.path.exists(src):
        print(f"  generating {src}", flush=True)
        argv = [tools["ffmpeg"], "-nostdin", "-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i",
                f"testsrc2=size=1920x1080:rate=30:duration={args.video_seconds}",
                "-c:v", "libx264", "-preset", "veryfast", src + ".part.mp4"]
        if subprocess.run(argv, stdin=subprocess.DEVNULL).returncode != 0:
            fail("ffmpeg could not generate the test clip")
        os.replace(src + ".part.mp4", src)
    job = os.path.join(folder, "cover.json")
    with open(job, "w") as f:
        json.dump({"name": "coverbench", "banners": [
            {"id": "clip", "type": "video", "source": os.path.basename(src), "cover": "auto"}]}, f, indent=1)

    def ffmpeg(vf):
        return [tools["ffmpeg"], "-nostdin", "-hide_banner", "-v", "error", "-y", "-i", src,
                "-vf", vf, "-frames:v", "1", os.path.join(folder, "thumb.png")]

    cases = [
        ("marquee", "marquee build (one video: transcode + cover)", None),
        ("thumbnail100", "ffmpeg -vf thumbnail=100 -frames:v 1", ffmpeg("thumbnail=100")),
        ("thumbnail300", "ffmpeg -vf thumbnail=300 -frames:v 1", ffmpeg("thumbnail=300")),
    ]
    results = {key: [] for key, _, _ in cases}
    for run in range(args.cover_runs):
        for key, label, argv in cases:
            if key == "marquee":
                out = os.path.join(folder, f"out-{run}")
                shutil.rmtree(out, ignore_errors=True)
                argv = [marquee, "build", job, "--out", out, "--jobs", str(args.jobs), "--quiet"]
            b = run_batch([argv], 1, dict(os.environ), log)
            if b.failures:
                fail(f"{label} failed (exit {b.failures[0][0]}); see {log}")
            results[key].append(b)
            print(f"  run {run + 1} {key:12s} wall {b.wall:7.2f} s  cpu {b.cpu:7.2f} s  "
                  f"peak RSS {b.peak_rss_kib / 1024:6.0f} MiB  load {b.load[0]:.2f}->{b.load[1]:.2f}", flush=True)
    return {"source": src, "cases": cases, "results": results}


# ----------------------------------------------------------------------------- report


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    osname = platform.platform()
    try:
        with open("/etc/os-release") as f:
            rel = dict(l.rstrip().split("=", 1) for l in f if "=" in l)
            osname = rel.get("PRETTY_NAME", osname).strip('"') + f", kernel {platform.release()}"
    except OSError:
        pass
    swift = (output_of(["swift", "--version"]) or "swift ?").strip().splitlines()[0]
    return f"{model}, {os.cpu_count()} cores, {mem / 1024:.0f} GiB RAM; {osname}; {swift}"


def med(values):
    return statistics.median(values) if values else float("nan")


def fmt_s(x):
    return f"{x:.2f}"


def report(args, tools, images, covers, command):
    lines = ["## Images and covers", ""]
    lines.append(f"Machine: {machine()}.")
    versions = [tools.get(k) for k in ("vips_version", "convert_version", "ffmpeg_version") if tools.get(k)]
    if tools.get("convert"):
        versions[-2 if tools.get("ffmpeg_version") else -1] += f" (`{tools['convert']}`" + (
            f", sRGB profile `{tools['srgb_icc']}`)" if tools.get("srgb_icc") else ", no sRGB profile found)")
    if versions:
        lines.append("Peers: " + "; ".join(versions) + ".")
    lines += ["", "Command:", "", "```", command, "```", ""]
    if images:
        r = images["results"]
        lines.append(
            f"Images: {images['batch']} inputs ({len(images['photos'])} corpus photos repeated: "
            + ", ".join(f"`{p}`" for p in images["photos"])
            + f"), {images['rungs']} rungs (widths 780 and 1170 where the upright photo is wider). "
            f"Marquee writes {images['marquee_outputs']} files (WebP + JPEG + dark WebP + dark JPEG per rung) "
            f"with `--jobs {args.jobs}`; each peer writes the {images['peer_outputs']} normal files (same widths, "
            f"WebP q{WEBP_Q}, JPEG q{JPEG_Q} 4:2:0, sRGB, auto-rotated, stripped), {args.jobs} processes at a time"
            + (f" ({', '.join(f'{k}={v}' for k, v in images['env'].items())})" if images["env"] else "")
            + ": `vips thumbnail` and `convert` one process per file, `vipsthumbnail` many files per process "
            f"(one per width, format and half of the inputs). Median of {args.runs} interleaved runs; CPU is "
            "user + system of all processes (os.wait4).")
        lines.append("")
        for name, why in images["dropped"]:
            lines.append(f"Skipped `{name}`: {why}.")
        order = [t for t in TOOLS if r.get(t)]
        lines += ["| | " + " | ".join(LABELS[t] for t in order) + " |", "|---|" + "---:|" * len(order)]
        wall = {t: med([b.wall for b in r[t]]) for t in order}
        cpu = {t: med([b.cpu for b in r[t]]) for t in order}
        outs = {t: images["marquee_outputs"] if t == "marquee" else images["peer_outputs"] for t in order}

        def row(label, cell):
            lines.append(f"| {label} | " + " | ".join(cell(t) for t in order) + " |")

        row("wall, s (median)", lambda t: fmt_s(wall[t]))
        row("wall, s (each run)", lambda t: ", ".join(fmt_s(b.wall) for b in r[t]))
        row("CPU, s (median)", lambda t: fmt_s(cpu[t]))
        row("CPU, s (each run)", lambda t: ", ".join(fmt_s(b.cpu) for b in r[t]))
        row("CPU / wall (cores busy)", lambda t: f"{cpu[t] / wall[t]:.2f}")
        row("files written", lambda t: str(outs[t]))
        row("CPU per file, ms", lambda t: f"{1000 * cpu[t] / outs[t]:.0f}")
        row("CPU per rung, ms", lambda t: f"{1000 * cpu[t] / images['rungs']:.0f}")
        row("processes", lambda t: str(len(r[t][0].procs)))
        row("peak RSS per process, MiB (max / median)", lambda t: (
            f"{med([b.peak_rss_kib for b in r[t]]) / 1024:.0f} / {med([b.median_rss_kib for b in r[t]]) / 1024:.0f}"))
        sz = images["sizes"]
        row("normal WebP / JPEG, KiB", lambda t: f"{sz[t]['webp'] / 1024:.0f} / {sz[t]['jpg'] / 1024:.0f}")
        row("load average (1 min) before each run", lambda t: ", ".join(f"{b.load[0]:.2f}" for b in r[t]))
        lines.append("")
        lines.append(f"Marquee's dark files: {sz['marquee_dark']['webp'] / 1024:.0f} KiB WebP, "
                     f"{sz['marquee_dark']['jpg'] / 1024:.0f} KiB JPEG. Peer files whose size (width, height ±1) "
                     "differs from Marquee's: " + ", ".join(
                         f"{t} {images['mismatches'].get(t, 0)}" for t in order if t != "marquee") + ".")
        lines.append("")
        lines += ["| Marquee / peer (below 1: Marquee faster or cheaper) | wall | CPU | CPU per file written |",
                  "|---|---:|---:|---:|"]
        for t in order[1:]:
            lines.append(f"| Marquee / {LABELS[t]} | {wall['marquee'] / wall[t]:.2f} | {cpu['marquee'] / cpu[t]:.2f} | "
                         f"{(cpu['marquee'] / outs['marquee']) / (cpu[t] / outs[t]):.2f} |")
        lines.append("")
    if covers:
        r = covers["results"]
        lines.append(f"Covers: `{os.path.basename(covers['source'])}` (1920x1080, 30 fps, {args.video_seconds} s, "
                     "x264 veryfast, from `testsrc2`). Marquee's figure is the whole one-video build: the cover is "
                     "picked during the transcode's one decode (three renditions encoded, HLS + MP4 written), there "
                     f"is no cover-only mode. Median of {args.cover_runs} run(s).")
        lines += ["", "| | peak RSS, MiB | wall, s | CPU, s |", "|---|---:|---:|---:|"]
        for key, label, _ in covers["cases"]:
            rs = r[key]
            lines.append(f"| {label} | {med([b.peak_rss_kib for b in rs]) / 1024:.0f} | "
                         f"{med([b.wall for b in rs]):.2f} | {med([b.cpu for b in rs]):.2f} |")
        m = med([b.peak_rss_kib for b in r["marquee"]])
        lines.append("")
        lines.append("Peak RSS ratios: " + ", ".join(
            f"Marquee / {label.split(' -frames')[0]} = {m / med([b.peak_rss_kib for b in r[key]]):.2f}"
            for key, label, _ in covers["cases"] if key != "marquee") + ".")
        lines.append("")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repo", default=REPO, help="Marquee checkout (default: this script's repository)")
    p.add_argument("--corpus", default=None, help="corpus folder (default: <repo>/../shared/corpus)")
    p.add_argument("--work", default="/tmp/marquee-images-bench", help="scratch folder (inputs, outputs, clip)")
    p.add_argument("--batch", type=int, default=32, help="image inputs per batch (photos repeated)")
    p.add_argument("--runs", type=int, default=3, help="interleaved image runs per tool")
    p.add_argument("--cover-runs", type=int, default=1, help="runs per cover case")
    p.add_argument("--jobs", type=int, default=2, help="Marquee --jobs and peer processes at a time")
    p.add_argument("--peer-threads", type=int, default=1,
                   help="VIPS_CONCURRENCY / MAGICK_THREAD_LIMIT per peer process (0: the tools' defaults)")
    p.add_argument("--tools", default=",".join(TOOLS),
                   help="image tools to run, comma-separated (default: %(default)s; marquee is always run)")
    p.add_argument("--video-seconds", type=int, default=60)
    p.add_argument("--skip-build", action="store_true", help="use the existing .build/release/marquee")
    p.add_argument("--images-only", action="store_true")
    p.add_argument("--covers-only", action="store_true")
    p.add_argument("--markdown", help="also write the BENCHMARKS.md section here")
    p.add_argument("--json", help="also write the raw figures here")
    args = p.parse_args()
    args.repo = os.path.abspath(args.repo)
    unknown = set(args.tools.split(",")) - set(TOOLS)
    if unknown:
        fail(f"unknown --tools {', '.join(sorted(unknown))} (known: {', '.join(TOOLS)})")
    args.tools = [t for t in TOOLS if t == "marquee" or t in args.tools.split(",")]
    args.corpus = os.path.abspath(args.corpus or os.path.join(args.repo, "..", "shared", "corpus"))
    do_images, do_covers = not args.covers_only, not args.images_only
    if do_images and not os.path.isdir(args.corpus):
        fail(f"corpus folder {args.corpus} not found (--corpus)")

    tools = check_tools(do_images, do_covers)
    marquee = build_marquee(args.repo, args.skip_build)
    os.makedirs(args.work, exist_ok=True)
    command = "python3 Benchmarks/images_bench.py " + " ".join(sys.argv[1:])
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)

    images = covers = None
    if do_images:
        print("images:", flush=True)
        images = bench_images(args, tools, marquee, args.work)
    if do_covers:
        print("covers:", flush=True)
        covers = bench_covers(args, tools, marquee, args.work)
    text = report(args, tools, images, covers, command.strip())
    print()
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    if args.json:
        def dump(results):
            return {t: [{"wall": b.wall, "cpu": b.cpu, "peak_rss_kib": b.peak_rss_kib, "load": b.load,
                         "procs": len(b.procs)} for b in bs] for t, bs in results.items()}
        with open(args.json, "w") as f:
            json.dump({"images": images and {**{k: v for k, v in images.items() if k != "results"},
                                             "results": dump(images["results"])},
                       "covers": covers and {"source": covers["source"], "results": dump(covers["results"])}},
                      f, indent=1, default=str)


if __name__ == "__main__":
    main()
