#!/usr/bin/env python3
"""Issue 50's overload and slow-client figures against the real plauditd, on loopback only.

  python3 bench/overload.py [build/plauditd] [seconds per phase, default 10]
  OVERLOAD_FLAGS="--max-in-flight 0" python3 bench/overload.py …   (plauditd flags to add)

Starts plauditd (embedded Redis + SQLite in a temp dir, rate limits off, --max-in-flight at its
default, 4096),
publishes one article, then measures, each phase beside a probe (one keep-alive client reading
the article list 50 times a second, its latencies kept apart for 200s and 503s) and plauditd's
RSS:
  0. unloaded:   the probe alone: the p99 the others are compared with.
  1. slowloris:  2,000 connections that each send a request's header one byte every 2 s.
  2. capacity:   wrk, 64 connections, GET of the article (a view counted: a Redis script per
                 request): the requests per second plauditd serves.
  3. flood:      wrk, 2,048 connections (half --max-in-flight) on the same route, each sending its
                 next request as soon as it has an answer (wrk ignores Retry-After): goodput
                 (200s per second) against the capacity, the shed 503s per second, the probe's
                 p99.
  4. headers:    100 connections sending 64 KiB headers (431, closed), 10 times a second.
  5. chunked:    200 connections with chunked bodies that never end, a chunk every 10 ms.
  6. pipelined:  8 connections each writing GETs back to back without reading, 1 MB at a time.
Prints one line per figure; docs/reliability.md quotes them. Then draws them into
docs/overload.png (OVERLOAD_CHART=FILE elsewhere; gnuplot): each phase's probe p99 against the
unloaded one, with the 2x line, and plauditd's RSS.
"""
import json
import os
import re
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from charts import bars  # noqa: E402
from flood import rss_mb, start, stop  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/plauditd"
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 10
FLOOD_CONNECTIONS = 2048
# wrk runs response() in each thread's own Lua state: each counts its own, and done() (in
# another state) sums them through thread:get (numbers only cross states).
STATUS_LUA = """
local threads = {}
setup = function(thread) table.insert(threads, thread) end
ok, shed, other = 0, 0, 0
response = function(status, headers, body)
  if status == 200 then ok = ok + 1 elseif status == 503 then shed = shed + 1
  else other = other + 1 end
end
done = function(summary, latency, requests)
  local sums = {ok = 0, shed = 0, other = 0}
  for _, t in ipairs(threads) do
    for k in pairs(sums) do sums[k] = sums[k] + t:get(k) end
  end
  io.write(string.format("status 200 %d\\nstatus 503 %d\\nstatus 0 %d\\n", sums.ok, sums.shed,
                         sums.other))
end
"""


def call(port, method, path, body, token=None):
    """One JSON request; its parsed answer (raises on an error status)."""
    import urllib.request
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                 data=json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


class Probe(threading.Thread):
    """One keep-alive client, 50 requests a second; latencies by status."""

    def __init__(self, port, path):
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.stop_flag = threading.Event()
        self.lat = {}
        self.errors = 0

    def run(self):
        import http.client
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self.stop_flag.is_set():
            t0 = time.perf_counter()
            try:
                conn.request("GET", self.path)
                r = conn.getresponse()
                r.read()
                self.lat.setdefault(r.status, []).append(time.perf_counter() - t0)
            except OSError:
                self.errors += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            time.sleep(max(0.0, 0.02 - (time.perf_counter() - t0)))

    def finish(self):
        self.stop_flag.set()
        self.join()
        return self

    def p99_ms(self, status=200):
        xs = sorted(self.lat.get(status, []))
        return xs[min(len(xs) - 1, int(len(xs) * 0.99))] * 1000 if xs else float("nan")

    def counts(self):
        return {s: len(v) for s, v in sorted(self.lat.items())}


def wrk(port, path, connections, seconds, script):
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "--latency", "-s",
                          script, f"http://127.0.0.1:{port}{path}"],
                         capture_output=True, text=True, check=True).stdout
    statuses = {int(s): int(n) for s, n in re.findall(r"^status (\d+) (\d+)$", out, re.M)}
    p99 = re.search(r"^\s+99%\s+(\S+)$", out, re.M).group(1)
    return statuses, p99


