#!/usr/bin/env python3
"""Issue 45's figures: the durable record in MariaDB.

  python3 bench/mariadb.py [--bin build/plauditd] [--flush-bin build/bench_flush]
                           [--duration 10] [--connections 64] [--rounds 3] [--pool N]
                           [--json FILE]

A private mariadbd (Debian's mariadb-server: mariadb-install-db into a temp dir, a Unix socket,
its durable defaults: innodb_flush_log_at_trx_commit=1, the doublewrite buffer on; no binary
log, as a single server runs without replicas), then:

1. Flush throughput: bench_flush (sql::LikeTable::Apply, 200,000 changes in batches of 10,000,
   as make bench's step 4 runs it on SQLite and PostgreSQL) into an empty MariaDB database.
   Goal (issue 45): at least PostgreSQL's 30,000 changes/s target.
2. comment_create: two fresh plauditd (embedded Redis, --rate-limits off, seeded as
   bench/moderation.py seeds: 200 users with a session each, one article), one on SQLite in its
   data dir and one on MariaDB; wrk with bench/wrk/comment_create.lua (-t1 -cN) on each,
   alternating for --rounds rounds, with the disk's fsync rate beside each run.

Prints the JSON (and writes it to --json).
"""
import os
import pwd
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


class Mariadb:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="plaudit-bench-mariadb-")
        os.chmod(self.dir, 0o755)
        as_root = os.geteuid() == 0
        if as_root:
            mysql = pwd.getpwnam("mysql")
            os.chown(self.dir, mysql.pw_uid, mysql.pw_gid)
        user = ["--user=mysql"] if as_root else []
        self.socket = os.path.join(self.dir, "mariadbd.sock")
        subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={self.dir}/data",
                        "--auth-root-authentication-method=normal", "--skip-test-db", *user],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.proc = subprocess.Popen(
            ["/usr/sbin/mariadbd", "--no-defaults", f"--datadir={self.dir}/data",
             f"--socket={self.socket}", "--skip-networking", "--skip-log-bin",
             "--innodb-buffer-pool-size=512M", "--innodb-log-file-size=256M",
             "--max-connections=500", f"--log-error={self.dir}/error.log", *user],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            if os.path.exists(self.socket):
                try:
                    with socket.socket(socket.AF_UNIX) as s:
                        s.connect(self.socket)
                    break
                except OSError:
                    pass
            time.sleep(0.05)
        else:
            raise SystemExit("mariadbd did not start")
        self.version = self.sql("SELECT VERSION()")
        self.n = 0

    def sql(self, text):
        return subprocess.run(["mariadb", "--no-defaults", "-N", "-B", "-u", "root", "-S",
                               self.socket, "-e", text], check=True, capture_output=True,
                              text=True).stdout.strip()

    def database(self):
        self.n += 1
        name = f"bench_{self.n}"
        self.sql(f"CREATE DATABASE {name}")
        return f"mariadb://root@localhost/{name}?socket={self.socket}"

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def ms(text):
    """wrk's latency ("812.00us", "12.5ms", "1.02s") in milliseconds."""
    m = re.match(r"([\d.]+)(us|ms|s)$", text)
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]


def main():
    ap = bench_args()
    ap.add_argument("--flush-bin", default=os.path.join(ROOT, "build/bench_flush"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pool", type=int, default=0,
                    help="--sql-pool-size of the MariaDB instance (default: plauditd's)")
    args = ap.parse_args()
    db = Mariadb()
    result = {"mariadb": db.version, "duration_s": args.duration,
              "connections": args.connections, "runs": []}
    servers = {}
    work = tempfile.mkdtemp(prefix="plaudit-bench-mariadb-work-")
    try:
        line = subprocess.run([args.flush_bin, db.database()], check=True, capture_output=True,
                              text=True).stdout.strip()
        result["flush_line"] = line
        m = re.search(r"changes_per_s=(\d+)", line)
        result["flush_changes_per_s"] = int(m.group(1)) if m else None
        pool = ["--sql-pool-size", str(args.pool)] if args.pool else []
        result["mariadb_pool"] = args.pool or "default"
        for name, extra in (("sqlite", []), ("mariadb", ["--database", db.database(), *pool])):
            s = Server(args.bin, "off", extra)
            _, article, tokens = seed(s, 200)
            tokens_file = os.path.join(work, f"tokens-{name}.txt")
            with open(tokens_file, "w") as f:
                f.write("\n".join(tokens) + "\n")
            env = {"BENCH_WRK_DIR": os.path.join(ROOT, "bench/wrk"),
                   "BENCH_TOKENS": tokens_file, "BENCH_CREATE_ID": str(article)}
            servers[name] = (s, env)
        for _ in range(args.rounds):
            for name in ("sqlite", "mariadb"):
                s, env = servers[name]
                disk = fsync_rate(s.dir)
                row = wrk(s.port, "comment_create.lua", args.duration, args.connections, env)
                row.update(database=name, fsync_per_s=disk)
                result["runs"].append(row)
        med = {n: statistics.median(r["rps"] for r in result["runs"] if r["database"] == n)
               for n in ("sqlite", "mariadb")}
        result["median_rps"] = med
        result["median_p99_ms"] = {
            n: statistics.median(ms(r["p99"]) for r in result["runs"] if r["database"] == n)
            for n in ("sqlite", "mariadb")}
        disks = [r["fsync_per_s"] for r in result["runs"] if r.get("fsync_per_s")]
        result["median_fsync_per_s"] = round(statistics.median(disks)) if disks else None
        result["mariadb_over_sqlite"] = (round(med["mariadb"] / med["sqlite"], 3)
                                         if med["sqlite"] else None)
    finally:
        for s, _ in servers.values():
            s.stop()
        db.stop()
        shutil.rmtree(work, ignore_errors=True)
    emit(result, args.json)


if __name__ == "__main__":
    main()
