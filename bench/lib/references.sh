# The references measured in bench/run.sh's own run, on the same cores (sourced; needs
# common.sh, and from run.sh: BUILD, WORK, SOCK, LUA_DIR, pids): bench/hello, the floor of an
# HTTP server on the same stack (every scenario is also given as a ratio to it), and
# redis-benchmark driving like_set.lua on plauditd's embedded Redis (step 3); and the fsync rate
# of the disk under plauditd's data dir, the bound of comment_create (measure_fsync, step 2).
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

# start_hello → HELLO_PORT: bench_hello on a free port (its pid appended to pids)
start_hello() {
  "$BUILD/bench_hello" 0 >"$WORK/hello.log" 2>&1 &
  pids+=($!)
  HELLO_PORT=$(wait_port_line "$WORK/hello.log" 'listening on [0-9]+')
}

# measure_fsync DIR [BEFORE] → FSYNC_JSON: syncs/s of the disk that holds DIR (plauditd's data
# dir, where its SQLite file is). A comment write is one SQLite transaction, and with WAL and
# synchronous=FULL its commit waits for one sync of the WAL; SQLite lets one writer in at a
# time, so comment_create's req/s is bounded by this rate, which moves between machines and
# days: run.sh takes it right before comment_create and again right after (BEFORE: the first
# one's JSON; the second goes into it as "after"). Each: append 100 bytes + fsync, the same with
# fdatasync (what SQLite calls on Linux), then one-row SQLite transactions (WAL,
# synchronous=FULL; python3's sqlite3 is Debian's libsqlite3, plauditd's) on a WAL grown once
# and restarted, so that commits rewrite it in place as plauditd's do; each up to 2,000 times
# or 1 s. All three with a child process spinning on a core, as wrk and Redis keep the cores
# busy during comment_create: on this VM a sync waited on from idle cores takes ~3.5 ms (the
# vCPU's wake-up), from busy ones 0.15-0.25 ms (2026-12-02: 268-290/s against 4,654-5,546/s,
# alternating); "idle_" is the fsync loop without the spinner, for comparison.
measure_fsync() {
  local fs
  fs=$(df --output=source,fstype "$1" | tail -1 | tr -s ' ')
  FSYNC_JSON=$(python3 - "$1/fsync-probe" "$fs" "${2:-null}" <<'PY'
import json, os, signal, sqlite3, sys, time
path, data = sys.argv[1], b"x" * 99 + b"\n"
out = {"filesystem": sys.argv[2], "bytes": len(data)}

def timed(name, step):
    n, t0 = 0, time.perf_counter()
    while n < 2000 and (n < 20 or time.perf_counter() - t0 < 1):
        step()
        n += 1
    s = time.perf_counter() - t0
    out[name + "syncs"], out[name + "per_s"], out[name + "us"] = n, round(n / s), round(s / n * 1e6, 1)

def file_syncs(name, sync):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    timed(name, lambda: (os.write(fd, data), sync(fd)))
    os.close(fd)
    os.unlink(path)

def sqlite_commits():
    db = sqlite3.connect(path + ".db", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB)")
    db.execute("INSERT INTO t (body) VALUES (zeroblob(4500000))")  # ~1,100 WAL frames
    db.execute("DELETE FROM t")
    db.execute("PRAGMA wal_checkpoint(RESTART)")  # the next commits write from the WAL's start
    timed("sqlite_", lambda: (db.execute("BEGIN IMMEDIATE"),
                              db.execute("INSERT INTO t (body) VALUES (?)", (data,)),
                              db.execute("COMMIT")))
    db.close()
    for suffix in (".db", ".db-wal", ".db-shm"):
        if os.path.exists(path + suffix):
            os.unlink(path + suffix)

file_syncs("idle_", os.fsync)
spinner = os.fork()
if spinner == 0:  # SCHED_IDLE: it keeps a core from halting, never from running anything else
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    while True:
        pass
try:
    file_syncs("", os.fsync)
    file_syncs("fdatasync_", os.fdatasync)
    sqlite_commits()
finally:
    os.kill(spinner, signal.SIGKILL)
    os.waitpid(spinner, 0)
before = json.loads(sys.argv[3])
if before:
    before["after"] = {k: v for k, v in out.items() if k not in ("filesystem", "bytes")}
print(json.dumps(before or out, separators=(",", ":")))
PY
  ) || FSYNC_JSON=null  # the report then says "not measured"
  echo "disk syncs ($fs): $FSYNC_JSON" >&2
}

# Step 3, the redis-benchmark reference: like_set.lua on the same embedded Redis (AOF everysec).
# -r 100000: __rand_int__ becomes a random 12-digit, zero-padded user id (so a string member,
# not an intset one); each call likes (ARGV[2] = 1): the first call per user writes, repeats
# only read. The keys are set up in big mode (the user's bucket with its loaded mark 0, the
# count) and named like plauditd's (the script builds every key but the small set's from that
# one, and the third value of a like names the bucket: 0 for every user here), so no call
# takes a "not loaded" exit and no call splits; ARGV[2] 'big' is the mode guess plauditd
# passes once it has seen the target split. One like a call, as a target liked now and then.
LIKE_KEYS=('pl:lk:{x}:t:s' 'pl:lk:{x}:t:0' 'pl:lc:{x}:t' 'pl:lp:{x}:t:s' 'pl:lp:{x}:t:0'
  'pl:ld:{x}' 'pl:lseq:{x}')
rb_like() {  # SHA PIPELINE → "ops_per_s writes"
  rcli DEL "${LIKE_KEYS[@]}" >/dev/null
  rcli SADD 'pl:lk:{x}:t:0' 0 >/dev/null
  rcli SET 'pl:lc:{x}:t' 0 >/dev/null
  local ops
  ops=$(redis-benchmark -s "$SOCK" -c 50 -n 200000 -r 100000 -P "$2" -q \
      evalsha "$1" 1 'pl:lk:{x}:t:s' 1795000000000 big '' __rand_int__ 1 0 2>&1 |
    tr '\r' '\n' | grep -oE '[0-9.]+ requests per second' | tail -1 | awk '{print $1}')
  echo "${ops:-0} $(rcli GET 'pl:lc:{x}:t' | tr -d '\r')"
}
rb_ping() {  # PIPELINE → ops/s of PING (the same Redis' floor cost per call, for scale)
  redis-benchmark -s "$SOCK" -c 50 -n 100000 -P "$1" -q -t ping_mbulk 2>&1 |
    tr '\r' '\n' | grep -oE '[0-9.]+ requests per second' | tail -1 | awk '{print $1}'
}

# run_redis_benchmark → RB1 RB1_WRITES (unpipelined), RB16 RB16_WRITES (-P 16), RBPING1,
# RBPING16, REDIS_VERSION
run_redis_benchmark() {
  local sha
  sha=$(rcli -x SCRIPT LOAD <"$LUA_DIR/like_set.lua" | tr -d '\r')
  read -r RB1 RB1_WRITES < <(rb_like "$sha" 1)
  read -r RB16 RB16_WRITES < <(rb_like "$sha" 16)
  rcli DEL "${LIKE_KEYS[@]}" >/dev/null
  RBPING1=$(rb_ping 1)
  RBPING16=$(rb_ping 16)
  REDIS_VERSION=$(rcli INFO server | tr -d '\r' | awk -F: '$1=="redis_version" {print $2}')
  echo "redis-benchmark EVALSHA like_set.lua: $RB1 ops/s unpipelined ($RB1_WRITES of 200000 wrote), $RB16 ops/s with -P 16 ($RB16_WRITES wrote)" >&2
}
