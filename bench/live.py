#!/usr/bin/env python3
"""Issue 48's figures for live updates (API.md "Live updates"): what open streams cost one
instance, and how long an event takes to reach a reader on another instance.

  python3 bench/live.py [--bin build/plauditd] [--streams 10000] [--idle 30] [--comments 200]
                        [--fanout 20] [--json FILE]

Two plauditd on one Redis and one SQLite file: A (embedded Redis + SQLite in a temp dir, as
bench/moderation.py starts it) and B (--redis at A's socket, --database A's file), both with
caps raised for the run (--live-streams, --live-streams-per-address, --max-connections).

1. Cost of open streams: B's RSS (VmRSS) with no stream open, then with --streams streams of
   one article open on B (asyncio, one TCP connection each, every one confirmed by its first
   frame); the difference per stream. B's CPU (utime + stime) over --idle seconds with them all
   open and nothing happening (a heartbeat each 25 s is all they get), against the same span
   with none open; Redis's total_commands_processed over the idle span (an idle stream costs
   no Redis command, so this is what the instances do on their own).
2. 201 → event: with the streams still open, one more reader of another article on B;
   --comments comments posted through A one after the other; for each, the time from the 201's
   arrival (A) to the `comment` event's arrival (B). Negative: the event came first (A sends
   the 201 and the announcement at the same moment). p50/p99/max.
3. Fan-out: --fanout comments on the article the --streams readers follow; for each, the time
   from the 201 to the last of them receiving it (bounded by this script reading 10,000
   sockets in Python as much as by plauditd; stated as such).

Prints the JSON (and writes it to --json).
"""
import asyncio
import http.client
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moderation import Server, bench_args, emit  # noqa: E402

CLK_TCK = os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"^VmRSS:\s+(\d+)", f.read(), re.M).group(1))


def cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


def redis_commands(sock):
    out = subprocess.run(["redis-cli", "-s", sock, "INFO", "stats"], capture_output=True,
                         text=True, check=True).stdout
    return int(re.search(r"total_commands_processed:(\d+)", out).group(1))


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


