#!/usr/bin/env python3
"""Transcoder benchmark: Marquee vs the equivalent ffmpeg CLI pipelines, side by side.

Builds a 1080p source of 10 s and one of 60 s (libavfilter testsrc2 + sine,
encoded with the ffmpeg CLI), then for each runs, one after the other on the
same machine:

  marquee   `marquee build` on a one-video job (HLS ladder 720p/540p/360p +
            MP4 + cover + dark cover + master playlist + banners.json);
  per-output the ffmpeg CLI pipeline a competent engineer would write: one
            command per output (the MP4, each HLS rendition, the cover), each
            decoding the source again, at identical encoder settings;
  floor     ffmpeg decoding once and encoding the same ladder (and the AAC)
            to the null muxer: the cost of the codecs alone.

Wall time, CPU time (user+sys of the child and its threads) and peak RSS
come from the kernel's rusage of each child process. Prints a table and
the ratios; `--markdown` prints the BENCHMARKS.md section.

Usage: python3 Benchmarks/transcode_bench.py [--repeat N] [--markdown]
"""
import json, os, platform, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARQUEE = os.path.join(ROOT, ".build", "release", "marquee")

# The settings Marquee uses for this source (1080p30 → default ladder capped at 720):
LADDER = [(1280, 720, 3000), (960, 540, 2000), (640, 360, 730)]
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-pix_fmt", "yuv420p",
        "-x264-params", "scenecut=0:open-gop=0", "-forced-idr", "1", "-bf", "2",
        "-force_key_frames", "expr:gte(t,n_forced*2)"]
AAC = ["-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2"]


def run(cmd, cwd=None):
    """Runs cmd; returns (wall s, cpu s, peak RSS MiB) from that child's own
    rusage (os.wait4), so each figure belongs to one process."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        p.returncode = os.waitstatus_to_exitcode(status)
        if p.returncode != 0:
            err.seek(0)
            sys.exit(f"failed: {' '.join(cmd)}\n{err.read().decode()[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0  # ru_maxrss is KiB on Linux


def video_args(w, h, kbps):
    return X264 + ["-b:v", f"{kbps}k", "-maxrate", f"{kbps * 3 // 2}k", "-bufsize", f"{kbps * 3}k",
                   "-vf", f"fps=30,scale={w}:{h}:flags=lanczos,setsar=1"]


def per_output(src, out):
    """One ffmpeg command per output, each decoding the source."""
    steps = []
    w, h, k = LADDER[0]
    steps.append(["ffmpeg", "-v", "error", "-y", "-i", src] + video_args(w, h, k) + AAC +
                 ["-movflags", "+faststart", os.path.join(out, "video.mp4")])
    for w, h, k in LADDER:
        d = os.path.join(out, f"{h}p")
        os.makedirs(d, exist_ok=True)
        steps.append(["ffmpeg", "-v", "error", "-y", "-i", src] + video_args(w, h, k) + AAC +
                      ["-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                       "-hls_flags", "independent_segments",
                       "-hls_segment_filename", os.path.join(d, "segment_%05d.m4s"), os.path.join(d, "index.m3u8")])
    steps.append(["ffmpeg", "-v", "error", "-y", "-ss", "1", "-i", src, "-frames:v", "1", "-vf", "scale=1280:720",
                  os.path.join(out, "cover.webp")])
    return steps


def floor(src):
    split = ";".join([f"[0:v]fps=30,split={len(LADDER)}" + "".join(f"[s{i}]" for i in range(len(LADDER)))] +
                     [f"[s{i}]scale={w}:{h}:flags=lanczos,setsar=1[o{i}]" for i, (w, h, k) in enumerate(LADDER)])
    cmd = ["ffmpeg", "-v", "error", "-y", "-i", src, "-filter_complex", split]
    for i, (w, h, k) in enumerate(LADDER):
        cmd += ["-map", f"[o{i}]"] + X264 + ["-b:v", f"{k}k", "-maxrate", f"{k * 3 // 2}k", "-bufsize", f"{k * 3}k",
                                              "-f", "null", "-"]
    cmd += ["-map", "0:a"] + AAC + ["-f", "null", "-"]
    return cmd


def measure(name, src, work, repeat):
    rows = {}
    for label in ["marquee", "per-output", "floor"]:
        best = None
        for _ in range(repeat):
            out = tempfile.mkdtemp(dir=work)
            if label == "marquee":
                job = os.path.join(out, "job.json")
                json.dump({"name": "bench", "banners": [{"id": "v", "type": "video", "source": src}]}, open(job, "w"))
                r = run([MARQUEE, "build", job, "--out", os.path.join(out, "out"), "--quiet"])
            elif label == "per-output":
                tot = [0.0, 0.0, 0.0]
                for cmd in per_output(src, out):
                    w, c, m = run(cmd)
                    tot = [tot[0] + w, tot[1] + c, max(tot[2], m)]
                r = tuple(tot)
            else:
                r = run(floor(src))
            shutil.rmtree(out, ignore_errors=True)
            best = r if best is None or r[0] < best[0] else best
        rows[label] = best
    return rows


def main():
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1
    if not os.path.exists(MARQUEE):
        subprocess.run(["swift", "build", "-c", "release"], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix="marquee-bench-")
    results = {}
    try:
        for seconds in (10, 60):
            src = os.path.join(work, f"src-{seconds}s.mp4")
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                            f"testsrc2=size=1920x1080:rate=30:duration={seconds}", "-f", "lavfi", "-i",
                            f"sine=frequency=440:sample_rate=48000:duration={seconds}", "-c:v", "libx264",
                            "-preset", "veryfast", "-b:v", "8M", "-pix_fmt", "yuv420p", "-c:a", "aac", src], check=True)
            results[seconds] = measure(f"{seconds}s", src, work, repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    cpu_name = "unknown"
    try:
        cpu_name = next(l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name"))
    except Exception:
        pass
    lines = [f"Machine: {os.cpu_count()} cores, {cpu_name}, {platform.platform()}",
             f"Command: python3 Benchmarks/transcode_bench.py --repeat {repeat}", "",
             "| source | pipeline | wall s | CPU s | peak RSS MiB |", "|---|---|---|---|---|"]
    for s, rows in results.items():
        for label, (w, c, m) in rows.items():
            lines.append(f"| 1080p {s}s | {label} | {w:.1f} | {c:.1f} | {m:.0f} |")
    lines.append("")
    for s, rows in results.items():
        mq, po, fl = rows["marquee"], rows["per-output"], rows["floor"]
        lines.append(f"- 1080p {s}s: Marquee CPU / floor CPU = {mq[1] / fl[1]:.2f}; per-output wall / Marquee wall = "
                     f"{po[0] / mq[0]:.2f}; Marquee peak RSS / floor peak RSS = {mq[2] / fl[2]:.2f}")
    lines.append(f"- Marquee peak RSS 60 s / 10 s = {results[60]['marquee'][2] / results[10]['marquee'][2]:.2f}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
