#!/usr/bin/env python3
"""Issue 44's figure: what notifications cost a comment write (goal: within 10%).

  python3 bench/notifications.py [--bin build/plauditd] [--duration 10] [--connections 64]
                                 [--rounds 3] [--json FILE]

Two fresh plauditd (embedded Redis + SQLite in a temp dir, as bench/moderation.py starts them),
seeded the same way (200 users with a session each, an article by a moderator); one with
notifications off, one with --smtp (a real SMTP server: tests/notify/smtp_sink.py on loopback)
and a --webhook (tests/notify/webhook_sink.py). On the second the article's author has a
verified address, so every comment causes an event row in its transaction, a webhook POST and
an article-author notice (gathered into one mail a minute), all delivered by the worker while
the load runs. Then wrk with bench/wrk/comment_create.lua (-t1 -cN) on each, alternating
off/on for --rounds rounds (the disk's fsync rate moves; alternation spreads that over both),
with the disk's fsync rate in the data dir beside each run.

Prints the JSON (and writes it to --json): each run's req/s and p99, the medians, on/off, the
webhooks and mails received during the on runs, and the outbox depth after them.
"""
import base64
import glob
import http.client
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from moderation import ROOT, Server, bench_args, emit, fsync_rate, seed, wrk  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(script, port, directory):
    log = open(os.path.join(directory, os.path.basename(script) + ".log"), "w+")
    p = subprocess.Popen(["/usr/bin/python3", os.path.join(ROOT, script), "--port", str(port),
                          "--dir", directory], stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        log.seek(0)
        if "listening" in log.read():
            return p
        time.sleep(0.05)
    raise SystemExit(f"{script} did not start")


def verify_author(s, token, mail_dir):
    s.call("PATCH", "/users/me", {"email": "author@bench.example"}, token)
    for _ in range(200):  # the worker's 5 s tick mails the link
        for path in glob.glob(os.path.join(mail_dir, "*.eml")):
            text = open(path, encoding="utf-8", errors="replace").read()
            m = re.search(r"^Content-Transfer-Encoding: base64\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)",
                          text, re.M)
            body = base64.b64decode(m.group(1)).decode()
            token_m = re.search(r"confirm\?token=([A-Za-z0-9_-]+)", body)
            s.call("POST", "/users/me/email/verify", {"token": token_m.group(1)}, token)
            return
        time.sleep(0.1)
    raise SystemExit("no verification mail")


def main():
    ap = bench_args()
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="plaudit-notifybench-")
    mail_dir, hook_dir = os.path.join(work, "mail"), os.path.join(work, "hooks")
    os.makedirs(mail_dir)
    os.makedirs(hook_dir)
    smtp_port, hook_port = free_port(), free_port()
    sinks = [start("tests/notify/smtp_sink.py", smtp_port, mail_dir),
             start("tests/notify/webhook_sink.py", hook_port, hook_dir)]
    notify = ["--smtp", f"smtp://127.0.0.1:{smtp_port}", "--mail-from", "Bench <b@bench.example>",
              "--public-url", "https://comments.bench.example",
              "--webhook", f"http://127.0.0.1:{hook_port}/hook",
              "--webhook-secret", "bench-webhook-secret-0123456789"]
    servers = {}
    result = {"duration_s": args.duration, "connections": args.connections, "runs": []}
    try:
        for mode, extra in (("off", []), ("on", notify)):
            s = Server(args.bin, "off", extra)
            author_token, article, tokens = seed(s, 200)
            tokens_file = os.path.join(work, f"tokens-{mode}.txt")
            with open(tokens_file, "w") as f:
                f.write("\n".join(tokens) + "\n")
            if mode == "on":
                verify_author(s, author_token, mail_dir)
            env = {"BENCH_WRK_DIR": os.path.join(ROOT, "bench/wrk"),
                   "BENCH_TOKENS": tokens_file, "BENCH_CREATE_ID": str(article)}
            servers[mode] = (s, env)
        hooks_before = len(glob.glob(os.path.join(hook_dir, "*.json")))
        for _ in range(args.rounds):
            for mode in ("off", "on"):
                s, env = servers[mode]
                disk = fsync_rate(s.dir)
                row = wrk(s.port, "comment_create.lua", args.duration, args.connections, env)
                row.update(mode=mode, fsync_per_s=disk)
                result["runs"].append(row)
        time.sleep(6)  # the worker's tick: what the on runs caused is delivered meanwhile
        med = {m: statistics.median(r["rps"] for r in result["runs"] if r["mode"] == m)
               for m in ("off", "on")}
        result["median_rps"] = med
        result["on_over_off"] = round(med["on"] / med["off"], 3) if med["off"] else None
        result["webhooks_received"] = len(glob.glob(os.path.join(hook_dir, "*.json"))) - hooks_before
        result["mails_received"] = len(glob.glob(os.path.join(mail_dir, "*.eml")))
        s, _ = servers["on"]
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=30)
        c.request("GET", "/metrics")
        metrics = c.getresponse().read().decode()
        depth = re.search(r"^plaudit_outbox_depth (\S+)", metrics, re.M)
        result["outbox_depth_after"] = float(depth.group(1)) if depth else None
    finally:
        for s, _ in servers.values():
            s.stop()
        for p in sinks:
            p.terminate()
        shutil.rmtree(work, ignore_errors=True)
    emit(result, args.json)


if __name__ == "__main__":
    main()
