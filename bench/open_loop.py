#!/usr/bin/env python3
"""Issue 50: plauditd at twice its measured capacity, with an open-loop client (loopback only).

  python3 bench/open_loop.py [build/plauditd] [seconds, default 10] [max-in-flight, default 4096]
                             [--pin]

Starts plauditd (embedded Redis + SQLite in a temp dir, rate limits off), signs up 200 users
and publishes an article with 20 comments, then for each of three routes, a like (PUT then
DELETE of the article's like, by the 200 users in turn), a comment page (GET of the article's
comments) and a comment write (POST of a new comment on a second article, by the 200 users in
turn), and for each of two connection counts, 64 and 4,096:
  1. capacity: build/bench_open_loop at a rate far above what plauditd can answer through that
     many connections: what it answers a second is the capacity (the client's queue drops the
     rest);
  2. twice that: the same client at 2x that capacity through the same number of connections,
     each request due at its time whatever the answers (wrk would slow down with the server):
     goodput (2xx a second) against the capacity, the 503s a second, and the latency
     percentiles of each, counted from when a request fell due, and of the 2xx from when it
     was sent (the server's part).
Loopback drops packets when a core's input backlog (net.core.netdev_max_backlog, 1,000 by
default) overflows, and each drop costs a TCP retransmission timeout (0.2 s, doubling: the
6 s tails of the first runs); the script raises the backlog to 16,384 while it runs when it
may (root), puts it back after, and prints the retransmitted segments of each run.
Capacity depends on the connection count (more connections, more cache misses a request), so
each 2x run is judged against the capacity through as many connections; the 64-connection
capacity is printed beside it.
Without --pin the client runs on the same 2 cores as plauditd and its Redis, and takes a share
of them that grows with the load it makes; with --pin plauditd, its Redis child and this script
run on CPU 0 and the client alone on CPU 1, so the capacity and the 2x run are both the server's
on one core. Prints one line per figure; docs/reliability.md quotes them. Then draws them into
docs/open-loop.png (OPEN_LOOP_CHART=FILE elsewhere; gnuplot): for each route and connection count,
the goodput at 2x against the capacity (dashed: the 80% asked for) and the admitted p99 from send.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from charts import bars  # noqa: E402
from flood import rss_mb, start, stop  # noqa: E402
from overload import call  # noqa: E402

PIN = "--pin" in sys.argv
ARGS = [a for a in sys.argv[1:] if a != "--pin"]
BIN = ARGS[0] if len(ARGS) > 0 else "build/plauditd"
SECONDS = int(ARGS[1]) if len(ARGS) > 1 else 10
MAX_IN_FLIGHT = int(ARGS[2]) if len(ARGS) > 2 else 4096
LOADER = os.path.join(os.path.dirname(os.path.abspath(BIN)), "bench_open_loop")


def open_files():
    """The loader's soft open-file limit raised to the hard one (its 4,096 connections)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if PIN:
        os.sched_setaffinity(0, {1})


BACKLOG = "/proc/sys/net/core/netdev_max_backlog"


def retransmitted():
    """TCP segments retransmitted since boot (/proc/net/snmp)."""
    with open("/proc/net/snmp") as f:
        tcp = [line.split() for line in f if line.startswith("Tcp:")]
    return int(tcp[1][tcp[0].index("RetransSegs")])


def load(port, rate, connections, route):
    args = [LOADER, "--port", str(port), "--rate", str(int(rate)), "--seconds", str(SECONDS),
            "--connections", str(connections)] + route
    before = retransmitted()
    out = subprocess.run(args, capture_output=True, text=True, check=True, preexec_fn=open_files)
    result = json.loads(out.stdout)
    result["retransmitted"] = retransmitted() - before
    return result


def line(name, r):
    return (f"{name}: due {r['due'] / r['seconds']:,.0f}/s, 2xx {r['goodput']:,.0f}/s "
            f"(p50 {r['ok_p50_ms']:.1f} ms, p99 {r['ok_p99_ms']:.1f} ms; from send p50 "
            f"{r['ok_sent_p50_ms']:.1f} ms, p99 {r['ok_sent_p99_ms']:.1f} ms), 503 "
            f"{r['shed'] / r['seconds']:,.0f}/s (p50 {r['shed_p50_ms']:.1f} ms, p99 "
            f"{r['shed_p99_ms']:.1f} ms), other {r['other']}, errors {r['errors']}, dropped "
            f"{r['dropped']}, {r['connections']} connections, {r['retransmitted']} TCP "
            f"segments retransmitted")


