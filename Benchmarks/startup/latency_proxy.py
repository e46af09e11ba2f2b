#!/usr/bin/env python3
"""A TCP proxy that adds a round-trip time, for kernels without netem.

Startup benchmark (Benchmarks/startup/README.md). It listens on LISTEN and
forwards each connection to UPSTREAM (nginx on the server namespace's
loopback), modelling a path of RTT milliseconds:

- the TCP handshake: the first byte from the client goes upstream no
  earlier than one RTT after the connection was accepted (the client's
  SYN / SYN-ACK round trip, which the local veth does in microseconds);
- propagation: every chunk, in each direction, is released RTT/2 after
  it was read, in order.

- slow start (unless --no-slow-start): the client's TCP sees only the
  short local hop, so its window would be wide open at once; the proxy
  instead releases the server's bytes of a connection in rounds one RTT
  apart, the first of 10 segments (Linux's initial window, 10 x 1448 B),
  each twice the last while the last was full, and starts again from 10
  after an idle time of one RTO (RTT + 200 ms), as Linux does
  (tcp_slow_start_after_idle).

So a request on a new connection gets its first response byte after
2 RTT (plus the server's time), and one on a kept-alive connection after
1 RTT, as on a real path. The rate is limited elsewhere (tbf on the veth
pair). Not modelled: loss and its recovery on the long path, and the
ACK clock's finer grain (a round's bytes go out together).

Usage: latency_proxy.py --listen 10.77.0.1:80 --upstream 127.0.0.1:8080 --rtt-ms 150
"""

import argparse
import asyncio
import signal
import socket
import sys


def hostport(text):
    host, _, port = text.rpartition(":")
    return host, int(port)


INITIAL_WINDOW = 10 * 1448


class SlowStart:
    """Releases a connection's bytes in rounds of a doubling window."""

    def __init__(self, rtt):
        self.rtt, self.rto = rtt, rtt + 0.2
        self.cwnd = INITIAL_WINDOW
        self.round_start = None
        self.sent = 0
        self.last_send = None

    async def take(self, loop, n):
        """Waits until up to n bytes may go; returns how many."""
        now = loop.time()
        if self.last_send is not None and now - self.last_send > self.rto:
            self.cwnd, self.round_start = INITIAL_WINDOW, None
        if self.round_start is None or (self.sent < self.cwnd and now >= self.round_start + self.rtt):
            # A new round; the last one was not full, so no growth.
            self.round_start, self.sent = now, 0
        if self.sent >= self.cwnd:
            wait = self.round_start + self.rtt - now
            if wait > 0:
                await asyncio.sleep(wait)
            self.cwnd *= 2
            self.round_start, self.sent = loop.time(), 0
        k = min(n, self.cwnd - self.sent)
        self.sent += k
        self.last_send = loop.time()
        return k


class Pipe:
    """One direction of one connection: chunks released `delay` s after they
    were read (and, upstream, not before `not_before`), by `slow_start`'s
    rounds when it is given."""

    def __init__(self, reader, writer, delay, not_before=0.0, slow_start=None):
        self.reader, self.writer = reader, writer
        self.delay, self.not_before = delay, not_before
        self.slow_start = slow_start
        self.queue = asyncio.Queue()

    async def read_side(self):
        loop = asyncio.get_running_loop()
        try:
            while True:
                data = await self.reader.read(65536)
                now = loop.time()
                self.queue.put_nowait((max(now, self.not_before) + self.delay, data))
                if not data:
                    return
        except (ConnectionError, OSError):
            self.queue.put_nowait((loop.time(), b""))

    async def write_side(self):
        loop = asyncio.get_running_loop()
        try:
            while True:
                due, data = await self.queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    if self.writer.can_write_eof():
                        self.writer.write_eof()
                    return
                while data:
                    k = await self.slow_start.take(loop, len(data)) if self.slow_start else len(data)
                    self.writer.write(data[:k])
                    data = data[k:]
                    await self.writer.drain()
        except (ConnectionError, OSError):
            pass


async def handle(client_reader, client_writer, upstream, rtt, slow_start):
    loop = asyncio.get_running_loop()
    accepted = loop.time()
    try:
        up_reader, up_writer = await asyncio.open_connection(*upstream)
    except OSError:
        client_writer.close()
        return
    for w in (client_writer, up_writer):
        sock = w.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    up = Pipe(client_reader, up_writer, rtt / 2, not_before=accepted + rtt)
    down = Pipe(up_reader, client_writer, rtt / 2, slow_start=SlowStart(rtt) if slow_start else None)
    tasks = [asyncio.ensure_future(c) for c in (up.read_side(), up.write_side(), down.read_side(), down.write_side())]
    # The connection is over when the server's side has been passed on
    # whole (nginx closed) or the client went away.
    done, _ = await asyncio.wait([tasks[3], tasks[1]], return_when=asyncio.FIRST_COMPLETED)
    if tasks[1] in done and not tasks[3].done():
        # The client finished sending (closed or half-closed): let the
        # response that is already on its way arrive, then end.
        try:
            await asyncio.wait_for(tasks[3], timeout=120)
        except asyncio.TimeoutError:
            pass
    for t in tasks:
        t.cancel()
    for w in (client_writer, up_writer):
        try:
            w.close()
        except Exception:
            pass


async def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--listen", required=True)
    p.add_argument("--upstream", required=True)
    p.add_argument("--rtt-ms", type=float, required=True)
    p.add_argument("--no-slow-start", action="store_true", help="release the server's bytes at once")
    a = p.parse_args()
    rtt = a.rtt_ms / 1000.0
    upstream = hostport(a.upstream)
    host, port = hostport(a.listen)
    server = await asyncio.start_server(lambda r, w: handle(r, w, upstream, rtt, not a.no_slow_start), host, port, backlog=256)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for s in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(s, stop.set)
    print(f"latency proxy {a.listen} -> {a.upstream}, RTT {a.rtt_ms:g} ms, slow start {'off' if a.no_slow_start else 'on'}",
          file=sys.stderr, flush=True)
    async with server:
        await stop.wait()


if __name__ == "__main__":
    asyncio.run(main())