class Stream:
    """One text/event-stream reader: its events as (time, name, data)."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self.buf = b""

    @classmethod
    async def open(cls, port, path):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n"
                     .encode())
        await writer.drain()
        s = cls(reader, writer)
        head = await reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head.decode(errors="replace").splitlines()[0])
        return s

    async def first_frame(self):
        while b"\n\n" not in self.buf:
            self.buf += await self.reader.read(65536)
        self.buf = self.buf.split(b"\n\n", 1)[1]

    async def next_event(self, name):
        """The next event called `name` (heartbeats and others skipped): (arrival, data)."""
        while True:
            while b"\n\n" not in self.buf:
                chunk = await self.reader.read(65536)
                if not chunk:
                    raise RuntimeError("stream closed")
                self.buf += chunk
            frame, self.buf = self.buf.split(b"\n\n", 1)
            at = time.monotonic()
            lines = dict(l.split(": ", 1) for l in frame.decode().split("\n") if ": " in l)
            if lines.get("event") == name:
                return at, lines.get("data", "")

    def close(self):
        self.writer.close()


async def open_many(port, path, n, batch=500):
    streams = []
    for i in range(0, n, batch):
        opened = await asyncio.gather(*(Stream.open(port, path) for _ in range(min(batch, n - i))))
        await asyncio.gather(*(s.first_frame() for s in opened))
        streams.extend(opened)
    return streams


def post(conn, article, token, body):
    headers = {"Content-Type": "application/json", "Authorization": "Bearer " + token}
    conn.request("POST", f"/api/v1/articles/{article}/comments", json.dumps({"body": body}),
                 headers)
    r = conn.getresponse()
    data = r.read()
    at = time.monotonic()
    if r.status != 201:
        raise SystemExit(f"post: {r.status} {data[:200]!r}")
    return at, json.loads(data)["id"]


async def latency(a, b_port, article, token, n):
    reader = await Stream.open(b_port, f"/api/v1/articles/{article}/events")
    await reader.first_frame()
    conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=30)
    gaps = []
    loop = asyncio.get_running_loop()
    for i in range(n):
        # The post runs in a thread so the event can arrive (and be timed) while it is answered.
        waiter = asyncio.ensure_future(reader.next_event("comment"))
        t201, cid = await loop.run_in_executor(None, post, conn, article, token, f"live {i}")
        at, data = await asyncio.wait_for(waiter, 10)
        if json.loads(data)["id"] != cid:
            raise SystemExit("events out of order")
        gaps.append((at - t201) * 1000)
    reader.close()
    return gaps


async def fanout(a, streams, article, token, n):
    conn = http.client.HTTPConnection("127.0.0.1", a.port, timeout=30)
    loop = asyncio.get_running_loop()
    out = []
    for i in range(n):
        waiters = [asyncio.ensure_future(s.next_event("comment")) for s in streams]
        t201, _ = await loop.run_in_executor(None, post, conn, article, token, f"fan {i}")
        arrivals = await asyncio.wait_for(asyncio.gather(*waiters), 60)
        out.append((max(at for at, _ in arrivals) - t201) * 1000)
    return out


async def idle_span(pid, sock, seconds):
    """After 2 s to settle: RSS, then CPU and Redis commands over `seconds` of nothing."""
    await asyncio.sleep(2)
    rss = rss_kib(pid)
    c0, r0 = cpu_s(pid), redis_commands(sock)
    await asyncio.sleep(seconds)
    c1, r1 = cpu_s(pid), redis_commands(sock)
    return {"rss_kib": rss, "cpu_pct": round((c1 - c0) / seconds * 100, 2),
            "redis_commands_per_s": round((r1 - r0) / seconds, 1)}


async def measure(a, b, sock, args, token, idle_article, hot_article):
    result = {"streams": args.streams, "idle_s": args.idle}
    result["baseline"] = await idle_span(b.proc.pid, sock, args.idle)  # no stream open
    start = time.monotonic()
    streams = await open_many(b.port, f"/api/v1/articles/{idle_article}/events", args.streams)
    result["open_s"] = round(time.monotonic() - start, 1)
    result["open"] = await idle_span(b.proc.pid, sock, args.idle)
    result["rss_per_stream_bytes"] = round(
        (result["open"]["rss_kib"] - result["baseline"]["rss_kib"]) * 1024 / args.streams)
    gaps = await latency(a, b.port, hot_article, token, args.comments)
    result["event_after_201_ms"] = {
        "n": len(gaps), "p50": round(percentile(gaps, 50), 2), "p99": round(percentile(gaps, 99), 2),
        "max": round(max(gaps), 2), "mean": round(statistics.mean(gaps), 2)}
    if args.fanout > 0:
        fan = await fanout(a, streams, idle_article, token, args.fanout)
        result["fanout_last_reader_ms"] = {
            "readers": len(streams), "n": len(fan), "p50": round(percentile(fan, 50), 1),
            "max": round(max(fan), 1)}
    for s in streams:
        s.close()
    return result


def main():
    ap = bench_args()
    ap.add_argument("--streams", type=int, default=10000)
    ap.add_argument("--idle", type=int, default=30)
    ap.add_argument("--comments", type=int, default=200)
    ap.add_argument("--fanout", type=int, default=20)
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if hard < args.streams + 256:
        raise SystemExit(f"open-file limit {hard} is below {args.streams} streams")
    caps = ["--live-streams", str(args.streams + 100), "--live-streams-per-address",
            str(args.streams + 100), "--max-connections", str(2 * args.streams + 500)]
    a = Server(args.bin, "off", caps)
    b = None
    try:
        data = os.path.join(a.dir, "data")
        sock = os.path.join(data, "redis", "redis.sock")
        b = Server(args.bin, "off", caps + ["--redis", "unix://" + sock, "--database",
                                            "sqlite://" + os.path.join(data, "plaudit.db")])
        admin = a.login("benchadmin", "benchpassword")
        articles = [a.call("POST", "/articles", {"title": f"live {i}", "content": "c",
                                                 "status": "published"}, admin)["id"]
                    for i in range(2)]
        result = asyncio.run(measure(a, b, sock, args, admin, articles[0], articles[1]))
        result["instances"] = 2
        emit(result, args.json)
    finally:
        if b:
            b.stop()
        a.stop()


if __name__ == "__main__":
    main()
