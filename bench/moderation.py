#!/usr/bin/env python3
"""Issue 42's figures: what moderation costs a comment write, and whether the page cache still
serves while a moderator approves comments of the same thread.

  python3 bench/moderation.py [--bin build/plauditd] [--duration 10] [--connections 64]
                              [--json FILE]

For each policy (`off`, then `first`) a fresh plauditd (embedded Redis + SQLite in a temp dir,
as bench/run.sh starts it: --rate-limits off, minimal password hash), seeded through the API
(200 users with a session each, an article to write on); then wrk with bench/wrk/comment_create.lua
(-t1 -cN, the same script as make bench's comment_create row). Under `first` no writer has an
approved comment, so every post is held: its verdict reads SQL once more (has the writer an
approved comment?) and the row goes in as pending.

Then, on the `first` instance: a page of 20 approved top-level comments × 3 replies, and 4,000
pending comments on the same article; wrk with bench/wrk/comment_page_anon.lua alone, then the
same while one moderator approves those pending comments one id per request: paced at
--approve-rate a second (10: a busy human), then as fast as one keep-alive connection goes (each
approval moves the thread's version: every cached page of the thread is stale at once). Reported: req/s and p99 of both runs, approvals/s, and the page
cache's hits and misses over each run (plaudit_page_cache_lookups_total).

A reference in the same run: the disk's fsync rate in the data dir (bench/lib/references.sh
measures it the same way for make bench), so comment_create reads as a ratio of it.
Prints the JSON (and writes it to --json); bench/run.sh (step 9) puts it in docs/benchmarks.md.
"""
import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Server:
    def __init__(self, binary, policy, extra=()):
        self.dir = tempfile.mkdtemp(prefix="plaudit-modbench-")
        self.log = open(os.path.join(self.dir, "log"), "w+")
        self.proc = subprocess.Popen(
            [binary, "serve", "--port", "0", "--data-dir", os.path.join(self.dir, "data"),
             "--rate-limits", "off", "--password-hash", "minimal", "--moderation", policy,
             "--bootstrap-admin", "benchadmin:benchpassword", *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.port = None
        for _ in range(400):
            self.log.seek(0)
            m = re.search(r"listening on http://[^\s:]+:(\d+)", self.log.read())
            if m:
                self.port = int(m.group(1))
                break
            time.sleep(0.05)
        if not self.port:
            self.log.seek(0)
            raise SystemExit("plauditd did not start:\n" + self.log.read())
        self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def call(self, method, path, body=None, token=None, expect=(200, 201, 204)):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        self.conn.request(method, "/api/v1" + path, json.dumps(body) if body is not None else None,
                          headers)
        r = self.conn.getresponse()
        data = r.read()
        if r.status not in expect:
            raise SystemExit(f"{method} {path}: {r.status} {data[:300]!r}")
        return json.loads(data) if data else None

    def login(self, user, password):
        return self.call("POST", "/sessions", {"username": user, "password": password})["token"]

    def lookups(self):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        c.request("GET", "/metrics")
        text = c.getresponse().read().decode()
        out = {}
        for m in re.finditer(r'plaudit_page_cache_lookups_total\{result="(\w+)"\} (\S+)', text):
            out[m.group(1)] = float(m.group(2))
        return out

    def stop(self):
        self.proc.terminate()
        # A stop runs the last flush, which retries cache repairs that failed under the load:
        # each rebuilds the thread (tens of thousands of comments after a long write run), one
        # by one, so a stop can take a minute here (noted for issue 47).
        self.proc.wait(timeout=180)
        shutil.rmtree(self.dir, ignore_errors=True)


def seed(s, users):
    admin = s.login("benchadmin", "benchpassword")
    author = s.call("POST", "/users", {"username": "bench", "password": "bench-password"})["id"]
    s.call("PATCH", f"/users/{author}", {"role": "moderator"}, admin)
    author_token = s.login("bench", "bench-password")
    article = s.call("POST", "/articles", {"title": "moderation bench", "content": "c",
                                           "status": "published"}, author_token)["id"]
    tokens = []
    for i in range(users):
        name, pw = f"benchuser{i}", f"bench-password-{i}"
        s.call("POST", "/users", {"username": name, "password": pw})
        tokens.append(s.login(name, pw))
    return author_token, article, tokens


def wrk(port, script, duration, connections, env):
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--latency", "-s",
         os.path.join(ROOT, "bench/wrk", script), f"http://127.0.0.1:{port}"],
        env={**os.environ, **env}, capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+(\S+)", out).group(1))
    p99 = re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1)
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return {"rps": round(rps), "p99": p99, "errors": int(bad.group(1)) if bad else 0}


def fsync_rate(directory, seconds=1.0):
    path = os.path.join(directory, "fsync-probe")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    n, start = 0, time.monotonic()
    while n < 2000 and time.monotonic() - start < seconds:
        os.write(fd, b"x" * 100)
        os.fsync(fd)
        n += 1
    elapsed = time.monotonic() - start
    os.close(fd)
    os.unlink(path)
    return round(n / elapsed)


