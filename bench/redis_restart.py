#!/usr/bin/env python3
"""What clients see while plauditd's embedded Redis is killed and restarted (issue 41, items
7 and 8): starts plauditd on a fresh data dir, fills its Redis with KEYS keys (through one
script call), rewrites the AOF, kills the redis-server child with SIGKILL, and then reads
GET /api/v1/likes?article=1 back to back until it has answered 200 for a second: the status
codes seen, their messages, and how long the non-200 answers lasted.

    python3 bench/redis_restart.py build/plauditd [KEYS]      (default 3,000,000)
"""
import collections
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    binary = sys.argv[1]
    keys = int(sys.argv[2]) if len(sys.argv) > 2 else 3_000_000
    with tempfile.TemporaryDirectory(prefix="plaudit-restart-") as tmp:
        data = os.path.join(tmp, "data")
        sock = os.path.join(data, "redis/redis.sock")
        port = free_port()
        log = open(os.path.join(tmp, "plauditd.log"), "w")
        server = subprocess.Popen([binary, "--data-dir", data, "--port", str(port),
                                   "--rate-limits", "off"], stdout=log, stderr=log)

        def cli(*args):
            return subprocess.run(["redis-cli", "-s", sock, *args], capture_output=True,
                                  text=True).stdout.strip()

        conn = http.client.HTTPConnection("127.0.0.1", port)

        def get(path):
            conn.request("GET", path)
            r = conn.getresponse()
            return r.status, r.read()

        try:
            deadline = time.time() + 20
            while time.time() < deadline:
                try:
                    if get("/readyz")[0] == 200:
                        break
                except OSError:
                    conn.close()
                time.sleep(0.05)
            cli("EVAL", f"for i=1,{keys} do redis.call('SET','pl:test:'..i,i) end return 1", "0")
            cli("BGREWRITEAOF")
            while "aof_rewrite_in_progress:0" not in cli("INFO", "persistence") or \
                    "aof_rewrite_scheduled:0" not in cli("INFO", "persistence"):
                time.sleep(0.1)
            memory = [l for l in cli("INFO", "memory").splitlines()
                      if l.startswith("used_memory_human")]
            pid = int(open(os.path.join(data, "redis/redis.pid")).read())
            os.kill(pid, signal.SIGKILL)
            killed = time.time()
            codes = collections.Counter()
            messages = collections.defaultdict(set)
            last_bad = None
            while time.time() - killed < 60:
                status, body = get("/api/v1/likes?article=1")
                codes[status] += 1
                if status != 200:
                    messages[status].add(json.loads(body)["error"]["message"])
                    last_bad = time.time()
                elif last_bad is not None and time.time() - last_bad > 1.0:
                    break
            print(f"{keys} keys, {memory[0] if memory else '?'}")
            print("statuses:", dict(codes))
            print("messages:", {k: sorted(v) for k, v in messages.items()})
            if last_bad is not None:
                print(f"non-200 answers for {last_bad - killed:.2f} s after the kill")
            print("healthz:", get("/healthz")[0])
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
        with open(os.path.join(tmp, "plauditd.log")) as f:
            for line in f:
                if "redis-server" in line and ("restart" in line or "killed" in line):
                    print(line.rstrip())


if __name__ == "__main__":
    main()