def phase(port, pid, probe_path, name, load, setup=None):
    """Runs `load()` (`load(setup())` with a setup, which runs before the probe starts: opening
    thousands of connections is not what is measured) beside a probe; returns the probe,
    plauditd's peak RSS meanwhile and what `load` returned."""
    if setup is not None:
        state = setup()
        inner = load
        load = lambda: inner(state)  # noqa: E731
    probe = Probe(port, probe_path)
    probe.start()
    peak = [rss_mb(pid)]
    stop_rss = threading.Event()

    def watch():
        while not stop_rss.wait(0.2):
            peak[0] = max(peak[0], rss_mb(pid))

    w = threading.Thread(target=watch, daemon=True)
    w.start()
    result = load()
    stop_rss.set()
    w.join()
    probe.finish()
    return probe, peak[0], result


def connections(port, count):
    socks = []
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port))
        s.setblocking(False)
        socks.append(s)
    return socks


def trickle(socks, seconds, period, chunk_for):
    """Every 10 ms, the connections whose turn it is (i % period == step % period) send
    chunk_for(i, step // period). Touches only those (the load generator must not be the
    load). Returns how many reads saw an answer."""
    count = len(socks)
    poller = select.poll()
    by_fd = {s.fileno(): s for s in socks}
    for fd in by_fd:
        poller.register(fd, select.POLLIN)
    end = time.time() + seconds
    step = 0
    answered = 0
    while time.time() < end:
        for i in range(step % period, count, period):
            data = chunk_for(i, step // period)
            if data:
                try:
                    socks[i].send(data)
                except OSError:
                    pass
        step += 1
        for fd, _ in poller.poll(0):
            try:
                if by_fd[fd].recv(65536):
                    answered += 1
                else:
                    poller.unregister(fd)
            except OSError:
                poller.unregister(fd)
        time.sleep(0.01)
    for s in socks:
        s.close()
    return answered


ROWS = []  # (phase, probe p99 ms, RSS MB), for the chart


def report(what, probe, base, rss, label):
    print(f"{what}: probe p99 {probe.p99_ms():.2f} ms = {probe.p99_ms() / base:.1f}x unloaded "
          f"({probe.counts()}), RSS {rss:.0f} MB")
    ROWS.append((label, probe.p99_ms(), rss))


def chart(base):
    out = os.environ.get("OVERLOAD_CHART") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "overload.png")
    labels = [r[0] for r in ROWS]
    why = bars(out, f"bench/overload.py, {SECONDS} s a phase, "
                    f"{time.strftime('%Y-%m-%d')} (unloaded probe p99 {base:.2f} ms)", labels,
               [("probe p99 / unloaded p99 (dashed: 2x)", [r[1] / base for r in ROWS], 2, True),
                ("plauditd RSS (MB)", [r[2] for r in ROWS], None, False)])
    print(why or f"chart: {out}")


