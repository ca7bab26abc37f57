#!/usr/bin/env python3
"""Issue 50: plauditd at twice its measured capacity, with an open-loop client (loopback only).

  python3 bench/open_loop.py [build/plauditd] [seconds, default 10] [max-in-flight, default 4096]

Starts plauditd (embedded Redis + SQLite in a temp dir, rate limits off), signs up 200 users
and publishes an article with 20 comments, then for each of two routes, a like (PUT then
DELETE of the article's like, by the 200 users in turn) and a comment page (GET of the
article's comments):
  1. capacity: build/bench_open_loop at a rate far above what plauditd can answer through 64
     connections: what it answers a second is the capacity (the queue drops the rest);
  2. twice that: the same client at 2x the capacity with up to 4,096 connections, each request
     due at its time whatever the answers (wrk would slow down with the server): goodput (2xx
     a second) against the capacity, the 503s a second, and the latency percentiles of each,
     counted from when a request fell due.
The client runs on the same 2 cores as plauditd and its Redis. Prints one line per figure;
docs/reliability.md quotes them.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flood import rss_mb, start, stop  # noqa: E402
from overload import call  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/plauditd"
SECONDS = int(sys.argv[2]) if len(sys.argv) > 2 else 10
MAX_IN_FLIGHT = int(sys.argv[3]) if len(sys.argv) > 3 else 4096
LOADER = os.path.join(os.path.dirname(os.path.abspath(BIN)), "bench_open_loop")


def open_files():
    """The loader's soft open-file limit raised to the hard one (its 4,096 connections)."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def load(port, rate, connections, route):
    args = [LOADER, "--port", str(port), "--rate", str(int(rate)), "--seconds", str(SECONDS),
            "--connections", str(connections)] + route
    out = subprocess.run(args, capture_output=True, text=True, check=True, preexec_fn=open_files)
    return json.loads(out.stdout)


def line(name, r):
    return (f"{name}: due {r['due'] / r['seconds']:,.0f}/s, 2xx {r['goodput']:,.0f}/s "
            f"(p50 {r['ok_p50_ms']:.1f} ms, p99 {r['ok_p99_ms']:.1f} ms), 503 "
            f"{r['shed'] / r['seconds']:,.0f}/s (p50 {r['shed_p50_ms']:.1f} ms, p99 "
            f"{r['shed_p99_ms']:.1f} ms), other {r['other']}, errors {r['errors']}, dropped "
            f"{r['dropped']}, {r['connections']} connections")


def main():
    if not os.path.exists(LOADER):
        raise SystemExit(f"{LOADER} is missing: cmake --build build --target bench_open_loop")
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
        with tempfile.NamedTemporaryFile("w", suffix=".tokens", delete=False) as f:
            f.write("\n".join(tokens) + "\n")
            token_file = f.name
        routes = {
            "like": ["--method", "PUT", "--alternate", "DELETE", "--tokens", token_file,
                     "--target", f"/api/v1/articles/{article}/like"],
            "comment page": ["--method", "GET", "--target",
                             f"/api/v1/articles/{article}/comments?size=20"],
        }
        print(f"plauditd --max-in-flight {MAX_IN_FLIGHT}, {SECONDS} s a run")
        for name, route in routes.items():
            load(port, 2000, 64, route)  # warm caches and connections
            cap = load(port, 200_000, 64, route)
            capacity = cap["goodput"]
            print(line(f"{name}, capacity (64 connections)", cap))
            twice = load(port, 2 * capacity, 4096, route)
            print(line(f"{name}, at 2x capacity ({2 * capacity:,.0f}/s due)", twice))
            print(f"{name}: goodput {twice['goodput'] / capacity:.0%} of capacity; "
                  f"RSS {rss_mb(p.pid):.0f} MB")
    finally:
        stop(p, d)


if __name__ == "__main__":
    main()