def chart(rows):
    out = os.environ.get("OPEN_LOOP_CHART") or os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "open-loop.png")
    why = bars(out, f"bench/open_loop.py{' --pin' if PIN else ''}, {SECONDS} s a run, "
                    f"{time.strftime('%Y-%m-%d')}", [r[0] for r in rows],
               [("goodput at 2x capacity, % of capacity (dashed: 80%)", [r[1] for r in rows], 80,
                 False),
                ("admitted p99 from send at 2x (ms)", [r[2] for r in rows], None, True)])
    print(why or f"chart: {out}")


def main():
    if not os.path.exists(LOADER):
        raise SystemExit(f"{LOADER} is missing: cmake --build build --target bench_open_loop")
    if PIN:
        os.sched_setaffinity(0, {0})  # inherited by plauditd and its redis-server child
    backlog = None
    try:
        with open(BACKLOG) as f:
            backlog = f.read().strip()
        with open(BACKLOG, "w") as f:
            f.write("16384")
    except OSError:
        print(f"{BACKLOG} stays {backlog}: retransmission timeouts may add seconds to tails")
        backlog = None
    try:
        run()
    finally:
        if backlog is not None:
            with open(BACKLOG, "w") as f:
                f.write(backlog)


def run():
    p, port, d = start(["--rate-limits", "off", "--password-hash", "minimal",
                        "--max-in-flight", str(MAX_IN_FLIGHT)])
    try:
        admin = call(port, "POST", "/api/v1/sessions",
                     {"username": "admin", "password": "admin-password"})["token"]
        article = call(port, "POST", "/api/v1/articles",
                       {"title": "Open loop", "content": "<p>x</p>", "status": "published"},
                       admin)["id"]
        tokens = []
        for i in range(200):
            call(port, "POST", "/api/v1/users", {"username": f"reader{i}", "password": "password123"})
            tokens.append(call(port, "POST", "/api/v1/sessions",
                               {"username": f"reader{i}", "password": "password123"})["token"])
        for i in range(20):
            call(port, "POST", f"/api/v1/articles/{article}/comments", {"body": f"comment {i}"},
                 tokens[i])
        thread = call(port, "POST", "/api/v1/articles",
                      {"title": "Open loop writes", "content": "<p>x</p>", "status": "published"},
                      admin)["id"]
        with tempfile.NamedTemporaryFile("w", suffix=".tokens", delete=False) as f:
            f.write("\n".join(tokens) + "\n")
            token_file = f.name
        routes = {
            "like": ["--method", "PUT", "--alternate", "DELETE", "--tokens", token_file,
                     "--target", f"/api/v1/articles/{article}/like"],
            "comment page": ["--method", "GET", "--target",
                             f"/api/v1/articles/{article}/comments?size=20"],
            "comment write": ["--method", "POST", "--tokens", token_file, "--target",
                              f"/api/v1/articles/{thread}/comments",
                              "--body", '{"body": "open loop {n}"}'],
        }
        print(f"plauditd --max-in-flight {MAX_IN_FLIGHT}, {SECONDS} s a run"
              + (", server on CPU 0, client on CPU 1" if PIN else ", client and server share the cores"))
        rows = []
        for name, route in routes.items():
            load(port, 200, 64, route)  # warm caches and connections
            first = None
            for connections in (64, 4096):
                cap = load(port, 200_000, connections, route)
                capacity = cap["goodput"]
                first = first or capacity
                print(line(f"{name}, capacity ({connections} connections)", cap))
                twice = load(port, 2 * capacity, connections, route)
                print(line(f"{name}, at 2x capacity ({2 * capacity:,.0f}/s due)", twice))
                print(f"{name}, {connections} connections: goodput {twice['goodput'] / capacity:.0%} "
                      f"of capacity through as many ({twice['goodput'] / first:.0%} of the "
                      f"64-connection capacity); admitted p99 from send "
                      f"{twice['ok_sent_p99_ms']:.1f} ms; RSS {rss_mb(p.pid):.0f} MB", flush=True)
                rows.append((f"{name}, {connections:,} conns", 100 * twice["goodput"] / capacity,
                             twice["ok_sent_p99_ms"]))
        chart(rows)
    finally:
        stop(p, d)


if __name__ == "__main__":
    main()
