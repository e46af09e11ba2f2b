#!/usr/bin/python3
"""Time to GStreamer's first decoded picture of an HLS master playlist.

Startup benchmark (Benchmarks/startup/README.md). playbin plays URI with
fakesinks (sync=true, no display); a buffer probe on the video sink's sink
pad takes the first decoded picture. t0 is taken just before the pipeline
is set to PLAYING (which requests the master playlist), t1 in the probe.
Prints one JSON object: ms (t1 - t0), the picture's size and timestamp,
or timeout / error. Runs with the system python3 and python3-gi
(gir1.2-gstreamer-1.0).

With --playbin3, playbin3 (which takes hlsdemux2 in GStreamer 1.22)
instead of playbin (which takes the legacy hlsdemux).

Usage: gst_first_picture.py [--playbin3] URI [TIMEOUT_S]
"""

import json
import os
import sys
import time

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402


def main():
    args = [a for a in sys.argv[1:] if a != "--playbin3"]
    element = "playbin3" if "--playbin3" in sys.argv[1:] else "playbin"
    uri = args[0]
    timeout = float(args[1]) if len(args) > 1 else 60.0
    Gst.init(None)
    playbin = Gst.ElementFactory.make(element, None)
    vsink = Gst.ElementFactory.make("fakesink", "vsink")
    asink = Gst.ElementFactory.make("fakesink", "asink")
    for s in (vsink, asink):
        s.set_property("sync", True)
    playbin.set_property("uri", uri)
    playbin.set_property("video-sink", vsink)
    playbin.set_property("audio-sink", asink)
    loop = GLib.MainLoop()
    result = {"client": element, "gst": Gst.version_string()}
    t = {}

    def on_buffer(pad, info):
        if "t1" not in t:
            t["t1"] = time.monotonic()
            buf = info.get_buffer()
            if buf is not None and buf.pts != Gst.CLOCK_TIME_NONE:
                result["pts"] = buf.pts / Gst.SECOND
            caps = pad.get_current_caps()
            if caps is not None and caps.get_size() > 0:
                st = caps.get_structure(0)
                ok_w, w = st.get_int("width")
                ok_h, h = st.get_int("height")
                if ok_w and ok_h:
                    result["width"], result["height"] = w, h
            GLib.idle_add(loop.quit)
        return Gst.PadProbeReturn.OK

    vsink.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)

    def on_message(bus, msg):
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            result["error"] = f"{err.message} ({msg.src.get_name() if msg.src else '?'})"
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            result.setdefault("error", "EOS before a picture")
            loop.quit()
        elif msg.type == Gst.MessageType.ELEMENT and msg.get_structure() is not None:
            pass
        return True

    bus = playbin.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)

    def on_timeout():
        result["timeout"] = True
        loop.quit()
        return False

    GLib.timeout_add(int(timeout * 1000), on_timeout)
    t["t0"] = time.monotonic()
    playbin.set_state(Gst.State.PLAYING)
    loop.run()
    if "t1" in t:
        result["ms"] = (t["t1"] - t["t0"]) * 1000.0
        result.pop("timeout", None)
        result.pop("error", None)
    else:
        result["ms"] = None
    # Which demuxer played it (hlsdemux2 or the legacy hlsdemux).
    it = playbin.iterate_recurse()
    names = set()
    while True:
        ok, el = it.next()
        if ok != Gst.IteratorResult.OK:
            break
        f = el.get_factory()
        if f is not None:
            names.add(f.get_name())
    result["demuxer"] = sorted(n for n in names if "demux" in n)
    print(json.dumps(result), flush=True)
    # Exit at once: the sockets close with the process; a pipeline torn
    # down mid-download can take seconds.
    os._exit(0)


if __name__ == "__main__":
    main()
