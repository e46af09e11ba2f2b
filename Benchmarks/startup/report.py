#!/usr/bin/python3
"""The startup benchmark's report (Benchmarks/startup/README.md): a
Markdown table from the JSON lines bench.py writes.

Usage: report.py RUNS.jsonl [META.txt] [MARQUEE_MASTER PEER_MASTER]
"""

import json
import math
import os
import statistics
import sys
from collections import Counter, OrderedDict

CLIENTS = OrderedDict([
    ("gstreamer", "GStreamer playbin, first decoded picture"),
    ("playbin3", "GStreamer playbin3, first decoded picture"),
    ("chromium", "Chromium <video>, first requestVideoFrameCallback"),
    ("placeholder", "Chromium, first paint of every slot from banners.json"),
])


def p90(values):
    """Nearest-rank 90th percentile."""
    s = sorted(values)
    return s[max(0, math.ceil(0.9 * len(s)) - 1)]


def fmt(v):
    return "–" if v is None else f"{v:.0f}"


def main():
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    meta = {}
    if len(sys.argv) > 2 and os.path.exists(sys.argv[2]):
        for line in open(sys.argv[2]):
            k, _, v = line.rstrip("\n").partition("=")
            meta[k] = v
    runs = [r for r in rows if r["kind"] == "run"]
    checks = [r for r in rows if r["kind"] == "shaping"]
    profiles = list(OrderedDict.fromkeys(r["profile"] for r in runs))
    bundles = list(OrderedDict.fromkeys(r["bundle"] for r in runs))
    clients = [c for c in CLIENTS if any(r["client"] == c for r in runs)]

    out = []
    out.append("# Startup benchmark: time to first picture")
    out.append("")
    if meta:
        out.append(f"Marquee {meta.get('marquee_version', '?').replace('marquee ', '')} at {meta.get('commit', '?')}; "
                   f"{meta.get('seconds', '?')} s 1920x1080 30 fps source with sound; {meta.get('chromium', '')}; "
                   f"{meta.get('gstreamer', '')}; kernel {meta.get('kernel', '')}; load at the end {meta.get('load', '')}.")
        out.append("")
        out.append(f"- Marquee, init + first segment per rung (master order): {meta.get('marquee_rungs', '?')}")
        out.append(f"- peer, init + first segment per rung (master order): {meta.get('peer_rungs', '?')}")
        out.append("")
    out.append("Times in ms from the request of the master playlist (video) or of banners.json (placeholder) to the")
    out.append("first picture; median and p90 (nearest rank) over the runs that got one; a timeout is a run without.")
    out.append("Network: tbf on both ends of a veth pair for the rate, a userspace proxy for the RTT (the TCP")
    out.append("handshake, RTT/2 each way, slow-start rounds unless the check below says off); no netem on this kernel.")
    out.append("")
    out.append("| bundle | profile | client | median ms | p90 ms | runs | timeouts | first segment requested (runs); size of the first picture |")
    out.append("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
    med = {}
    for profile in profiles:
        for client in clients:
            for bundle in bundles:
                rs = [r for r in runs if r["profile"] == profile and r["client"] == client and r["bundle"] == bundle]
                ok = [r["ms"] for r in rs if r["ms"] is not None]
                fails = len(rs) - len(ok)
                m = statistics.median(ok) if ok else None
                med[(profile, client, bundle)] = m
                if client == "placeholder":
                    hows = Counter("+".join(s.get("how", "?") for s in (r["result"].get("slots") or [])) or "none" for r in rs)
                    first = ", ".join(f"painted from {k} ({n})" for k, n in hows.most_common())
                else:
                    firsts = Counter(f"{r['first_segment']} = {r['first_variant']}" if r["first_segment"] else "none" for r in rs)
                    first = ", ".join(f"{k} ({n})" for k, n in firsts.most_common())
                    sizes = Counter(f"{r['result'].get('width')}x{r['result'].get('height')}" for r in rs if r["ms"] is not None)
                    if sizes:
                        first += "; first picture " + ", ".join(f"{k} ({n})" for k, n in sizes.most_common())
                out.append(f"| {bundle} | {profile} | {client} | {fmt(m)} | {fmt(p90(ok) if ok else None)} | {len(rs)} | "
                           f"{fails} | {first} |")
    out.append("")
    if "marquee" in bundles and "peer" in bundles:
        out.append("Marquee / peer, ratio of the medians (goal of issue 23: at most 0.50 for the first picture under 3G):")
        out.append("")
        out.append("| profile | client | Marquee median ms | peer median ms | Marquee / peer |")
        out.append("| --- | --- | ---: | ---: | ---: |")
        for profile in profiles:
            for client in clients:
                a, b = med.get((profile, client, "marquee")), med.get((profile, client, "peer"))
                ratio = f"{a / b:.2f}" if a is not None and b else "–"
                if profile == "3G" and client != "placeholder" and a is not None and b:
                    ratio += " (goal met)" if a / b <= 0.5 else " (goal NOT met)"
                out.append(f"| {profile} | {client} | {fmt(a)} | {fmt(b)} | {ratio} |")
        out.append("")
    errors = [r for r in runs if r["ms"] is None]
    if errors:
        out.append("Runs without a picture:")
        out.append("")
        for r in errors:
            what = "timeout" if r["timeout"] else "error"
            out.append(f"- {r['profile']} {r['bundle']} {r['client']} run {r['run']}: {what}: {str(r.get('error'))[:200]}")
        out.append("")
    if checks:
        out.append("Shaping check (curl in the client namespace, through tbf and the latency proxy):")
        out.append("")
        out.append("| profile | rate kbit/s | RTT ms | slow start | small file, new connection: first byte ms (2 RTT) | "
                   "same connection (1 RTT) | 200 kB: ms (model) | 2 MB: ms (model) | 2 MB goodput kbit/s | tbf drops |")
        out.append("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for c in checks:
            f = c["files"]
            out.append(f"| {c['profile']} | {c['rate_kbit']} | {c['rtt_ms']} | {'on' if c['slow_start'] else 'off'} | "
                       f"{c['small_first_ttfb_ms']:.0f} | {c['small_reused_ttfb_ms']:.0f} | "
                       f"{f[0]['total_ms']:.0f} ({f[0]['model_ms']:.0f}) | {f[1]['total_ms']:.0f} ({f[1]['model_ms']:.0f}) | "
                       f"{f[1]['goodput_kbit']:.0f} | {f[0]['tbf_dropped'] + f[1]['tbf_dropped']} |")
        out.append("")
    out.append("First requests of each run (ms after the run's first request, nginx connection, path, bytes):")
    out.append("")
    for r in runs:
        if r["client"] == "placeholder":
            reqs = r["first_requests"][:4]
        else:
            reqs = r["first_requests"][:6]
        ms = fmt(r["ms"]) if r["ms"] is not None else ("timeout" if r["timeout"] else "error")
        seq = "; ".join(f"{t} c{c} {p} {b}" for t, c, p, b in reqs)
        out.append(f"- {r['profile']} {r['bundle']} {r['client']} #{r['run']} ({ms} ms, {r['connections']} conn, "
                   f"{r['requests']} req): {seq}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
