#!/usr/bin/env python3
"""One video item, side by side with the ffmpeg floor: does a single item use the cores?

Makes a 12 s 1920x1080 30 fps source (libavfilter testsrc2 + a 440 Hz sine,
H.264 8 Mbit/s + AAC, with the ffmpeg CLI), then runs, alternately, N times:

  marquee   `marquee build` of a one-video job with max_height 1080 at the
            default --jobs (the ladder 1080p/720p/540p/360p, HLS + MP4 + cover);
  floor     one ffmpeg command that decodes once and encodes the same ladder
            at the same x264/AAC settings to the null muxer, with FFmpeg's
            default threads (x264 frame threads): the codecs alone.

Wall time and CPU time (user + sys of the child and its threads, from the
kernel's rusage) per run; cores busy = CPU / wall. Each marquee run is paired
with the floor run right after it, so both see the same load from other
processes; the ratio is marquee wall / floor wall of a pair.

With `--baseline BINARY`, each round also runs that binary (say, a build of
main) right before the marquee run, so two builds compare under the same load.

Usage: python3 Benchmarks/single_item_bench.py [--runs N] [--marquee BINARY] [--baseline BINARY] [--jobs N]
       (default binary: .build/release/marquee, built when missing)
"""
import json, os, shutil, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# What Marquee plans for a 1080p30 source with max_height 1080 (default ladder).
LADDER = [(1920, 1080, 6000), (1280, 720, 3000), (960, 540, 2000), (640, 360, 730)]
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-pix_fmt", "yuv420p",
        "-x264-params", "scenecut=0:open-gop=0", "-forced-idr", "1", "-bf", "2",
        "-force_key_frames", "expr:gte(t,n_forced*2)"]
AAC = ["-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2"]


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def run(cmd):
    """(wall s, CPU s) of one child, from its own rusage."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            sys.exit(f"failed: {' '.join(cmd)}\n{err.read().decode()[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime


def floor_cmd(src):
    graph = ";".join([f"[0:v]fps=30,split={len(LADDER)}" + "".join(f"[s{i}]" for i in range(len(LADDER)))] +
                     [f"[s{i}]scale={w}:{h}:flags=lanczos,setsar=1[o{i}]" for i, (w, h, k) in enumerate(LADDER)])
    cmd = ["ffmpeg", "-v", "error", "-y", "-i", src, "-filter_complex", graph]
    for i, (w, h, k) in enumerate(LADDER):
        cmd += ["-map", f"[o{i}]"] + X264 + ["-b:v", f"{k}k", "-maxrate", f"{k * 3 // 2}k",
                                              "-bufsize", f"{k * 3}k", "-f", "null", "-"]
    return cmd + ["-map", "0:a"] + AAC + ["-f", "null", "-"]


def main():
    runs = int(arg("--runs", "3"))
    marquee = arg("--marquee", os.path.join(ROOT, ".build", "release", "marquee"))
    jobs = arg("--jobs", None)
    baseline = arg("--baseline", None)
    if not os.path.exists(marquee):
        subprocess.run(["swift", "build", "-c", "release"], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix="marquee-item-bench-")
    try:
        src = os.path.join(work, "src-1080p30-12s.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30:duration=12",
                        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=12", "-c:v", "libx264",
                        "-preset", "veryfast", "-b:v", "8M", "-pix_fmt", "yuv420p", "-c:a", "aac", src], check=True)
        job = os.path.join(work, "job.json")
        with open(job, "w") as f:
            json.dump({"name": "bench", "settings": {"max_height": 1080},
                       "banners": [{"id": "v", "type": "video", "source": src}]}, f)
        rows = []
        for i in range(runs):
            out = os.path.join(work, f"out{i}")
            load = os.getloadavg()[0]
            extra = ["--jobs", jobs] if jobs else []
            b = None
            if baseline:
                b = run([baseline, "build", job, "--out", out + "-base", "--quiet"] + extra)
                shutil.rmtree(out + "-base", ignore_errors=True)
            m = run([marquee, "build", job, "--out", out, "--quiet"] + extra)
            fl = run(floor_cmd(src))
            shutil.rmtree(out, ignore_errors=True)
            rows.append((load, m, fl, b))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"binary: {marquee}; --jobs {jobs or 'default'}; {os.cpu_count()} cores")
    print("| run | load (1 min) before | marquee wall s | marquee CPU s | marquee cores | floor wall s | floor CPU s | floor cores | wall ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i, (load, (mw, mc), (fw, fc), _) in enumerate(rows):
        print(f"| {i + 1} | {load:.1f} | {mw:.2f} | {mc:.2f} | {mc / mw:.2f} | {fw:.2f} | {fc:.2f} | {fc / fw:.2f} | {mw / fw:.2f} |")
    ratios = sorted(mw / fw for _, (mw, _), (fw, _), _ in rows)
    print(f"median wall ratio marquee / floor: {ratios[len(ratios) // 2]:.2f} (target <= 1.15)")
    if baseline:
        print(f"baseline: {baseline}")
        print("| run | baseline wall s | baseline CPU s | baseline cores | baseline wall / floor wall |")
        print("|---|---|---|---|---|")
        for i, (_, _, (fw, _), (bw, bc)) in enumerate(rows):
            print(f"| {i + 1} | {bw:.2f} | {bc:.2f} | {bc / bw:.2f} | {bw / fw:.2f} |")


if __name__ == "__main__":
    main()
