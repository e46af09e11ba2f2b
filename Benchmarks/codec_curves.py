#!/usr/bin/env python3
"""x264 against x265 by SSIM on one source: bytes at equal SSIM (issue 22).

Encodes one source's video with the ffmpeg CLI, one thread each, at a few
CRFs, with the options Marquee gives each encoder:
  x264  preset medium, `b-adapt=2:rc-lookahead=60:trellis=2`
        (EncoderEffort.x264Options);
  x265  preset medium, `bframes=3` (EncoderEffort.x265Options), one thread
        (`pools=none:frame-threads=1`, as Marquee runs it);
no VBV cap on either, so the curves are the encoders' own. SSIM is the
ffmpeg CLI's `ssim` (`All`) of each encode against the reference.

The reference is the source's own pictures, or with `--scale WxH` the source
scaled by Lanczos to WxH and kept losslessly (FFV1), both encoders then
encoding that. Scaling takes the comparison off the source's own coding
grid: a source that is itself low-rate H.264, re-encoded at its own size,
lets x264 reproduce its 8x8 blocks and deblocking closely, which SSIM
against that source rewards.

Prints each encode's CRF, bytes and SSIM, then x265's bytes at the SSIM x264
reaches at CRF 23 (interpolated in log bytes between the two x265 encodes
around it) and the ratio of those bytes to x264's.

Usage: python3 Benchmarks/codec_curves.py SOURCE [--scale WxH] [--work DIR]
"""
import argparse, math, os, re, subprocess, sys, tempfile

X264 = "b-adapt=2:rc-lookahead=60:trellis=2"
X265 = "pools=none:frame-threads=1:bframes=3:info=0:log-level=error"


def ssim(encoded, reference):
    err = subprocess.run(["ffmpeg", "-nostdin", "-v", "info", "-nostats", "-i", encoded, "-i", reference,
                          "-lavfi", "[0:v][1:v]ssim", "-f", "null", "-"], capture_output=True, text=True).stderr
    m = re.search(r"All:([0-9.]+)", err)
    if not m:
        sys.exit(f"no SSIM for {encoded}:\n{err[-2000:]}")
    return float(m.group(1))


def encode(reference, codec, crf, out):
    common = ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", reference, "-an", "-pix_fmt", "yuv420p"]
    if codec == "x264":
        args = ["-c:v", "libx264", "-preset", "medium", "-crf", str(crf), "-threads", "1", "-x264-params", X264]
    else:
        args = ["-c:v", "libx265", "-preset", "medium", "-crf", str(crf), "-x265-params", X265]
    subprocess.run(common + args + [out], check=True)
    return os.path.getsize(out), ssim(out, reference)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("--scale")
    ap.add_argument("--work")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="codec-curves-")
    os.makedirs(work, exist_ok=True)
    reference = a.source
    if a.scale:
        w, h = a.scale.lower().split("x")
        reference = os.path.join(work, "reference.mkv")
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", a.source, "-an",
                        "-vf", f"scale={w}:{h}:flags=lanczos", "-c:v", "ffv1", reference], check=True)
    curves = {"x264": [], "x265": []}
    for codec, crfs in (("x264", [21, 23, 25]), ("x265", [17, 19, 21, 23, 25, 27])):
        for crf in crfs:
            size, s = encode(reference, codec, crf, os.path.join(work, f"{codec}-{crf}.mp4"))
            curves[codec].append((crf, size, s))
            print(f"{codec} CRF {crf}: {size} bytes, SSIM {s:.5f}", flush=True)
    target_bytes, target = next((b, s) for c, b, s in curves["x264"] if c == 23)
    pts = sorted(curves["x265"], key=lambda p: p[2])
    for (c0, b0, s0), (c1, b1, s1) in zip(pts, pts[1:]):
        if s0 <= target <= s1:
            f = (target - s0) / (s1 - s0) if s1 > s0 else 0
            b = math.exp(math.log(b0) + f * (math.log(b1) - math.log(b0)))
            print(f"at x264 CRF 23's SSIM {target:.5f}: x264 {target_bytes} bytes, x265 {b:.0f} bytes = {b / target_bytes:.3f}x")
            return
    print(f"x264 CRF 23's SSIM {target:.5f} is outside x265's measured range")


if __name__ == "__main__":
    main()