def bench_args():
    """The options every bench script here takes (its own are added by the caller)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/plauditd"))
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--connections", type=int, default=64)
    ap.add_argument("--json")
    return ap


def emit(result, path):
    """Prints the result as JSON, and writes it to `path` when given (bench/run.sh reads it)."""
    text = json.dumps(result, indent=1)
    print(text)
    if path:
        with open(path, "w") as f:
            f.write(text)


def main():
    ap = bench_args()
    ap.add_argument("--approve-rate", type=int, default=10,
                    help="approvals a second in the paced run (a busy human moderator)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="plaudit-modbench-work-")
    result = {"duration_s": args.duration, "connections": args.connections, "create": {}}
    try:
        for policy in ("off", "first"):
            s = Server(args.bin, policy)
            try:
                mod_token, article, tokens = seed(s, 200)
                tokens_file = os.path.join(work, "tokens.txt")
                with open(tokens_file, "w") as f:
                    f.write("\n".join(tokens) + "\n")
                env = {"BENCH_WRK_DIR": os.path.join(ROOT, "bench/wrk"),
                       "BENCH_TOKENS": tokens_file, "BENCH_CREATE_ID": str(article)}
                disk = fsync_rate(s.dir)
                row = wrk(s.port, "comment_create.lua", args.duration, args.connections, env)
                row["fsync_per_s"] = disk
                row["ratio_to_fsync"] = round(row["rps"] / disk, 2) if disk else None
                held = s.call("GET", "/moderation/comments?status=pending&size=1", token=mod_token)
                row["held"] = bool(held["items"])
                result["create"][policy] = row
                if policy == "first":
                    result["page"] = page_while_approving(s, mod_token, tokens, env, args)
            finally:
                s.stop()
        first, off = result["create"]["first"], result["create"]["off"]
        result["create"]["first_over_off"] = round(first["rps"] / off["rps"], 2) if off["rps"] else None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(result, args.json)


def approving_run(s, mod_token, pending, rate, env, args):
    """comment_page_anon while one moderator approves `pending` one id per request: `rate` a
    second (0: as fast as one keep-alive connection goes)."""
    stop = threading.Event()
    approved = [0]

    def approve():
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
        headers = {"Content-Type": "application/json", "Authorization": "Bearer " + mod_token}
        start = time.monotonic()
        for i, cid in enumerate(pending):
            if stop.is_set():
                break
            if rate:  # a bench, not a test: pacing by the clock is the point
                delay = start + i / rate - time.monotonic()
                if delay > 0:
                    stop.wait(delay)
            c.request("POST", "/api/v1/moderation/comments",
                      json.dumps({"ids": [cid], "action": "approve"}), headers)
            r = c.getresponse()
            r.read()
            if r.status == 200:
                approved[0] += 1

    before = s.lookups()
    t = threading.Thread(target=approve)
    started = time.monotonic()
    t.start()
    during = wrk(s.port, "comment_page_anon.lua", args.duration, args.connections, env)
    stop.set()
    t.join()
    elapsed = time.monotonic() - started
    after = s.lookups()
    during["cache_hits"] = int(after.get("hit", 0) - before.get("hit", 0))
    during["cache_misses"] = int(after.get("miss", 0) - before.get("miss", 0))
    during["approvals"] = approved[0]
    during["approvals_per_s"] = round(approved[0] / elapsed)
    return during


def page_while_approving(s, mod_token, tokens, env, args):
    page = s.call("POST", "/articles", {"title": "page under moderation", "content": "c",
                                        "status": "published"}, mod_token)["id"]
    # 20 approved top-level comments × 3 replies: a moderator's comments are never held.
    for i in range(20):
        top = s.call("POST", f"/articles/{page}/comments", {"body": f"top {i}"}, mod_token)["id"]
        for j in range(3):
            s.call("POST", f"/articles/{page}/comments",
                   {"body": f"reply {i}.{j}", "parentId": top}, mod_token)
    pending = []
    for i in range(4000):
        c = s.call("POST", f"/articles/{page}/comments", {"body": f"held {i}"},
                   tokens[i % len(tokens)])
        pending.append(c["id"])
    env = {**env, "BENCH_PAGE_ID": str(page)}
    before = s.lookups()
    alone = wrk(s.port, "comment_page_anon.lua", args.duration, args.connections, env)
    mid = s.lookups()
    alone["cache_hits"] = int(mid.get("hit", 0) - before.get("hit", 0))
    alone["cache_misses"] = int(mid.get("miss", 0) - before.get("miss", 0))

    runs = {}
    rest = list(pending)
    for name, rate in (("paced", args.approve_rate), ("flat_out", 0)):
        runs[name] = approving_run(s, mod_token, rest, rate, env, args)
        rest = rest[runs[name]["approvals"]:]
        runs[name]["ratio_to_alone"] = (round(runs[name]["rps"] / alone["rps"], 2)
                                        if alone["rps"] else None)
    return {"alone": alone, "approve_rate": args.approve_rate, **runs}


if __name__ == "__main__":
    main()
