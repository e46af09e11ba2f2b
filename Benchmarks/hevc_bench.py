#!/usr/bin/env python3
"""HEVC ladder benchmark: each natural clip built by Marquee with its default
settings (`video_codecs` ["h264", "hevc"]) and, side by side in the same run,
with `video_codecs` ["h264"] (H.264 only, the ladder before HEVC twins).

Per clip, read back from the files with ffprobe and ffmpeg (an oracle
independent of Marquee):
  - the top H.264 rendition's and the top HEVC twin's video bytes (the
    video packets of all segments, ffprobe `packet=size`, plus the init
    section) and their ratio;
  - the SSIM of each against the same reference: the source decoded,
    autorotated, set to the rendition's frame rate and scaled with Lanczos
    to the rendition's size by the ffmpeg CLI (`ssim`, the "All" figure
    from its dB value);
  - the CPU seconds (user + sys, wait4) and peak RSS of `marquee build
    --jobs 1` of the clip alone, both ways, best of `--runs`.

Usage: python3 Benchmarks/hevc_bench.py --marquee RELEASE_BINARY CLIP [CLIP ...]
           [--runs N] [--work DIR]
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def build(marquee, clip, work, codecs):
    """Builds `clip` alone; returns (item folder, cpu seconds, peak RSS kB)."""
    os.makedirs(work, exist_ok=True)
    name = os.path.basename(clip)
    dst = os.path.join(work, name)
    if not os.path.exists(dst):
        shutil.copy(clip, dst)
    job = {"name": "bench", "settings": {"video_codecs": codecs},
           "banners": [{"id": "clip", "type": "video", "source": name}]}
    with open(os.path.join(work, "job.json"), "w") as f:
        json.dump(job, f)
    out = os.path.join(work, "out")
    shutil.rmtree(out, ignore_errors=True)
    pid = os.fork()
    if pid == 0:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.execv(marquee, [marquee, "build", os.path.join(work, "job.json"), "--out", out, "--jobs", "1"])
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"marquee build of {clip} with {codecs} failed")
    manifest = json.load(open(os.path.join(out, "bench", "banners.json")))
    url = manifest["banners"][0].get("hls_url") or manifest["banners"][0]["url"]
    folder = os.path.join(out, "bench", os.path.dirname(url.split("/bench/", 1)[-1]))
    return folder, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def variants(master):
    lines = open(master).read().splitlines()
    found = []
    for i, line in enumerate(lines):
        if line.startswith("#EXT-X-STREAM-INF:"):
            codecs = re.search(r'CODECS="([^"]+)"', line).group(1)
            res = re.search(r"RESOLUTION=(\d+)x(\d+)", line)
            rate = re.search(r"FRAME-RATE=([\d.]+)", line).group(1)
            found.append({"uri": lines[i + 1], "codecs": codecs, "w": int(res.group(1)), "h": int(res.group(2)),
                          "fps": rate})
    return found


def video_bytes(playlist):
    r = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=size", "-of", "csv=p=0",
             playlist])
    packets = sum(int(x) for x in r.stdout.split() if x.strip().isdigit())
    init = os.path.getsize(os.path.join(os.path.dirname(playlist), "init.mp4"))
    return packets + init


def ssim(playlist, clip, v):
    chain = (f"[1:v]fps={v['fps']},scale={v['w']}:{v['h']}:flags=lanczos,format=yuv420p,setpts=PTS-STARTPTS[ref];"
             f"[0:v]setpts=PTS-STARTPTS[enc];[enc][ref]ssim")
    r = run(["ffmpeg", "-v", "info", "-nostats", "-i", playlist, "-i", clip, "-lavfi", chain, "-f", "null", "-"])
    line = [l for l in r.stderr.splitlines() if "SSIM " in l and "All:" in l][-1]
    db = float(re.search(r"All:[\d.]+ \(([\d.]+|inf)\)", line).group(1))
    return 1 - math.pow(10, -db / 10)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--marquee", required=True)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--work", default=None)
    p.add_argument("clips", nargs="+")
    a = p.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="hevc-bench-")
    print("| clip | top | H.264 bytes | HEVC bytes | ratio | SSIM H.264 | SSIM HEVC | ΔSSIM | CPU both / H.264 only | RSS both / H.264 only |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for clip in a.clips:
        clip = os.path.abspath(clip)
        base = os.path.splitext(os.path.basename(clip))[0]
        cpu = {"both": [], "h264": []}
        rss = {"both": [], "h264": []}
        folder = None
        for _ in range(a.runs):
            for key, codecs in (("h264", ["h264"]), ("both", ["h264", "hevc"])):
                f, c, m = build(a.marquee, clip, os.path.join(work, base, key), codecs)
                cpu[key].append(c)
                rss[key].append(m)
                if key == "both":
                    folder = f
        vs = variants(os.path.join(folder, "master.m3u8"))
        top264 = max((v for v in vs if v["codecs"].startswith("avc1.")), key=lambda v: v["w"] * v["h"])
        top265 = max((v for v in vs if v["codecs"].startswith("hvc1.")), key=lambda v: v["w"] * v["h"])
        p264 = os.path.join(folder, top264["uri"])
        p265 = os.path.join(folder, top265["uri"])
        b264, b265 = video_bytes(p264), video_bytes(p265)
        s264, s265 = ssim(p264, clip, top264), ssim(p265, clip, top265)
        print(f"| {base} | {top264['w']}x{top264['h']} | {b264} | {b265} | {b265 / b264:.3f} | {s264:.5f} | {s265:.5f} | "
              f"{s265 - s264:+.5f} | {min(cpu['both']):.2f} / {min(cpu['h264']):.2f} s = {min(cpu['both']) / min(cpu['h264']):.2f}x | "
              f"{max(rss['both']) / 1024:.0f} / {max(rss['h264']) / 1024:.0f} MB = {max(rss['both']) / max(rss['h264']):.2f}x |",
              flush=True)


if __name__ == "__main__":
    main()
