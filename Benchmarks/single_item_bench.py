#!/usr/bin/env python3
"""One video item, side by side with the ffmpeg floor: does a single item use the cores?

Makes a 12 s 1920x1080 source at --fps (default 60; libavfilter testsrc2 + a
440 Hz sine, H.264 8 Mbit/s + AAC, with the ffmpeg CLI), then runs,
alternately, N times:

  marquee   `marquee build` of a one-video job at the default --jobs and
            --max-height (default: the job default, 720: the ladder
            720p/540p/360p; 1080 adds 1080p), HLS + MP4 + cover;
  floor     one ffmpeg command that decodes once and encodes the same ladder
            at the same x264/AAC settings to the null muxer, with FFmpeg's
            default threads (x264 frame threads): the codecs alone.

Wall time and CPU time (user + sys of the child and its threads, from the
kernel's rusage) per run; cores busy = CPU / wall. On a machine shared with
other work those two mostly measure the other work, so the script also samples
every thread of the child every 5 ms (/proc/PID/task/*/stat) and reports the
mean of min(threads runnable, cores): the parallelism the program offers, which
other processes do not change (a thread waiting for a core is still runnable;
one waiting for another thread is not). CPU / that is the wall it would take
on an idle machine, only roughly: under heavy load every thread of either
program waits for a core and reads as runnable.

On a shared machine, run it in its own scheduler autogroup with the highest
weight, so that other sessions' load barely slows it (Linux autogroups
share the CPU between sessions first; `nice` alone works only inside one):

  setsid sh -c 'echo -20 > /proc/self/autogroup && exec python3 Benchmarks/single_item_bench.py'

Otherwise CFS shares the cores by runnable thread: ffmpeg's x264 frame threads
(a dozen) then get several times the share of Marquee's three, and the wall
ratio measures the other sessions, not the pipelines. Each marquee run is paired
with the floor run right after it, so both see the same load from other
processes; the ratio is marquee wall / floor wall of a pair.

With `--baseline BINARY`, each round also runs that binary (say, a build of
main) right before the marquee run, so two builds compare under the same load.

Usage: python3 Benchmarks/single_item_bench.py [--runs N] [--marquee BINARY] [--baseline BINARY] [--jobs N]
                                               [--fps N] [--max-height N] [--grain N] [--size WxH]
  --size WxH makes the source that size instead of 1920x1080 (16:9 only).
  --grain N adds temporal noise of strength N to the source (libavfilter `noise`),
  a stand-in for camera footage: x264 then spends far more per picture than on
  the flat test pattern, and the top rung's encode grows with it.
       (default binary: .build/release/marquee, built when missing)
"""
import json, os, shutil, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Marquee's default ladder for a 16:9 source (RenditionPlanner: rungs up to
# max_height, bit rates x1.5 above 30 fps).
DEFAULT_LADDER = [(1920, 1080, 6000), (1280, 720, 3000), (960, 540, 2000), (640, 360, 730)]
FPS = int(sys.argv[sys.argv.index("--fps") + 1]) if "--fps" in sys.argv else 60
SIZE = sys.argv[sys.argv.index("--size") + 1] if "--size" in sys.argv else "1920x1080"
GRAIN = int(sys.argv[sys.argv.index("--grain") + 1]) if "--grain" in sys.argv else 0
MAX_HEIGHT = int(sys.argv[sys.argv.index("--max-height") + 1]) if "--max-height" in sys.argv else 720
LADDER = [(w, h, k * 3 // 2 if FPS > 31 else k) for (w, h, k) in DEFAULT_LADDER if h <= MAX_HEIGHT]
X264 = ["-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high", "-pix_fmt", "yuv420p",
        "-x264-params", "scenecut=0:open-gop=0", "-forced-idr", "1", "-bf", "2",
        "-force_key_frames", "expr:gte(t,n_forced*2)"]
AAC = ["-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2"]


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def sample_runnable(pid, cores, stop, out):
    """Appends min(runnable threads of pid, cores) every 5 ms until stop is set."""
    while not stop.is_set():
        n = 0
        try:
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{tid}/stat") as f:
                        if f.read().rsplit(")", 1)[1].split()[0] == "R":
                            n += 1
                except OSError:
                    pass
        except OSError:
            break
        out.append(min(n, cores))
        time.sleep(0.005)


def run(cmd):
    """(wall s, CPU s, mean runnable threads capped at the cores) of one child."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        stop, samples = threading.Event(), []
        sampler = threading.Thread(target=sample_runnable, args=(p.pid, os.cpu_count(), stop, samples))
        sampler.start()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        stop.set()
        sampler.join()
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            sys.exit(f"failed: {' '.join(cmd)}\n{err.read().decode()[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime, (sum(samples) / len(samples)) if samples else 0.0


def floor_cmd(src):
    graph = ";".join([f"[0:v]fps={FPS},split={len(LADDER)}" + "".join(f"[s{i}]" for i in range(len(LADDER)))] +
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
        src = os.path.join(work, f"src-{SIZE}-{FPS}-12s.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size={SIZE}:rate={FPS}:duration=12" + (f",noise=alls={GRAIN}:allf=t+u" if GRAIN else ""),
                        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=12", "-c:v", "libx264",
                        "-preset", "veryfast", "-b:v", "8M", "-pix_fmt", "yuv420p", "-c:a", "aac", src], check=True)
        job = os.path.join(work, "job.json")
        with open(job, "w") as f:
            json.dump({"name": "bench", "settings": {"max_height": MAX_HEIGHT},
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
    try:
        group = open("/proc/self/autogroup").read().strip()
    except OSError:
        group = "no autogroup"
    print(f"binary: {marquee}; {SIZE} {FPS} fps 12 s{f', grain {GRAIN}' if GRAIN else ''}, max_height {MAX_HEIGHT}, ladder {[h for _, h, _ in LADDER]}; "
          f"--jobs {jobs or 'default'}; {os.cpu_count()} cores; {group}")
    print("| run | load before | pipeline | wall s | CPU s | CPU / wall | runnable (≤ cores) | CPU / runnable s | vs floor: wall | vs floor: CPU / runnable |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for i, (load, m, fl, b) in enumerate(rows):
        for name, r in [("floor", fl), ("marquee", m)] + ([("baseline", b)] if b else []):
            w, c, par = r
            idle = c / par if par else float("nan")
            fidle = fl[1] / fl[2] if fl[2] else float("nan")
            print(f"| {i + 1} | {load:.1f} | {name} | {w:.2f} | {c:.2f} | {c / w:.2f} | {par:.2f} | {idle:.2f} | "
                  f"{w / fl[0]:.2f} | {idle / fidle:.2f} |")
    ratios = sorted((m[1] / m[2]) / (fl[1] / fl[2]) for _, m, fl, _ in rows)
    walls = sorted(m[0] / fl[0] for _, m, fl, _ in rows)
    print(f"median marquee / floor: idle-machine wall (CPU / runnable) {ratios[len(ratios) // 2]:.2f}, "
          f"measured wall {walls[len(walls) // 2]:.2f} (target <= 1.15)")


if __name__ == "__main__":
    main()
