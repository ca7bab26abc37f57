#!/usr/bin/env python3
"""Issue 49's import figure: a generated Disqus export of --comments comments (default
1,000,000) imported by `plauditd import --from disqus` into a new data dir (SQLite, embedded
Redis), with its time and peak RSS; the reference is the same file's `--dry-run` (the reading
pass alone) and the file's size.

  python3 bench/import_disqus.py [--bin build/plauditd] [--comments 1000000] [--threads 10000]
                                 [--keep DIR] [--json FILE]

The file (seeded): --threads threads on https://bench.example/p/<n>, a tenth of them the
http:// twin of another (merged by --site); comments spread over threads by a Zipf
law, a third top-level, the rest replies to a random earlier comment of their thread (chains of
any depth), 1% spam, 1% deleted, bodies of 20-400 bytes of HTML in CDATA. Peak RSS is the
plauditd process's own (VmHWM, polled), and the embedded redis-server's is reported apart (it
holds the comment cache the import fills). Prints the JSON (and writes it to --json).
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

WORDS = ("the quick brown fox jumps over a lazy dog while readers comment on every post "
         "about databases caches redis sqlite and other things worth a long thread").split()


def generate(path, comments, threads, seed=49):
    rng = random.Random(seed)
    weights = [1.0 / (i + 1) for i in range(threads)]
    with open(path, "w", encoding="utf-8") as f:
        f.write('<?xml version="1.0" encoding="utf-8"?>\n<disqus xmlns="http://disqus.com" '
                'xmlns:dsq="http://disqus.com/disqus-internals">\n')
        for t in range(threads):
            # A tenth are the http:// twin of the thread before (one page under --site).
            link = (f"http://bench.example/p/{t - 1}" if t % 10 == 9
                    else f"https://bench.example/p/{t}")
            f.write(f'<thread dsq:id="t{t}"><id/><link>{link}</link>'
                    f'<title>Post {t}</title><createdAt>2020-01-01T00:00:00Z</createdAt>'
                    '<isDeleted>false</isDeleted></thread>\n')
        by_thread = {}
        picks = rng.choices(range(threads), weights=weights, k=comments)
        for i, t in enumerate(picks):
            earlier = by_thread.setdefault(t, [])
            parent = ""
            if earlier and rng.random() < 0.67:
                parent = f'<parent dsq:id="c{rng.choice(earlier)}"/>'
            earlier.append(i)
            n = rng.randint(4, 70)
            body = " ".join(rng.choice(WORDS) for _ in range(n))
            spam = "true" if rng.random() < 0.01 else "false"
            deleted = "true" if rng.random() < 0.01 else "false"
            f.write(f'<post dsq:id="c{i}"><id/><message><![CDATA[<p>{body}</p>]]></message>'
                    f'<createdAt>2021-01-01T00:00:{i % 60:02d}Z</createdAt>'
                    f'<isDeleted>{deleted}</isDeleted><isSpam>{spam}</isSpam>'
                    f'<author><name>Reader {i % 5000}</name><isAnonymous>true</isAnonymous>'
                    f'</author><thread dsq:id="t{t}"/>{parent}</post>\n')
        f.write("</disqus>\n")


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def timed(cmd):
    """Runs cmd; its wall time, plauditd's own peak RSS (VmHWM, polled: the embedded
    redis-server is its child, and /usr/bin/time -v would report that child's peak when it is
    the larger) and the embedded Redis's largest RSS seen."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    own = redis = 0
    out_parts, err_parts = [], []
    import threading
    readers = [threading.Thread(target=lambda: out_parts.append(proc.stdout.read())),
               threading.Thread(target=lambda: err_parts.append(proc.stderr.read()))]
    for r in readers:
        r.start()
    while proc.poll() is None:
        own = max(own, status_kib(proc.pid, "VmHWM"))
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True,
                                  text=True).stdout.split()
        for child in children:
            redis = max(redis, status_kib(child, "VmRSS"))
        time.sleep(0.1)
    for r in readers:
        r.join()
    wall = time.monotonic() - started
    stdout, stderr = "".join(out_parts), "".join(err_parts)
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{stdout[-2000:]}\n"
                 f"{stderr[-3000:]}")
    return {"seconds": round(wall, 1), "peak_rss_mib": round(own / 1024, 1),
            "redis_rss_mib": round(redis / 1024, 1), "stdout": stdout, "stderr": stderr}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/plauditd")
    ap.add_argument("--comments", type=int, default=1_000_000)
    ap.add_argument("--threads", type=int, default=10_000)
    ap.add_argument("--keep")
    ap.add_argument("--json")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="plaudit-import-bench-")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "disqus.xml")
    started = time.monotonic()
    generate(path, args.comments, args.threads)
    made = time.monotonic() - started
    site = ["--sites", "https://bench.example", "--site", "https://bench.example",
            "--password-hash", "minimal"]
    data = os.path.join(work, "data")
    shutil.rmtree(data, ignore_errors=True)
    dry = timed([args.bin, "import", "--from", "disqus", path, "--data-dir", data, "--dry-run"]
                + site)
    full = timed([args.bin, "import", "--from", "disqus", path, "--data-dir", data] + site)
    again = timed([args.bin, "import", "--from", "disqus", path, "--data-dir", data] + site)
    result = {
        "comments": args.comments,
        "threads": args.threads,
        "file_mib": round(os.path.getsize(path) / 2**20, 1),
        "generated_seconds": round(made, 1),
        "plan": dry["stdout"].splitlines()[:3],
        "dry_run": {k: dry[k] for k in ("seconds", "peak_rss_mib")},
        "import": {k: full[k] for k in ("seconds", "peak_rss_mib", "redis_rss_mib")},
        "import_log": [l for l in full["stderr"].splitlines() if "imported:" in l],
        "again": {k: again[k] for k in ("seconds", "peak_rss_mib", "redis_rss_mib")},
        "again_log": [l for l in again["stderr"].splitlines() if "imported:" in l],
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
