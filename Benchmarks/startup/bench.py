#!/usr/bin/python3
"""The measuring loop of the startup benchmark (Benchmarks/startup/README.md).

run.sh sets up the sources, both bundles, nginx and the two network
namespaces, then runs this with a JSON config. For each network profile it
shapes the veth pair (tbf on both ends), starts the latency proxy in the
server namespace, prints and records a check of the shaping, then measures
RUNS times each bundle with each client, one at a time:

  gstreamer    playbin's first decoded picture of the master playlist
  playbin3     the same with playbin3 (hlsdemux2); not in the default set
  chromium     headless Chromium's first requestVideoFrameCallback of a
               <video> whose src is the master playlist
  placeholder  headless Chromium's first paint of every slot from
               banners.json (thumbhash / color, else the pictures)

Every run is a new process (a new Chromium profile), so nothing is cached
and every connection is new; before each run the link is idle (both tbf
queues empty). nginx's access log lines of each run are kept with it (the
first files requested, the variant of the first segment). Results are
appended as JSON lines to the config's `raw` file.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Bench:
    def __init__(self, cfg):
        self.cfg = cfg
        self.srv, self.cli = cfg["ns_server"], cfg["ns_client"]
        self.ip = cfg["server_ip"]
        self.proxy = None
        self.client = None
        self.raw = open(cfg["raw"], "a")
        self.variants = {b["name"]: self.master_variants(b["master_file"]) for b in cfg["bundles"]}

    # -- helpers -----------------------------------------------------------

    def ns(self, name, *cmd):
        return ["ip", "netns", "exec", name, *cmd]

    def sh(self, cmd, **kw):
        return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout

    @staticmethod
    def master_variants(path):
        """{variant folder: 'WxH @ kbit/s'} in the master playlist's order."""
        out, pending = {}, None
        for line in open(path):
            line = line.strip()
            if line.startswith("#EXT-X-STREAM-INF:"):
                res = re.search(r"RESOLUTION=(\d+)x(\d+)", line)
                bw = re.search(r"[:,]BANDWIDTH=(\d+)", line)
                pending = f"{res.group(2) if res else '?'}p {int(bw.group(1)) // 1000 if bw else '?'}k"
            elif line and not line.startswith("#") and pending:
                out[os.path.dirname(line)] = pending
                pending = None
        return out

    # -- the network -------------------------------------------------------

    def shape(self, profile):
        rate = int(profile["rate_kbit"])
        # Burst: 10 ms at the rate, at least a few full-size frames; queue:
        # 400 ms at the rate, at least 64 kB (the tbf queue is the
        # bottleneck's buffer).
        burst = max(6000, rate * 1000 // 8 // 100)
        limit = max(65536, rate * 1000 // 8 * 4 // 10)
        for ns, dev in ((self.srv, self.cfg["dev_server"]), (self.cli, self.cfg["dev_client"])):
            self.sh(self.ns(ns, "tc", "qdisc", "replace", "dev", dev, "root", "tbf",
                            "rate", f"{rate}kbit", "burst", str(burst), "limit", str(limit)))

    def qdisc_stats(self):
        stats = {}
        for ns, dev in ((self.srv, self.cfg["dev_server"]), (self.cli, self.cfg["dev_client"])):
            text = self.sh(self.ns(ns, "tc", "-s", "qdisc", "show", "dev", dev))
            m = re.search(r"Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)", text)
            b = re.search(r"backlog (\d+)b", text)
            stats[dev] = {"sent": int(m.group(1)) if m else None, "dropped": int(m.group(3)) if m else None,
                          "backlog": int(b.group(1)) if b else 0}
        return stats

    def settle(self, limit=15.0):
        """Waits until both tbf queues are empty (nothing of the last run is
        still on the wire), then a little more."""
        end = time.monotonic() + limit
        while time.monotonic() < end:
            if all(s["backlog"] == 0 for s in self.qdisc_stats().values()):
                break
            time.sleep(0.1)
        time.sleep(0.3)

    def start_proxy(self, profile):
        self.stop_proxy()
        cmd = self.ns(self.srv, sys.executable, os.path.join(HERE, "latency_proxy.py"),
                      "--listen", f"{self.ip}:{self.cfg['proxy_port']}",
                      "--upstream", f"127.0.0.1:{self.cfg['nginx_port']}", "--rtt-ms", str(profile["rtt_ms"]),
                      *([] if self.cfg.get("slow_start", True) else ["--no-slow-start"]))
        self.proxy = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stderr=open(self.cfg["proxy_log"], "a"),
                                      start_new_session=True)
        with open(self.cfg["proxy_pidfile"], "w") as f:
            f.write(str(self.proxy.pid))
        # Ready when it accepts a connection.
        for _ in range(100):
            r = subprocess.run(self.ns(self.cli, "curl", "-s", "-o", "/dev/null", "-m", "5",
                                       f"http://{self.ip}:{self.cfg['proxy_port']}/bench/probe-small.txt"))
            if r.returncode == 0:
                return
            if self.proxy.poll() is not None:
                raise SystemExit("the latency proxy exited")
            time.sleep(0.1)
        raise SystemExit("the latency proxy does not answer")

    def stop_proxy(self):
        if self.proxy and self.proxy.poll() is None:
            self.proxy.terminate()
            try:
                self.proxy.wait(5)
            except subprocess.TimeoutExpired:
                self.proxy.kill()
                self.proxy.wait()
        self.proxy = None

    def transfer_model_ms(self, size, profile):
        """What the model gives for `size` bytes on a new connection: 2 RTT
        to the first byte, then slow-start rounds of one RTT (or the time
        the round's bytes take at the rate, when longer), at the rate less
        TCP/IP and Ethernet headers (1448 of every 1514 bytes)."""
        rtt = profile["rtt_ms"] / 1000
        rate = profile["rate_kbit"] * 1000 / 8 * 1448 / 1514
        if not self.cfg.get("slow_start", True):
            return (2 * rtt + size / rate) * 1000
        t, left, cwnd = 2 * rtt, size, 10 * 1448
        while left > 0:
            k = min(left, cwnd)
            left -= k
            t += max(rtt, k / rate) if left > 0 else k / rate
            cwnd *= 2
        return t * 1000

    def check_shaping(self, profile):
        """A small file twice on one connection (first byte ≈ 2 RTT on a new
        connection, 1 RTT on a kept-alive one) and a 2 MB file (≈ its bits
        over the rate)."""
        base = f"http://{self.ip}:{self.cfg['proxy_port']}/bench/"
        fmt = "%{time_connect} %{time_starttransfer} %{time_total} %{size_download}\\n"
        self.settle()
        small = self.sh(self.ns(self.cli, "curl", "-s", "-o", "/dev/null", "-o", "/dev/null", "-w", fmt,
                                base + "probe-small.txt", base + "probe-small.txt")).split("\n")
        s1, s2 = small[0].split(), small[1].split()
        rtt, rate = profile["rtt_ms"], profile["rate_kbit"]
        check = {
            "profile": profile["name"], "rate_kbit": rate, "rtt_ms": rtt, "slow_start": self.cfg.get("slow_start", True),
            "small_first_ttfb_ms": float(s1[1]) * 1000, "small_reused_ttfb_ms": float(s2[1]) * 1000, "files": [],
        }
        log(f"  shaping check {profile['name']} ({rate} kbit/s, RTT {rtt} ms, slow start"
            f" {'on' if check['slow_start'] else 'off'}), curl in the client namespace:")
        log(f"    small file, new connection: first byte after {check['small_first_ttfb_ms']:.0f} ms (model: 2 RTT = {2 * rtt} ms)")
        log(f"    small file, same connection: first byte after {check['small_reused_ttfb_ms']:.0f} ms (model: 1 RTT = {rtt} ms)")
        for name in ("probe-200k.bin", "probe-2mb.bin"):
            self.settle()
            before = self.qdisc_stats()
            big = self.sh(self.ns(self.cli, "curl", "-s", "-o", "/dev/null", "-w", fmt, base + name)).split()
            after = self.qdisc_stats()
            size, total, ttfb = int(big[3]), float(big[2]), float(big[1])
            f = {"bytes": size, "total_ms": total * 1000, "ttfb_ms": ttfb * 1000,
                 "goodput_kbit": size * 8 / (total - ttfb) / 1000 if total > ttfb else None,
                 "model_ms": self.transfer_model_ms(size, profile),
                 "tbf_dropped": sum(after[d]["dropped"] - before[d]["dropped"] for d in after)}
            check["files"].append(f)
            log(f"    {size} B file, new connection: {f['total_ms']:.0f} ms (model: {f['model_ms']:.0f} ms),"
                f" {f['goodput_kbit']:.0f} kbit/s after the first byte (of {rate}; headers take 4.4 %), tbf drops {f['tbf_dropped']}")
        self.record({"kind": "shaping", **check})
        return check

    # -- the access log ----------------------------------------------------

    def log_offset(self):
        try:
            return os.path.getsize(self.cfg["access_log"])
        except OSError:
            return 0

    def requests_since(self, offset, prefix):
        with open(self.cfg["access_log"], "rb") as f:
            f.seek(offset)
            text = f.read().decode("utf-8", "replace")
        reqs = []
        for line in text.splitlines():
            # $msec $connection $status $body_bytes_sent $server_port "$request_uri"
            m = re.match(r'(\S+) (\d+) (\d+) (\d+) (\d+) "([^"]*)"', line)
            if not m or m.group(5) != str(self.cfg["nginx_port"]):
                continue
            uri = m.group(6)
            if not uri.startswith(prefix):
                continue
            reqs.append({"t": float(m.group(1)), "conn": int(m.group(2)), "status": int(m.group(3)),
                         "bytes": int(m.group(4)), "path": uri[len(prefix):]})
        if reqs:
            t0 = reqs[0]["t"]
            for r in reqs:
                r["t"] = round((r["t"] - t0) * 1000)
        return reqs

    # -- the clients -------------------------------------------------------

    def run_gst(self, url, timeout, playbin3=False):
        cmd = self.ns(self.cli, "/usr/bin/python3", os.path.join(HERE, "gst_first_picture.py"),
                      *(["--playbin3"] if playbin3 else []), url, str(timeout))
        p = self.client = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                           text=True, start_new_session=True)
        try:
            out, err = p.communicate(timeout=timeout + 30)
        except subprocess.TimeoutExpired:
            self.kill_group(p)
            return {"ms": None, "timeout": True, "error": "killed: no answer"}
        for line in reversed(out.splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        return {"ms": None, "error": f"no result (exit {p.returncode}): {err[-500:]}"}

    @staticmethod
    def kill_group(p):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                return
            try:
                p.wait(3)
                return
            except subprocess.TimeoutExpired:
                continue

    def run_chromium(self, page, timeout):
        profile = tempfile.mkdtemp(prefix="chromium-", dir=self.cfg["scratch"])
        cmd = self.ns(self.cli, "env", f"HOME={profile}", self.cfg["chromium"],
                      "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                      f"--user-data-dir={profile}", "--no-first-run", "--no-default-browser-check",
                      "--disable-background-networking", "--disable-component-update", "--disable-sync",
                      "--disable-extensions", "--disable-default-apps", "--mute-audio",
                      "--autoplay-policy=no-user-gesture-required", "--window-size=800,600",
                      "--enable-logging=stderr", "--v=0", page)
        p = self.client = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                           text=True, errors="replace", start_new_session=True)
        found, tail = {}, []
        done = threading.Event()

        def reader():
            for line in p.stderr:
                tail.append(line)
                del tail[:-40]
                m = re.search(r"MQS-RESULT (\S+) MQS-END", line)
                if m:
                    from urllib.parse import unquote
                    found["result"] = json.loads(unquote(m.group(1)))
                    done.set()
            done.set()

        th = threading.Thread(target=reader, daemon=True)
        th.start()
        # The page times itself out at `timeout`; Chromium's own start is
        # not measured but bounded.
        done.wait(timeout + 45)
        self.kill_group(p)
        th.join(5)
        shutil.rmtree(profile, ignore_errors=True)
        if "result" in found:
            return found["result"]
        return {"ms": None, "timeout": True, "error": "no result from Chromium: " + "".join(tail[-5:])[-600:]}

    # -- the loop ----------------------------------------------------------

    def record(self, obj):
        self.raw.write(json.dumps(obj) + "\n")
        self.raw.flush()

    def measure(self, profile, bundle, client, run):
        timeout = self.cfg["timeout_s"]
        master = f"http://{self.ip}:{self.cfg['proxy_port']}{bundle['prefix']}{bundle['master']}"
        page_base = f"http://{self.ip}:{self.cfg['page_port']}/bench/"
        from urllib.parse import quote
        self.settle()
        offset = self.log_offset()
        if client in ("gstreamer", "playbin3"):
            result = self.run_gst(master, timeout, playbin3=client == "playbin3")
        elif client == "chromium":
            result = self.run_chromium(f"{page_base}video.html?timeout={timeout * 1000}&src={quote(master, safe='')}", timeout)
        else:
            b = f"http://{self.ip}:{self.cfg['proxy_port']}{bundle['prefix']}"
            result = self.run_chromium(f"{page_base}placeholder.html?timeout={timeout * 1000}&bundle={quote(b, safe='')}", timeout)
        time.sleep(0.5)  # the last requests' log lines
        reqs = self.requests_since(offset, bundle["prefix"])
        segs = [r for r in reqs if r["path"].endswith((".m4s", ".ts", ".mp4"))]
        first_seg = next((r["path"] for r in segs if r["path"].endswith((".m4s", ".ts"))), None)
        variant = None
        if first_seg:
            folder = os.path.dirname(first_seg)
            for k, v in self.variants[bundle["name"]].items():
                if folder.endswith(k):
                    variant = v
        rec = {"kind": "run", "profile": profile["name"], "bundle": bundle["name"], "client": client, "run": run,
               "ms": result.get("ms"), "timeout": bool(result.get("timeout")), "error": result.get("error"),
               "first_segment": first_seg, "first_variant": variant,
               "connections": len({r["conn"] for r in reqs}), "requests": len(reqs),
               "bytes_served": sum(r["bytes"] for r in reqs),
               "first_requests": [[r["t"], r["conn"], r["path"], r["bytes"]] for r in reqs[:10]],
               "result": result}
        self.record(rec)
        ms = f"{rec['ms']:.0f} ms" if rec["ms"] is not None else ("TIMEOUT" if rec["timeout"] else f"ERROR {rec['error']}")
        extra = f", first segment {first_seg} ({variant})" if first_seg else ""
        if client == "placeholder" and result.get("slots"):
            extra = ", painted from " + "+".join(s.get("how", "?") for s in result["slots"])
        log(f"  {profile['name']} run {run}/{self.cfg['runs']} {bundle['name']:8s} {client:11s} {ms}{extra}")
        return rec

    def main(self):
        try:
            for profile in self.cfg["profiles"]:
                log(f"profile {profile['name']}: {profile['rate_kbit']} kbit/s each way, RTT {profile['rtt_ms']} ms")
                self.shape(profile)
                self.start_proxy(profile)
                self.check_shaping(profile)
                for run in range(1, self.cfg["runs"] + 1):
                    bundles = self.cfg["bundles"] if run % 2 else list(reversed(self.cfg["bundles"]))
                    for bundle in bundles:
                        for client in self.cfg["clients"]:
                            self.measure(profile, bundle, client, run)
                self.stop_proxy()
        finally:
            if self.client is not None and self.client.poll() is None:
                self.kill_group(self.client)
            self.stop_proxy()


if __name__ == "__main__":
    # run.sh's clean-up sends SIGTERM: stop the proxy and the client on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with open(sys.argv[1]) as f:
        Bench(json.load(f)).main()
