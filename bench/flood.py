#!/usr/bin/env python3
"""Issue 41's floods against the real plauditd, on loopback only, bounded in count and time.

  python3 bench/flood.py [build/plauditd]

Starts plauditd (embedded Redis + SQLite in a temp dir, interactive Argon2id), then:
  1. bodies:      200 connections each sending a header for 1 MiB - 1 byte and then holding
                  back the last byte; RSS of plauditd before and while they wait.
  2. connections: 1,100 idle connections to a plauditd whose open-file limit is 1024 (soft
                  and hard: the cap is then its default, 1024 - 256 = 768); then /healthz from
                  a new client, 20 times, with its latency.
  3. sign-ups:    70 concurrent sign-ups from one address (and, with the per-address limit
                  off, from "many"); login latency from another address meanwhile.
Prints one line per figure; docs/security.md quotes them.
"""
import json
import resource
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

BIN = sys.argv[1] if len(sys.argv) > 1 else "build/plauditd"


def start(args, open_files=None):
    d = tempfile.mkdtemp(prefix="plaudit-flood-")
    log = open(os.path.join(d, "log"), "w+")

    def limit():
        if open_files:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    p = subprocess.Popen([BIN, "serve", "--port", "0", "--data-dir", os.path.join(d, "data"),
                          "--bootstrap-admin", "admin:admin-password"] + args,
                         stdout=log, stderr=subprocess.STDOUT, preexec_fn=limit)
    deadline = time.time() + 60
    port = None
    while time.time() < deadline and port is None:
        log.seek(0)
        for line in log.read().splitlines():
            if "listening on http://" in line:
                port = int(line.split("listening on http://")[1].split(":")[1].split()[0])
        time.sleep(0.05)
    if port is None:
        raise SystemExit("plauditd did not start")
    return p, port, d


def stop(p, d):
    p.terminate()
    try:
        p.wait(20)
    except subprocess.TimeoutExpired:
        p.kill()
    shutil.rmtree(d, ignore_errors=True)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def request(port, method, path, body=None, headers=None, timeout=10):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    t0 = time.time()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, time.time() - t0
    except urllib.error.HTTPError as e:
        return e.code, time.time() - t0
    except Exception:
        return 0, time.time() - t0


def bodies():
    p, port, d = start(["--rate-limits", "off"])
    try:
        before = rss_mb(p.pid)
        socks = []
        for _ in range(200):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"POST /api/v1/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                      b"\r\nContent-Length: 1048575\r\n\r\n")
            socks.append(s)
        chunk = b" " * 65536
        for _ in range(15):  # send 1 MiB - 1 byte's worth, except the last byte
            for s in socks:
                try:
                    s.sendall(chunk)
                except OSError:
                    pass
        time.sleep(1)
        during = rss_mb(p.pid)
        status, took = request(port, "GET", "/healthz")
        print(f"bodies: 200 x (1 MiB - 1) held: plauditd RSS {before:.0f} MB before, "
              f"{during:.0f} MB during; /healthz {status} in {took * 1000:.1f} ms")
        for s in socks:
            s.close()
    finally:
        stop(p, d)


def connections():
    p, port, d = start(["--rate-limits", "off"], open_files=1024)
    try:
        socks = []
        for _ in range(1100):
            try:
                socks.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            except OSError:
                break
        time.sleep(0.5)
        lat = []
        codes = []
        for _ in range(20):
            status, took = request(port, "GET", "/healthz", timeout=5)
            codes.append(status)
            lat.append(took)
        lat.sort()
        print(f"connections: {len(socks)} idle sockets open, ulimit -n 1024: /healthz "
              f"{codes.count(200)}/20 answered 200, median {lat[10] * 1000:.1f} ms, "
              f"max {lat[-1] * 1000:.1f} ms")
        for s in socks:
            s.close()
    finally:
        stop(p, d)


def signups(limit):
    args = [] if limit else ["--limit-signup-address", "off"]
    p, port, d = start(args + ["--trusted-proxies", "127.0.0.1"])
    try:
        request(port, "POST", "/api/v1/users", {"username": "reader", "password": "password123"},
                {"X-Forwarded-For": "198.51.100.1"})
        codes = []
        lock = threading.Lock()

        def one(i):
            src = "203.0.113.9" if limit else f"203.0.{i // 250}.{i % 250 + 1}"
            status, _ = request(port, "POST", "/api/v1/users",
                                {"username": f"bot{i}", "password": "password123"},
                                {"X-Forwarded-For": src}, timeout=30)
            with lock:
                codes.append(status)

        threads = [threading.Thread(target=one, args=(i,)) for i in range(70)]
        for t in threads:
            t.start()
        time.sleep(0.05)
        logins = []
        for _ in range(5):
            logins.append(request(port, "POST", "/api/v1/sessions",
                                  {"username": "reader", "password": "password123"},
                                  {"X-Forwarded-For": "198.51.100.1"}, timeout=30))
        for t in threads:
            t.join()
        ok = sum(1 for s, _ in logins if s == 201)
        worst = max(t for _, t in logins)
        what = "one address" if limit else "70 addresses (per-address limit off)"
        print(f"sign-ups from {what}: {codes.count(201)} created, {codes.count(429)} refused 429; "
              f"logins meanwhile {ok}/5 ok, slowest {worst * 1000:.0f} ms")
    finally:
        stop(p, d)


if __name__ == "__main__":
    bodies()
    connections()
    signups(True)
    signups(False)