def main():
    p, port, d = start(["--rate-limits", "off", "--password-hash", "minimal"] +
                       os.environ.get("OVERLOAD_FLAGS", "").split())
    try:
        token = call(port, "POST", "/api/v1/sessions",
                     {"username": "admin", "password": "admin-password"})["token"]
        article = call(port, "POST", "/api/v1/articles",
                       {"title": "Overload", "content": "<p>x</p>", "status": "published"},
                       token)["id"]
        path = f"/api/v1/articles/{article}"
        probe_path = "/api/v1/articles?size=20"
        with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
            f.write(STATUS_LUA)
            script = f.name

        probe, rss, _ = phase(port, p.pid, probe_path, "unloaded", lambda: time.sleep(SECONDS))
        base = probe.p99_ms()
        print(f"unloaded: probe p99 {base:.2f} ms ({probe.counts()}), RSS {rss:.0f} MB")
        ROWS.append(("unloaded", base, rss))

        def slowloris():
            head = b"GET /api/v1/articles HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 4000
            return lambda socks: trickle(socks, SECONDS, 200, lambda i, turn: head[turn:turn + 1])

        probe, rss, _ = phase(port, p.pid, probe_path, "slowloris", slowloris(),
                              lambda: connections(port, 2000))
        report("slowloris (2,000 connections, a byte every 2 s)", probe, base, rss, "slowloris")

        probe, rss, (st, p99) = phase(port, p.pid, probe_path, "capacity",
                                      lambda: wrk(port, path, 64, SECONDS, script))
        capacity = st.get(200, 0) / SECONDS
        print(f"capacity: {capacity:,.0f} req/s at 64 connections (wrk p99 {p99}), "
              f"statuses {st}; probe p99 {probe.p99_ms():.2f} ms, RSS {rss:.0f} MB")
        ROWS.append(("capacity (64 conns)", probe.p99_ms(), rss))

        probe, rss, (st, p99) = phase(port, p.pid, probe_path, "overload",
                                      lambda: wrk(port, path, FLOOD_CONNECTIONS, SECONDS, script))
        good = st.get(200, 0) / SECONDS
        shed = st.get(503, 0) / SECONDS
        print(f"{FLOOD_CONNECTIONS:,} connections: goodput {good:,.0f} req/s = {good / capacity:.0%} of capacity, "
              f"shed {shed:,.0f}/s (503), wrk p99 of all {p99}; probe p99 {probe.p99_ms():.2f} ms "
              f"for 200s, {probe.p99_ms(503):.2f} ms for 503s ({probe.counts()}), RSS {rss:.0f} MB")
        ROWS.append((f"flood ({FLOOD_CONNECTIONS:,} conns)", probe.p99_ms(), rss))

        def headers():
            big = (b"GET /api/v1/articles HTTP/1.1\r\nHost: x\r\n" +
                   b"".join(b"X-F%d: %s\r\n" % (k, b"b" * 1000) for k in range(64)) + b"\r\n")
            end = time.time() + SECONDS
            sent = 0
            while time.time() < end:
                conns = []
                for _ in range(100):
                    try:
                        s = socket.create_connection(("127.0.0.1", port), timeout=5)
                        conns.append(s)
                        s.sendall(big)  # refused (431) and closed after 16 KiB: may fail
                    except OSError:
                        pass
                for s in conns:
                    try:
                        s.recv(4096)
                    except OSError:
                        pass
                    s.close()
                    sent += 1
                time.sleep(0.1)  # 1,000 a second: an attack on memory, not a connect flood
            return sent

        probe, rss, sent = phase(port, p.pid, probe_path, "headers", headers)
        report(f"huge headers ({sent:,} connections of 64 KiB headers, 100 at a time)", probe, base,
               rss, "huge headers")

        def chunked():
            head = (b"POST " + path.encode() + b"/comments HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            return lambda socks: trickle(
                socks, SECONDS, 1, lambda i, turn: head if turn == 0 else b"10\r\n" + b"x" * 16 + b"\r\n")

        probe, rss, _ = phase(port, p.pid, probe_path, "chunked", chunked(),
                              lambda: connections(port, 200))
        report("endless chunked bodies (200 connections, 16 bytes every 10 ms)", probe, base, rss,
               "endless chunked")

        def pipelined():
            one = f"GET {probe_path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
            blob = one * (1_000_000 // len(one))
            stop_flag = threading.Event()

            def flood():
                s = socket.create_connection(("127.0.0.1", port))
                s.settimeout(1)
                while not stop_flag.is_set():
                    try:
                        s.sendall(blob)
                    except OSError:
                        break
                s.close()

            ts = [threading.Thread(target=flood, daemon=True) for _ in range(8)]
            for t in ts:
                t.start()
            time.sleep(SECONDS)
            stop_flag.set()
            for t in ts:
                t.join()

        probe, rss, _ = phase(port, p.pid, probe_path, "pipelined", pipelined)
        report("pipelined floods (8 connections writing without reading)", probe, base, rss,
               "pipelined floods")
        os.unlink(script)
        chart(base)
    finally:
        stop(p, d)


if __name__ == "__main__":
    main()
