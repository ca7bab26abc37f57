#!/usr/bin/env python3
"""Writes docs/benchmarks.md, docs/bench-throughput.png, docs/bench-depth.png and
docs/bench-read-path.png from one
bench/results/<date>.json: bench/run.sh's step 6, also runnable by hand on a committed result
(python3 bench/report.py bench/results/<date>.json [options]).

The results file holds every figure; the options carry what it does not (the build measured,
how round trips were counted, the raw lines of the flush and RESP benchmarks, …); left out,
they read as unknown. Numbers are printed as the results file spells them (1.50 stays 1.50:
the file is read with Decimal), so the report shows what wrk and the scripts printed. Needs
only the standard library, and gnuplot for the charts.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from decimal import Decimal
from string import Template

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def text(value, otherwise="null"):
    """A results value as the shell printed it: numbers as written, `otherwise` for null."""
    if value is None:
        return otherwise
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def number(value):
    """A value as awk reads it: its leading number, 0 for none."""
    m = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text(value, ""))
    return float(m.group(0)) if m else 0.0


def to_ms(latency):
    """A latency as wrk prints it (850.00us, 1.75ms, 1.02s) in milliseconds."""
    s = text(latency, "")
    n = number(s)
    if s.endswith("us"):
        n /= 1000
    elif s.endswith("s") and not s.endswith("ms"):
        n *= 1000
    return n


def commas(value):
    s = text(value)
    return f"{int(s):,}" if s.isdigit() else s


def ratio(a, b):
    """a / b to 2 decimals; n/a when b is not positive."""
    return f"{number(a) / number(b):.2f}" if number(b) > 0 else "n/a"


def awk_number(n):
    """n as awk's print writes it (OFMT %.6g; whole numbers as integers)."""
    return str(int(n)) if n == int(n) else f"{n:.6g}"


def gnuplot(script):
    """Runs a gnuplot script → None, or the first line of its errors."""
    done = subprocess.run(["gnuplot"], input=script, text=True, stderr=subprocess.PIPE)
    return None if done.returncode == 0 else (done.stderr.splitlines() or [""])[0]


def throughput_chart(res, tmp):
    """req/s per scenario next to hello's → the markdown that shows it (or says why not)."""
    if not shutil.which("gnuplot"):
        return "No chart: gnuplot is not installed (`apt-get install gnuplot-nox`, then rerun)."
    rows = res["rows"]
    dat = os.path.join(tmp, "chart.dat")
    with open(dat, "w") as f:
        for row in rows:
            f.write(f"{text(row['scenario'])} {text(row['rps'])}\n")
    hello = next((text(r["rps"]) for r in rows if r["scenario"] == "hello"), "")
    title = (f"plauditd req/s per scenario vs the hello reference ({res['cores']} cores, "
             f"wrk -c{res['connections']}, {res['date']})")
    error = gnuplot(f"""set terminal pngcairo size 900,420 font "sans,10" noenhanced
set output "docs/bench-throughput.png"
set title "{title}"
set style fill solid 0.8 border -1
set boxwidth 0.7
set ylabel "requests/s"
set yrange [0:*]
set xrange [-0.6:{len(rows) - 1}.6]
set grid ytics
set xtics rotate by -30 nomirror
set key off
plot "{dat}" using 0:2:xtic(1) with boxes lc rgb "#4477aa", \\
     "{dat}" using 0:2:(sprintf("%.0f", $2)) with labels offset 0,0.7, \\
     {hello} with lines dt 2 lc rgb "#cc3311"
""")
    if error is not None:
        return f"No chart: gnuplot failed ({error})."
    return "![req/s per scenario](bench-throughput.png)\n\nThe dashed line is `hello`."


def depth_chart(res, tmp):
    """p50 latency of one comment page against its depth, by cursor and by offset (log x)."""
    if not shutil.which("gnuplot"):
        return "No depth chart: gnuplot is not installed."
    deep = res["comments"]["deep"]
    dats = {}
    for mode in ("cursor", "offset"):
        dats[mode] = os.path.join(tmp, f"depth.{mode}.dat")
        with open(dats[mode], "w") as f:
            for p in deep["points"]:
                if p["mode"] == mode:
                    f.write(f"{text(p['depth'])} {awk_number(to_ms(p['p50']))}\n")
    first = next((p["p50"] for p in deep["points"] if p["mode"] == "first"), None)
    first_ms = f"{to_ms(first):.2f}"
    title = (f"comment page (sort=new, size=20) p50 vs depth, {commas(deep['comments'])} comments "
             f"(wrk {deep['wrk']}, median of {text(deep['rounds'])}, {res['date']})")
    error = gnuplot(f"""set terminal pngcairo size 900,460 font "sans,10" noenhanced
set output "docs/bench-depth.png"
set title "{title}"
set logscale x 10
set xlabel "depth (comments before the page)"
set format x "%.0s%c"
set ylabel "p50 latency (ms)"
set yrange [0:*]
set xrange [500:{int(deep['comments']) * 2}]
set grid lc rgb "#dddddd"
set key below horizontal
plot "{dats['cursor']}" using 1:2 with linespoints lw 2 pt 7 lc rgb "#4477aa" \\
       title "by cursor", \\
     "{dats['offset']}" using 1:2 with linespoints lw 2 pt 5 lc rgb "#ee7733" \\
       title "by offset (page=)", \\
     {first_ms} with lines dt 2 lc rgb "#228833" title "page 1", \\
     1.5 * {first_ms} with lines dt 4 lw 2 lc rgb "#cc3311" title "1.5 × page 1 (target)"
""")
    if error is not None:
        return f"No depth chart: gnuplot failed ({error})."
    return "![p50 latency vs depth](bench-depth.png)"


# The report, section by section: $NAME is a figure (see report()); the tables between them are
# built in code.
HEADER = r'''
# Benchmarks

Generated by `make bench` (bench/run.sh) on $TODAY, $CORES cores,
`wrk -t$THREADS -c$CONN -d$DUR --latency`; wrk shares the cores with the servers.
plauditd: `$BUILD/plauditd` (built $BUILT; tree at
$TREE), Lua scripts named from `$LUA_DIR`. $LUA_NOTE
Whole run: **$TOTAL s** (`make bench` must stay under 15 minutes on 2 cores).
Raw figures: `$RESULTS`. Every scenario is also given as a ratio to `hello`, a minimal
Beast/Asio server from the same stack (bench/hello) measured in the same run, so the
figures compare across noisy machines. Load average (1/5/15 min) at the start of this run:
$LOAD_START, at the end: $LOAD_END — the 2 cores were shared with other work, so absolute
figures are low and noisy; the ratios are the comparable part.

plauditd ran embedded (own `redis-server` with AOF everysec, SQLite in WAL) with
`--rate-limits off --password-hash minimal`, everything else default (flush every 1 s, so
the like scenarios include the write-behind flusher's work; session cache 1 s, so a warm
like is one Redis command, a cold one two). The like scenarios' requests are assembled
from heads and Authorization lines formatted when wrk starts (bench/wrk/common.lua); user,
article and method are still drawn at random per request. Calling wrk.format per request
cost wrk ~2 µs of CPU on the cores the servers share. Seeded through the API with
curl (4 processes at a time, one keep-alive connection each) in ${SEED_SECS} s: 1 author, $N_IDS published articles (~1.6 KB of HTML
each), $N_TOKENS users with one session each.

| scenario | connections | req/s | p50 | p99 | non-2xx | ratio to hello |
|---|---|---|---|---|---|---|
'''

TARGETS = r'''

## Targets

An unmet target is listed as such; nothing here is tuned to pass.

| target | goal | measured | |
|---|---|---|---|
'''

PAIRS = r'''

### Likes against `/healthz`, interleaved

Issue 6 sets the like target against plauditd's own `GET /healthz` (router, metrics, JSON;
no Redis, no SQL) measured in the same run. Step 2b runs $PAIR_ROUNDS rounds of `/healthz`,
`like_put_spread`, `/healthz`, `like_put_hot`, `/healthz`, each `wrk -t$THREADS -c$CONN
-d$PAIR_DUR --latency` with no probes; a like run's ratio is its req/s over the mean of the
two `/healthz` runs around it, so drift of the shared box over minutes cancels. The target
row above takes the median ratio and the median p99 over the rounds.

Why likes lose more to this box than `/healthz` does. CPU time per request from /proc
(utime/stime of each process around 5 s wrk runs, 2026-12-01, session 20):

| µs a request | plauditd user | plauditd sys | Redis | wrk | box idle |
|---|---|---|---|---|---|
| /healthz | 1.0-1.3 | 4.3-6.1 | 0 | 5.4-7.2 | 1-2% |
| like_put_spread | 3.8-5.1 | 5.5-6.8 | 5.9-7.4 | 6.5-7.8 | 15-20% |
| like_put_hot | 2.7-3.5 | 5.5-7.5 | 3.2-4.0 | 6.3-7.7 | 11-13% |

A spread like costs the 2 cores ~24 µs against /healthz's ~11.5, and leaves them idler:
/healthz has two busy tasks for two CPUs, a like three (plauditd, Redis, wrk), which wake
one another through sockets. `perf sched timehist` shows the kernel putting a woken Redis
on plauditd's CPU (a "sync" wakeup) where the two then take turns for 20-130 µs each while
the other CPU idles, Redis waiting up to ~0.5 ms; the SQL flush threads cost ~0.6 µs a like.
Earlier (other VM): over 2 s CPU 0 idle 17% while CPU 1 ran Redis, wrk and plauditd.
At /healthz's idle a spread like would need ≤ ~23 µs of box CPU for 0.5×; at its own ~17%,
≤ ~19.5 µs. Pinning the Redis child and plauditd's I/O thread to separate CPUs helped
like_put_spread 6-19% in short alternating runs (taskset), but as the default in a full
make bench (2026-12-01T11:37Z) spread stayed at 0.396× and like_put_hot fell to 74-86k
req/s with p99 3.8-6.7 ms (Redis, pinned, waits behind whatever else lands on its CPU):
reverted. What batching could give, bounded by fewer targets (the like_put_spread mix over the first N
seeded articles only, so that a busy target's queue batches more; 2 runs each beside /healthz,
ratio over the mean of the /healthz runs around it, session 21): 200 articles 0.41×, 64
articles 0.42-0.44×, 16 articles 0.45-0.48×, 8 articles 0.50-0.51×, 4 articles 0.51-0.52×
(86k req/s). Any shard layout that let spread likes share script calls (coarser shard tags,
one call for several targets of a shard) is bounded by these: it would reach 0.5× only with
the likes of all articles in 4-8 hash slots, which is what the 256 like shards exist to
avoid (Redis Cluster could then spread likes over at most that many nodes).

What did not move like_put_spread (session 21, 2026-12-01, 5 s alternating runs beside
/healthz, each setting in 2-3 runs): the Redis client's eager flush (write after 0, 4, 8, 16
or 64 calls: 65-68k req/s, idle 17-21% for all); SCHED_BATCH for Redis, or for Redis and
plauditd (57-70k, idle 18-19%); SCHED_IDLE for Redis, or for all three including wrk (so that
no task is cache-hot to the load balancer: 68-70k, idle 15-19%); no flush at all during the run
(`--flush-interval-ms 600000`: 0.41-0.48× against 0.42-0.46× with the 1 s flush in the same
series); `hash-max-listpack-entries` 128 instead of 512 (within the noise). The idle share is
not the scheduler's placement alone, then, and the flusher costs the like path little. What
is left is the per-like work itself: "Redis CPU per like script call" below puts the script
call's floor at ~30% of a spread like's Redis time, and batching (which a busy target's
queue does) saves ~37% a like; spread likes rarely find their target busy.

| round | scenario | req/s | p99 ms | non-2xx | /healthz before | /healthz after | ratio |
|---|---|---|---|---|---|---|---|
'''

REDIS = r'''

## Redis commands per request

- *all*: (`total_commands_processed` after − before) / requests wrk made, from `INFO` around
  the timed run; counts the commands scripts run inside Redis too (a like script's SISMEMBER,
  GET, SADD, …) and the flusher's work in that window.
- *EVALSHA*: `cmdstat_evalsha` calls (+ `evalsha_ro`) / requests, same window.
- *sent by plauditd*: the commands plauditd itself sent per request, from `MONITOR` during a
  separate 1 s run at 8 connections (`[lua]` lines, i.e. commands inside scripts, not
  counted); EVALSHA calls are named by their script. Background flusher calls in that second
  appear by name (e.g. `like_claim.lua`).
- *round trips*: $RT_DOC

An idle plauditd sends $IDLE_CMDS commands/s (measured over 3 s before the scenarios): the
flusher's pass every second (`scard`, `zcard`, `zrange` below are its per-shard checks,
`spop` the view counts); at low request rates this dominates *all*.

| scenario | all | EVALSHA | sent by plauditd | round trips | sent by plauditd, by command |
|---|---|---|---|---|---|
'''

LIKE = r'''

A like is expected to cost 2 commands: the session HMGET and `like_set.lua` (which checks the article is published itself).
Measured (`like_put_spread`): ${like_client_cmds_per_req} commands sent per request —
${like_client_cmds} — and ${like_redis_cmds_per_req} commands
executed in Redis per request counting those inside scripts and the flusher's.
'''

COMMENTS = r'''

## Comments

Seeded through the API after the articles (${CSEED_SECS} s): article $PAGE_ID with $N_COMMENTS top-level comments
(user 1) × 3 replies each (user 2), and top-level comment *k* liked by *k* mod 5 users
($N_CLIKES comment likes, so `hot` differs from `new`); article $CREATE_ID for `comment_create`'s
writes; article $DEEP_ID for the deep pages below.

| | req/s | ratio to hello | p50 | p99 | non-2xx |
|---|---|---|---|---|---|
| `${cnew_name}` (20 comments + 60 replies, anonymous) | ${cnew_rps} | ${cnew_ratio} | ${cnew_p50} | ${cnew_p99} | ${cnew_non2xx} |
| `comment_page_hot` | ${chot_rps} | ${chot_ratio} | ${chot_p50} | ${chot_p99} | ${chot_non2xx} |
| `comment_like_status` (20 comment ids, signed in) | ${clikes_rps} | ${clikes_ratio} | ${clikes_p50} | ${clikes_p99} | ${clikes_non2xx} |
| `comment_create` (top-level, signed in; committed in groups, below) | ${ccreate_rps} | ${ccreate_ratio} | ${ccreate_p50} | ${ccreate_p99} | ${ccreate_non2xx} |

**`comment_create` and the disk.** $CCREATE_DISK In WAL mode with `synchronous=FULL` a
commit waits for a sync of the WAL, and SQLite lets one writer in at a time. Until issue 47
each comment was a commit of its own, so comments were written at most at the disk's sync
rate (0.26-0.46× of it in practice); since then the comments that arrive while a commit is in
flight share the next one (group commit, ~14 a commit at 64 connections:
docs/bench-issue47.md), and the row goes past the sync rate, as far as the cores allow. Its
req/s still moves with the disk under plauditd's data dir, and its ratio to hello means
little. Compare runs by its ratio to the disk's rates, measured right before the row and right
after it (append 100 bytes + `fsync`, up to 2,000 times or 1 s; the same with `fdatasync`, which
SQLite calls on Linux; one-row SQLite transactions in WAL with `synchronous=FULL`, the WAL
rewritten in place as plauditd's is, by the same libsqlite3), each with a `SCHED_IDLE` process
spinning so that the cores never halt, as during the row, where wrk and Redis keep them busy.
On this VM a sync waited on from idle cores takes ~3.5 ms, the vCPU's wake-up (2026-12-02,
alternating: 268-290 fsyncs/s idle, 4,654-5,546/s beside a spinning process), so the loop
without the spinner ("from idle cores") says little about the row: plauditd itself made ~1,000
`fdatasync`s/s of 0.1-0.9 ms under strace while that loop measured ~300-580/s.

$FSYNC_DROP

**Redis round trips per comment page** (`sort=new`, 20 comments with 3 replies each):
${cnew_round_trips_per_req} anonymous, ${PAGE_RT_AUTH} signed in (a random user's token: the session lookup
comes first). Commands sent per anonymous page: ${cnew_client_cmds_per_req} — ${cnew_client_cmds}.

**plauditd resident memory** (peak VmRSS: the kernel's high-water mark, reset before the scenarios): at most **$RSS_LIKE_MIB MiB** during the like
and comment scenarios (`like_put_spread` … `comment_create`, $CONN connections), at most
**$RSS_DEEP_MIB MiB** during the rebuild of $DEEP_N_FMT comments and the deep-page runs.

### Deep pages: $DEEP_N_FMT comments on one article

Bulk-loaded straight into the SQLite file with the `sqlite3` CLI while plauditd ran (one
recursive-CTE `INSERT`, ${DEEP_LOAD_SECS} s): top-level comments, ids as plauditd makes them
(`(1000000 + i) × 256 + $DEEP_ID % 256`), body `bulk`; then `comment_count = $DEEP_N`. The
article's comment cache had never been built, so the first `GET` of its comments rebuilt it
from SQL.

- **rebuild of $DEEP_N_FMT comments from SQL: $DEEP_REBUILD_SECS s** (the first `GET`, timed by curl).${DEEP_FAILS_TEXT}
- **Redis used_memory**: $DEEP_MEM_BEFORE_FMT → $DEEP_MEM_AFTER_FMT bytes ($DEEP_MEM_MIB MiB) — **$DEEP_BPC bytes per comment**
  (comment hash of 16 fields + its entries in the time and likes indexes).
- A second reader of the same article's comments, sent 2 s into the rebuild
  (`GET /api/v1/articles/$DEEP_ID/comments?sort=new&size=20&replies=0` → ${DEEP_SECOND}: readers in the same process join the
  running rebuild and get its result; readers in another plauditd process would wait at most
  400 × 25 ms for its lease, then get 503).
- Waited ${DEEP_PERSIST_WAIT} s afterwards for the AOF rewrite the rebuild triggered, before timing pages.
- Cursor check — $DEEP_CHECK.

`sort=new&size=20`, anonymous, `wrk -t1 -c8 -d$DEEP_DUR --latency` per point; $DEEP_ROUNDS rounds over all points
(page 1, then each depth by cursor and by offset; after 1 s of page 1 not counted), each figure
the median of its rounds, so that the shared machine's changing load falls on all points alike. *Cursor*: the
`nextCursor` a client holds after the first *depth* comments (base64url of
`n<id>.<id>`, built from the known id); *offset*: `page=depth/20+1`. These comments have no
replies, so a page is 20 comments and 20 like states (the seeded page above: 80 and 80).

| depth | by cursor: req/s | p50 | p99 | by offset: req/s | p50 | p99 |
|---|---|---|---|---|---|---|
| 0 (page 1) | $first_rps | $first_p50 | $first_p99 | | | |
'''

DEEP_ROUNDS = r'''

Target: the page 50,000 deep by cursor within 1.5× the first page's p50 — see Targets; chart
under Charts. p50 per round (ms): page 1: $P50_ROUNDS_FIRST; 50,000 deep by cursor:
$P50_ROUNDS_CURSOR_50K; by offset: $P50_ROUNDS_OFFSET_50K.
'''

REST = r'''

## redis-benchmark reference (same run, same Redis)

`like_set.lua` loaded with `SCRIPT LOAD` into plauditd's embedded Redis $REDIS_VERSION
(Unix socket, AOF everysec), 50 clients, 200,000 calls on the script's keys set up in big
mode (`SADD pl:lk:{x}:t:0 0`: the bucket, loaded; `SET pl:lc:{x}:t 0`: the count), with
the mode guess `big`. `-r 100000` makes `__rand_int__` a random user id (12-digit,
zero-padded: a string member, so the bucket is a hashtable here, not an intset); every call
likes, so the first call per user writes (SADD, INCR, HSET, ZADD) and
repeats only read. (Before 2026-11-30 this reference passed 5 keys and measured only the
script's not-loaded exit; before 2026-12-01 it passed 8 keys and 5 arguments.)

| run | ops/s | calls that wrote |
|---|---|---|
| unpipelined | $RB1 | $RB1_WRITES of 200,000 |
| `-P 16` | $RB16 | $RB16_WRITES of 200,000 |
| PING (`-t ping_mbulk`, 100,000), unpipelined | $RBPING1 | |
| PING, `-P 16` | $RBPING16 | |

For scale: MEASURED.md found ~47k like-script calls/s unpipelined (121k with `-P 16`) on a
quiet box of this kind, Redis then using a whole core. A `like_put_spread` request above
sends ${like_client_cmds_per_req} commands (EVALSHA: ${like_evalsha_per_req} per request).

## Instructions per like

`bench/instructions.sh`: plauditd restarted on this run's data under
`valgrind --tool=callgrind`, driven by `wrk -t1 -c64` with the `like_put_spread` mix for
5 s after a 2 s warm-up, and `bench_hello` the same way with plain GETs. Instructions of
every thread (the write-behind flusher's SQL work included) over the requests wrk completed.
Unlike req/s on this shared box, the count repeats: three runs of the script on one data dir
(50 articles, 200 users) gave 39,060–39,353 per like and 24,676–24,756 per hello request
(2026-11-30). It is the figure to compare when a change touches the request path; the
req/s figures above move with the machine.

| server | instructions per request | requests counted |
|---|---|---|
| plauditd, `like_put_spread` | $INSTR_LIKE | $INSTR_LIKE_REQUESTS |
| hello | $INSTR_HELLO | $INSTR_HELLO_REQUESTS |
| ratio | $INSTR_RATIO | |
| redis-server behind plauditd: its scripts, per `like_put_spread` request | $INSTR_REDIS | $INSTR_REDIS_REQUESTS |

The last row is a second pass: plauditd native, its embedded redis-server under callgrind
(`--redis-server-bin` names a wrapper that execs valgrind), counting `evalShaCommand`
inclusive (the Lua run, its `redis.call`s, their AOF propagation; `like_claim.lua` and
`like_done.lua` of the flusher included) over the likes wrk completed. Not the whole
process: slowed ~50×, Redis's timers (cron, expiry, rehashing this run's million-key data
set) weigh per like what they never weigh at full speed. Redis 7.0 charges scripts by the
call (~2,300 instructions besides the command) and by the argument (~1,000); a returned
table costs ~5,500 to convert (see `like_set.lua`'s header). By hand on 2026-12-01 (15 s,
a smaller data set): `evalShaCommand` 74.0k per like before 4c646b0, 60.7k after; the whole
process 108k → 88.5k.

History (the same method by hand, on a smaller seed: 50 articles, 200 users, 10 s): 54,060
per like at c9a69e2 (2026-11-30); 39,854 after the like-path work of fc245c4 (Asio frames on
`operator new`, one-allocation keys, cached sessions answered in place, 8 cached flush
statement shapes).

## RESP framing of a command

`bench_resp` (bench/resp_bench.cpp, Google Benchmark, `--benchmark_min_time=0.5`): CPU per
command to frame it for Redis, with hiredis's `redisFormatSdsCommandArgv` (what
`redisAsyncCommandArgv` ran for every command until 2026-11-30) and with plauditd's
`redis::FormatCommand` (src/redis/resp.cpp, handed to `redisAsyncFormattedCommand`).
`like_evalsha`: a warm like's `like_set.lua` call (11 arguments); `hmget_17`: an HMGET of
17 fields.

| command | hiredis, ns | plauditd, ns | ratio |
|---|---|---|---|
${RESP_ROWS}
## Write-behind flush throughput

`bench_flush` (bench/flush_bench.cpp): `sql::LikeTable::Apply` with 200,000 like changes in
20 batches of 10,000 (one flusher claim each: 100 articles × 100 users, 10% unlikes), new
rows each, the articles' counts following the rows by trigger (SQLite: per row, migration 007;
PostgreSQL: per statement, migration 012, with the batch's targets locked in id order first)
and the shard seqs raised in the same transaction (migration 008); only the Apply calls are
timed. Both
databases commit durably: SQLite with `synchronous=FULL` (issue 23, defect 9: a power loss
must not take back a commit whose Redis side was already cleaned), PostgreSQL with fsync and
synchronous_commit on.

| database | changes/s | |
|---|---|---|
| SQLite (WAL, synchronous=FULL, temp dir) | $FLUSH_SQLITE | `$FLUSH_SQLITE_LINE` |
| PostgreSQL $PG_VERSION (private server, Unix socket, fsync on, synchronous_commit on) | $FLUSH_PG_RATE | `$FLUSH_PG_LINE` |

## Memory per like record

bench/like_memory.sh: a private `redis-server` (no persistence) with 1,000,000 like records
written by the real scripts of `src/redis/lua` (`like_load.lua`, then `like_set.lua` once per
like, by `redis-cli --pipe`): 100,000 users × 10,000 targets, each target liked by 100
distinct random users; the pending-change records a flush would remove are then deleted, then
one `pl:lc:{l<shard>}:a<target>` count per target. Figure: (used_memory after − before) /
records.$BPL_TEXT_NOTE

| layout | keys | bytes per like |
|---|---|---|
| Plaudit (src/redis/lua: one SET per target up to 256 likers, then user-id buckets) | $BPL_KEYS | $BPL |
| the same + 10,000 count keys | +10,000 | $BPL_COUNTS ($BPL_COUNT_KEY per count key) |
| for comparison: one plain SET per target | 10,000 | $BPL_PER_TARGET |
| for comparison: bucketed by `uid >> 8` from the first like (the earlier layout) | | $BPL_BUCKETED |

With 100 likers spread over 100,000 users, bucketing from the first like puts a target's likers
in ~100 different buckets of 256 ids, so nearly every record is a key of its own (key, dict
entry, object and a 2-member intset) instead of 4 bytes inside a shared intset.

## Redis CPU per like script call

bench/like_script.sh: `src/redis/lua/like_set.lua` sent by `redis-cli --pipe` into a private
`redis-server` started as plauditd's embedded child is (AOF everysec with automatic rewrite,
hash-max-listpack-entries 512, no latency tracking), on the `like_put_spread` shape (200 published articles, 1,000 users, like or unlike at
random; every target past 256 likers, so in big mode), against `return 1` called with the same
keys and arguments in the same run; pending hashes and dirty indexes are dropped every 50,000
calls as a flush would. Redis CPU (INFO cpu, user + sys) per call, median of
$LS_ROUND_COUNT rounds of $LS_CALLS calls
(rounds: $LS_ROUNDS):

| call | µs of Redis CPU | |
|---|---|---|
| no-op script, an article like's 2 keys and 6 arguments | $LS_NOOP | 1× |
| `like_set.lua`, one like (a spread like) | $LS_SINGLE | ${LS_RATIO}× |
| `like_set.lua`, four likes of one target (a busy target's queue) | $LS_BATCH a call, $LS_BATCH_LIKE a like | |

So about $LS_NOOP µs of a spread like's Redis time is the script call itself (parsing the
request, EVALSHA, the KEYS/ARGV tables, the reply), the rest its commands (the published
check, the count, the state, and for a change the set, the pending hash, the dirty index, the
count's INCR, and their AOF propagation). Batching saves the call and the per-target reads;
the per-like commands stay.
$WEB_SECTION
$CLUSTER_SECTION
$MODERATION_SECTION
$NOTIFY_SECTION
$MARIADB_SECTION
$LIVE_SECTION
$SEARCH_SECTION
## Charts

$CHART_NOTE

$DEPTH_CHART_NOTE

p50 latency of one comment page (`sort=new&size=20`) against its depth in the $DEEP_N_FMT-comment
article, by cursor and by offset; dashed: page 1, dash-dot: the 1.5× target.

## Scenarios
- `hello`: the reference server, fixed JSON body.
- `healthz`: plauditd's `GET /healthz` (router, metrics, JSON), no Redis or SQL.
- `readyz`: `GET /readyz`, one Redis PING and one SQL `SELECT 1` on the pool per request.
- `article_get`: `GET /api/v1/articles/{id}`, a random seeded id, anonymous (counts a view).
- `article_list`: `GET /api/v1/articles?size=20`, the first page, anonymous.
- `like_put_spread`: `PUT` or `DELETE` (at random) `/api/v1/articles/{id}/like`, a random
  seeded article, a random user's Bearer token.
- `like_put_hot`: the same, every request on one article (id $HOT_ID).
- `like_status`: `GET /api/v1/likes?article=<20 consecutive seeded ids>` with a random user's
  token.
- `like_status_unknown`: the same with 20 ids that name no article (random, above 900,000,000):
  what a stranger's ids cost next to known ones (10× before the probe issue's fix).
- `comment_page_anon` (`comment_page_new` before issue 28):
  `GET /api/v1/articles/$PAGE_ID/comments?sort=new&size=20&replies=3`, the seeded page (20
  top-level comments, 3 replies each), anonymous.
- `comment_page_auth`: the same page signed in, a random user's Bearer token (the session
  lookup and the caller's like state of each comment on top).
- `comment_page_304`: the anonymous page with `If-None-Match: <plauditd's ETag>` (read with curl
  just before); 304 expected. Skipped, with the reason, when plauditd sends no ETag.
- `comment_like_put_spread`, `comment_like_put_hot`: `like_put_spread`'s and `like_put_hot`'s
  shape on comments: `PUT` or `DELETE` `/api/v1/comments/{id}/like` by a random user, on a
  random one of 5 top-level comments on each of the 200 seeded articles (1,000), or always on
  the first of them.
- `mixed_reads`: 90% `comment_page_anon`'s request, 10% `PUT` or `DELETE` of a random user's
  like on a random comment of that page (its 80 comments); see "Read path against nginx".
- `nginx_comment_page`, `nginx_article_list`, `nginx_304`: nginx serving plauditd's bytes as
  static files; see "Read path against nginx".
- `comment_page_hot`: the same with `sort=hot` (by likes, then newest).
- `comment_like_status`: `GET /api/v1/likes?comment=<the page's 20 top-level ids>` with a random
  user's token.
- `comment_create`: `POST /api/v1/articles/$CREATE_ID/comments` `{"body": …}` (~100 characters),
  a top-level comment by a random user's token, on an article of its own. SQLite commits
  (WAL, `synchronous=FULL`) shared by the comments that wait together (group commit): set
  against the disk's fsync rate ($FSYNC_SHORT); see "`comment_create` and the disk" under
  Comments.
- `page_counts`: `GET /api/v1/pages/counts?url=…` for the bench site's 50 page threads
  (`--sites http://bench.example`), anonymous: an index page's count badges in one call.
- `login`: `POST /api/v1/sessions` with a correct password, 4 connections. With
  `--password-hash minimal` this is the login path at the minimal Argon2id cost, not the
  interactive cost (64 MiB, ~0.1 s) production uses.

Scripts: `bench/wrk/*.lua` (ids and tokens from the files named by `BENCH_IDS`,
`BENCH_TOKENS` and `BENCH_COMMENT_IDS`, article ids from `BENCH_PAGE_ID` and
`BENCH_CREATE_ID`, written while seeding).

## Reproduce

```sh
make bench                                    # or: bash bench/run.sh (needs a release build in build/)
BENCH_DURATION=30s BENCH_CONNECTIONS=64 make bench
BENCH_FLUSH_PG=0 bash bench/run.sh            # skip PostgreSQL; BENCH_FLUSH_PG=1 requires it
BENCH_DEEP_COMMENTS=100000 BENCH_DEEP_DURATION=2s bash bench/run.sh   # a smaller deep article
./build/bench_flush                           # SQLite in a temp dir
./build/bench_flush 'postgresql://user@/db?host=/socket/dir&port=5432'   # an empty database
bash bench/like_memory.sh                     # bytes per like record
bash bench/like_script.sh                     # Redis CPU per like_set.lua call (~20 s)
bash bench/instructions.sh build <stopped seeded data dir> <ids file> <tokens file>   # callgrind
redis-cli -s <sock> -x SCRIPT LOAD < src/redis/lua/like_set.lua
redis-cli -s <sock> SADD 'pl:lk:{x}:t:0' 0; redis-cli -s <sock> SET 'pl:lc:{x}:t' 0
redis-benchmark -s <sock> -c 50 -n 200000 -r 100000 -q [-P 16] evalsha <sha> 1 'pl:lk:{x}:t:s' \
  1795000000000 big '' __rand_int__ 1 0
```
Whole run: $TOTAL s.

Side-by-side measurements of two builds or two settings, made by hand with `bench/ab.sh`
(not part of `make bench`, so not rewritten by it): docs/benchmarks-ab.md.
'''


def rt_doc(args):
    """What the round-trips column counts: it depends on whether strace was there."""
    if args.rt_method == "strace":
        return f"""plauditd's writes on its Redis socket per request (strace, write/writev/sendmsg on
  that fd) during another 1 s run at **1** connection, one request at a time, less the idle
  flusher's ({args.idle_writes} writes/s). plauditd's client writes every command issued in one
  event-loop turn (a pipeline, or the concurrent operations of one request) with one write and
  then waits for the replies, so this is the number of times a request waits on Redis in
  sequence. Under concurrency requests share writes."""
    return f"""Redis read events (`total_reads_processed`) per request during another 1 s run at
  **1** connection, one request at a time, less the idle rate ({args.idle_reads}/s) and the `INFO`
  call (strace was not installed). An upper bound of the round trips: Redis reads at most 16 KB
  per event, so a larger pipeline counts twice or more."""


def table_row(cells):
    return "| " + " | ".join(cells) + " |\n"


def target_rows(res):
    """The targets as measured; the ones the run could not measure are listed as unknown."""
    names = [t["target"] for t in res["targets"]]
    out = ""
    for t in res["targets"]:
        met = "**met**" if t["met"] else "**not met**"
        out += table_row([t["target"], t["goal"], t["measured"], met])
        if t["target"] == "flush, SQLite" and "flush, PostgreSQL" not in names:
            out += table_row(["flush, PostgreSQL", "≥ 30,000 changes/s",
                              "not measured (no initdb, or BENCH_FLUSH_PG=0)", "**unknown**"])
    if not any(n.startswith("comment page 50,000 deep by cursor") for n in names):
        deep_n = text(res["comments"]["deep"]["comments"])
        out += table_row(["comment page 50,000 deep by cursor", "p50 ≤ 1.5× the first page's",
                          f"not measured (BENCH_DEEP_COMMENTS={deep_n} < 50,020)", "**unknown**"])
    return out


def resp_rows(spec):
    """'command:hiredis_ns:plauditd_ns …' → the RESP table's rows ('?' for what is missing)."""
    out = ""
    for item in spec.split():
        name, h, p = (item.split(":") + ["", ""])[:3]
        r = f"{number(p) / number(h):.2f}" if number(p) > 0 and number(h) > 0 else "?"
        out += table_row([name, h or "?", p or "?", r])
    return out


def git_tree():
    try:
        done = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True)
    except OSError:
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def built(build):
    plauditd = os.path.join(build, "plauditd")
    if not os.path.exists(plauditd):
        return "unknown"
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(os.path.getmtime(plauditd)))


class Figures:
    """Lookups into one results file, as the report's tables need them."""

    def __init__(self, res):
        self.res = res
        self.rows = {r["scenario"]: r for r in res["rows"]}
        self.deep = res["comments"]["deep"]
        self.points = {(p["mode"], int(p["depth"])): p for p in self.deep["points"]}

    def field(self, scenario, key):
        """A scenario row's value; empty when the scenario did not run."""
        return text(self.rows[scenario][key]) if scenario in self.rows else ""

    def ratio_to_hello(self, scenario):
        return ratio(self.field(scenario, "rps"), self.field("hello", "rps"))

    def depth(self, mode, depth, key):
        p = self.points.get((mode, depth))
        return text(p[key]) if p else ""

    def depths(self):
        return [int(p["depth"]) for p in self.deep["points"] if p["mode"] == "cursor"]

    def p50_rounds(self, mode, depth):
        """One deep point's p50 (ms) in each round, comma-separated."""
        return ",".join(text(r["p50_ms"]) for r in self.deep["raw"]
                        if r["mode"] == mode and int(r["depth"]) == depth)


# $NAME → where the results file holds it, for the figures the templates quote as they are.
QUOTED = {
    "CORES": "cores", "THREADS": "threads", "CONN": "connections", "DUR": "duration",
    "LOAD_START": "loadavg_start", "LOAD_END": "loadavg_end",
    "IDLE_CMDS": "idle_redis_cmds_per_s", "PAIR_DUR": "like_vs_healthz.duration",
    "SEED_SECS": "seed.seconds", "N_IDS": "seed.articles", "N_TOKENS": "seed.users",
    "CSEED_SECS": "comments.seed_seconds", "PAGE_ID": "comments.page_article",
    "N_COMMENTS": "comments.top_level", "N_REPLIES": "comments.replies",
    "N_CLIKES": "comments.likes", "PAGE_RT_AUTH": "comments.page_round_trips_signed_in",
    "RSS_LIKE_MIB": "comments.rss_max_mib_like_and_comment_scenarios",
    "RSS_DEEP_MIB": "comments.rss_max_mib_rebuild_and_deep_pages",
    "DEEP_ID": "comments.deep.article", "DEEP_N": "comments.deep.comments",
    "DEEP_LOAD_SECS": "comments.deep.sqlite_bulk_load_seconds",
    "DEEP_REBUILD_SECS": "comments.deep.rebuild_seconds",
    "DEEP_BPC": "comments.deep.redis_bytes_per_comment",
    "DEEP_SECOND": "comments.deep.concurrent_reader",
    "DEEP_PERSIST_WAIT": "comments.deep.aof_rewrite_wait_seconds",
    "DEEP_CHECK": "comments.deep.cursor_check", "DEEP_ROUNDS": "comments.deep.rounds",
    "REDIS_VERSION": "redis_benchmark.redis_version", "RB1": "redis_benchmark.unpipelined_ops",
    "RB1_WRITES": "redis_benchmark.unpipelined_writes", "RB16": "redis_benchmark.pipelined16_ops",
    "RB16_WRITES": "redis_benchmark.pipelined16_writes",
    "RBPING1": "redis_benchmark.ping_unpipelined_ops",
    "RBPING16": "redis_benchmark.ping_pipelined16_ops",
    "INSTR_RATIO": "instructions_per_request.ratio",
    "FLUSH_SQLITE": "flush.sqlite_changes_per_s", "FLUSH_PG_RATE": "flush.postgresql_changes_per_s",
    "BPL": "like_memory.bytes_per_like", "BPL_COUNTS": "like_memory.bytes_per_like_with_counts",
    "BPL_KEYS": "like_memory.like_keys",
    "BPL_PER_TARGET": "like_memory.bytes_per_like_per_target_set",
    "BPL_COUNT_KEY": "like_memory.bytes_per_count_key",
    "LS_NOOP": "like_script.noop_us", "LS_SINGLE": "like_script.single_us",
    "LS_RATIO": "like_script.single_over_noop", "LS_BATCH": "like_script.batch4_us_per_call",
    "LS_BATCH_LIKE": "like_script.batch4_us_per_like", "LS_ROUND_COUNT": "like_script.rounds",
    "LS_CALLS": "like_script.calls",
}


def lookup(res, path):
    for key in path.split("."):
        res = res[key]
    return res


def values(res, args, fig, chart_note, depth_chart_note):
    """The $NAMEs of the templates."""
    deep, instr = fig.deep, res["instructions_per_request"]
    fails = deep["rebuild_failures"]
    v = {name: text(lookup(res, path)) for name, path in QUOTED.items()}
    v.update({
        "TODAY": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "BUILD": args.build,
        "BUILT": built(args.build),
        "TREE": git_tree(),
        "LUA_DIR": args.lua_dir,
        "LUA_NOTE": args.lua_note,
        "TOTAL": (int(time.time()) - args.started if args.started is not None
                  else res["total_seconds"]),
        "RESULTS": args.results,
        "PAIR_ROUNDS": max((int(p["round"]) for p in res["like_vs_healthz"]["rounds"]), default=0),
        "RT_DOC": rt_doc(args),
        "CREATE_ID": args.create_id,
        "HOT_ID": args.hot_id,
        "DEEP_N_FMT": commas(deep["comments"]),
        "DEEP_FAILS_TEXT": "" if not fails else f"""
  **The rebuild failed before it succeeded**: {fails}. A failed rebuild is lost
  whole; the next read starts again from the first row. plauditd logged: \
`{args.deep_plog or 'nothing above info'}`;
  Redis logged {text(deep['redis_slow_fsync_warnings'])} slow-fsync warnings.""",
        "DEEP_MEM_BEFORE_FMT": commas(deep["redis_used_memory_before"]),
        "DEEP_MEM_AFTER_FMT": commas(deep["redis_used_memory_after"]),
        "DEEP_MEM_MIB": f"{number(deep['redis_used_memory_after']) / 1048576:.0f}",
        "DEEP_DUR": deep["wrk"].rsplit("-d", 1)[-1],
        "first_rps": fig.depth("first", 0, "rps"),
        "first_p50": fig.depth("first", 0, "p50"),
        "first_p99": fig.depth("first", 0, "p99"),
        "P50_ROUNDS_FIRST": fig.p50_rounds("first", 0),
        "P50_ROUNDS_CURSOR_50K": fig.p50_rounds("cursor", 50000),
        "P50_ROUNDS_OFFSET_50K": fig.p50_rounds("offset", 50000),
        "INSTR_LIKE": text(instr["like_put_spread"], "not measured (no valgrind, or "
                           "bench/instructions.sh failed: see the output of make bench)"),
        "INSTR_HELLO": text(instr["hello"], "not measured"),
        "INSTR_REDIS": text(instr["redis_scripts_per_like"], "not measured"),
        "INSTR_LIKE_REQUESTS": text(instr["like_requests"], ""),
        "INSTR_HELLO_REQUESTS": text(instr["hello_requests"], ""),
        "INSTR_REDIS_REQUESTS": text(instr["redis_requests"], ""),
        "RESP_ROWS": resp_rows(args.resp_ns),
        "FLUSH_SQLITE_LINE": args.flush_sqlite_line,
        "FLUSH_PG_LINE": args.flush_pg_line,
        "PG_VERSION": args.pg_version,
        "BPL_BUCKETED": text(res["like_memory"].get("bytes_per_like_bucketed_from_first_like"),
                             "n/a"),
        "BPL_TEXT_NOTE": (" Note: src/redis/lua's like scripts differ from the ones in the plauditd"
                          " binary measured\nabove; this is the source tree's layout."
                          if args.like_memory_stale else ""),
        "LS_ROUNDS": args.like_script_rounds,
        "CHART_NOTE": chart_note,
        "WEB_SECTION": web_section(res),
        "CLUSTER_SECTION": cluster_section(res, fig),
        "MODERATION_SECTION": moderation_section(res),
        "NOTIFY_SECTION": notify_section(res.get("notifications")),
        "MARIADB_SECTION": mariadb_section(res.get("mariadb")),
        "LIVE_SECTION": live_section(res.get("live")),
        "SEARCH_SECTION": search_section(res.get("search")),
        "CCREATE_DISK": comment_create_disk(res, fig),
        "FSYNC_SHORT": (f"{text(res['fsync']['per_s'])} fsyncs/s in this run" if res.get("fsync")
                        else "not measured in this run"),
        "FSYNC_DROP": FSYNC_DROP,
        "DEPTH_CHART_NOTE": depth_chart_note,
    })
    # like_rps, cnew_p50, …: the rows the sections on likes and comments quote.
    cnew = "comment_page_anon" if "comment_page_anon" in fig.rows else "comment_page_new"
    v["cnew_name"] = cnew
    for prefix, scenario in (("like", "like_put_spread"), ("cnew", cnew),
                             ("chot", "comment_page_hot"), ("clikes", "comment_like_status"),
                             ("ccreate", "comment_create")):
        for key in ("rps", "p50", "p99", "non2xx", "client_cmds", "client_cmds_per_req",
                    "redis_cmds_per_req", "evalsha_per_req", "round_trips_per_req"):
            v[f"{prefix}_{key}"] = fig.field(scenario, key)
        v[f"{prefix}_ratio"] = fig.ratio_to_hello(scenario)
    return v


def comment_create_disk(res, fig):
    """comment_create's req/s beside the disk's fsyncs/s and SQLite's commits/s on it, taken
    right before the row and right after (bench/lib/references.sh measure_fsync; results
    before 2026-12-02 have no "fsync": not measured)."""
    fs, rps = res.get("fsync"), fig.field("comment_create", "rps")
    if not rps:
        return "`comment_create` did not run."
    if not fs:
        return (f"`comment_create`: {rps} req/s; the disk's fsync rate: not measured (no fsync "
                "reference in this results file), so its one SQLite commit (WAL, "
                "synchronous=FULL) per comment cannot be set against the disk.")

    def rates(m):
        out = (f"{text(m['per_s'])} fsyncs/s ({text(m['us'])} µs each; `fdatasync` "
               f"{text(m['fdatasync_per_s'])}/s")
        if "sqlite_per_s" in m:
            out += (f"; one-row SQLite commits {text(m['sqlite_per_s'])}/s, "
                    f"{ratio(rps, m['sqlite_per_s'])}× that")
        if "idle_per_s" in m:
            out += f"; from idle cores {text(m['idle_per_s'])} fsyncs/s"
        return out + ")"

    after = fs.get("after") or {}
    out = (f"`comment_create` = **{ratio(rps, fs['per_s'])} × the disk's fsync rate**: "
           f"{rps} req/s against {rates(fs)} on `{text(fs['filesystem'])}`, plauditd's data "
           "dir, right before the row")
    if after:
        out += f"; right after it {rates(after)}, {ratio(rps, after['per_s'])}× the fsync rate"
        lo, hi = sorted((number(fs["per_s"]), number(after["per_s"])))
        if lo <= 0 or hi > 2 * lo:
            out += " — the disk's rate changed by more than 2× around the row, so the ratio is rough"
    return out + ". SQLite commits (WAL, synchronous=FULL), shared by the comments that wait together."


# Why comment_create fell on 2026-12-02: kept in the report so that nobody chases it again.
FSYNC_DROP = """**The drop of 2026-12-02.** `comment_create` fell from 15,607 req/s
(bench/results/2026-12-01T14-00-32Z.json) to 5,163 (2026-12-02T11-43-27Z.json). Not the code:
during the run plauditd used ~6% CPU, and `perf` put its time in fsync (`ext4_sync_file` →
`blkdev_issue_flush`), the WAL syncs of the commits, one comment after another. A loop of
write(100 bytes) + fsync on the same disk (`/dev/vda`, which holds /tmp and so the bench's data
dir) took ~227 µs a fsync that day, ~4.4k fsyncs/s: the order of 5.2k comments/s (a little
above it: SQLite syncs with `fdatasync`, somewhat cheaper on this disk). Neither run measured the
disk; at one commit per comment, 15.6k comments/s on 2026-12-01 means the disk synced ≥ 15.6k
times a second then (≤ ~64 µs each): this VM's disk, not plauditd, changed. The same day's
quick runs of one build (`BENCH_SKIP=slow`, 14:00-14:15 UTC) had `comment_create` at 1.0-1.3k
req/s, then 4.5k (0.77× the fsync rate measured beside it). Comment writes scale with the
disk's sync rate, not with the CPU; since then every run measures that rate right before
`comment_create` and right after (`fsync` in the results file), and the line under the first
table gives `comment_create` as a multiple of it."""


def cluster_section(res, fig):
    """Step 8 (bench/lib/cluster.sh): plauditd on a 3-primary Redis Cluster, per primary."""
    c = res.get("cluster")
    out = "\n## On a Redis Cluster (issue 29)\n\n"
    if not c:
        return out + ("The cluster step (bench/lib/cluster.sh) did not run in this results file "
                      "(skipped, or the cluster did not form).\n")
    out += (f"One plauditd on a {c['primaries']}-primary Redis Cluster ({c['redis']}, AOF "
            "everysec, no replicas) on this box, seeded as step 1 seeds, through "
            "`--redis redis-cluster://…`; the same wrk settings as the table above. Per request: "
            "plauditd's CPU and each primary's CPU (user + system, /proc) and the commands it "
            "executed (`total_commands_processed`: a script's own calls count too), over the "
            "whole wrk run. The embedded-Redis row of the "
            "same scenario in this run is beside it.\n\n"
            "| scenario | req/s on the cluster | p99 | req/s, embedded Redis | plauditd CPU µs/req "
            "| each primary: Redis CPU µs/req (commands executed/req) | non-2xx |\n"
            "|---|---|---|---|---|---|---|\n")
    for r in c["rows"]:
        nodes = ", ".join(f"{n['cpu_us_per_req']:.1f} ({n['commands_per_req']:.2f})"
                          for n in r["primaries"])
        single = fig.field(r["scenario"], "rps") or "not measured"
        out += table_row([f"`{r['scenario']}`", text(r["rps"]), r["p99"], single,
                          f"{r['plauditd_cpu_us_per_req']:.1f}", nodes, text(r["non2xx"])])
    return out


def moderation_section(res):
    """Issue 42's figures (bench/moderation.py, step 9)."""
    m = res.get("moderation")
    out = "\n## Moderation: what a policy costs a comment, and pages while approving\n\n"
    if not m:
        return out + "Step 9 (bench/moderation.py) did not run in this run.\n"
    c, p = m["create"], m.get("page") or {}
    out += (f"`python3 bench/moderation.py` (make bench step 9): each policy on a fresh plauditd "
            f"(embedded Redis + SQLite), `comment_create.lua` with wrk -t1 -c{m['connections']} "
            f"for {m['duration_s']} s; the disk's fsync rate measured in the data dir just "
            "before. Under `first` every post is held (no writer has an approved comment): one "
            "more SQL read for the verdict, the row goes in as pending, no index changes.\n\n"
            "| policy | comments/s | p99 | fsyncs/s | ÷ fsync rate | errors |\n|---|---|---|---|---|---|\n")
    for policy in ("off", "first"):
        r = c[policy]
        out += table_row([f"`{policy}`", commas(r["rps"]), r["p99"], commas(r["fsync_per_s"]),
                          text(r["ratio_to_fsync"]), str(r["errors"])])
    out += f"\n`first` over `off`: **{text(c.get('first_over_off'))}×**.\n\n"
    if p:
        a = p["alone"]
        out += ("`comment_page_anon.lua` on a thread of 20 × 3 approved comments with 4,000 "
                "pending ones: alone, then while one moderator approves them one id per "
                f"request, paced at {p['approve_rate']} a second (a busy human), then as fast as "
                "one keep-alive connection goes. Each approval raises the thread's version, so "
                "every cached page of it goes stale at once.\n\n"
                "| run | pages/s | p99 | page cache hits | misses | approvals/s | ÷ alone |\n"
                "|---|---|---|---|---|---|---|\n")
        out += table_row(["alone", commas(a["rps"]), a["p99"], commas(a["cache_hits"]),
                          commas(a["cache_misses"]), "", ""])
        for key, name in (("paced", "while approving, paced"),
                          ("flat_out", "while approving, flat out")):
            w = p.get(key)
            if w:
                out += table_row([name, commas(w["rps"]), w["p99"], commas(w["cache_hits"]),
                                  commas(w["cache_misses"]), commas(w["approvals_per_s"]),
                                  text(w.get("ratio_to_alone"))])
    return out


def notify_section(n):
    """Issue 44's figure (bench/notifications.py, step 10)."""
    out = "\n## Notifications: what they cost a comment\n\n"
    if not n:
        return out + "Step 10 (bench/notifications.py) did not run in this run.\n"
    out += (f"`python3 bench/notifications.py` (make bench step 10): two fresh plauditd "
            f"(embedded Redis + SQLite), one without notifications, one with `--smtp` (aiosmtpd "
            f"on loopback) and a `--webhook` (a local receiver), whose article author has a "
            f"verified address: every comment writes an event row in its transaction, and the "
            f"worker posts a webhook and gathers an author's notice a minute while the load "
            f"runs. `comment_create.lua`, wrk -t1 -c{n['connections']}, {n['duration_s']} s a "
            "run, alternating off and on; the disk's fsync rate before each run.\n\n"
            "| run | notifications | comments/s | p99 | fsyncs/s | errors |\n"
            "|---|---|---|---|---|---|\n")
    for i, r in enumerate(n["runs"]):
        out += table_row([str(i // 2 + 1), r["mode"], commas(r["rps"]), r["p99"],
                          commas(r["fsync_per_s"]), str(r["errors"])])
    med = n["median_rps"]
    out += (f"\nMedians: off {commas(med['off'])}/s, on {commas(med['on'])}/s: on over off "
            f"**{text(n.get('on_over_off'))}×** (goal: ≥ 0.9). Webhooks received during the on "
            f"runs: {commas(n.get('webhooks_received'))}; mails: {commas(n.get('mails_received'))}; "
            f"outbox depth after: {text(n.get('outbox_depth_after'))}.\n")
    return out


def live_section(v):
    """Issue 48's figures (bench/live.py, step 12)."""
    out = "\n## Live updates: open streams and event latency\n\n"
    if not v:
        return out + "Step 12 (bench/live.py) did not run in this run.\n"
    base, opened = v["baseline"], v["open"]
    out += (f"`python3 bench/live.py` (make bench step 12): two plauditd on one Redis and one "
            f"SQLite file. {commas(v['streams'])} streams of one article opened on the second "
            f"(one TCP connection each, in {v['open_s']} s), then {v['idle_s']} s with nothing "
            "happening, against the same span with none open.\n\n"
            "| | RSS | CPU while idle | Redis commands/s |\n|---|---|---|---|\n")
    out += table_row(["no stream", f"{commas(base['rss_kib'])} KiB", f"{base['cpu_pct']}%",
                      text(base["redis_commands_per_s"])])
    out += table_row([f"{commas(v['streams'])} streams", f"{commas(opened['rss_kib'])} KiB",
                      f"{opened['cpu_pct']}%", text(opened["redis_commands_per_s"])])
    lat = v["event_after_201_ms"]
    out += (f"\n**{commas(v['rss_per_stream_bytes'])} bytes of RSS per open stream.** A comment's "
            f"201 (first instance) to its `comment` event at a reader on the second, "
            f"{lat['n']} comments one after the other, with the streams above still open: "
            f"**p50 {lat['p50']} ms, p99 {lat['p99']} ms** (max {lat['max']} ms; negative: the "
            "event arrived before the 201).")
    fan = v.get("fanout_last_reader_ms")
    if fan:
        out += (f" Fan-out: a comment on the thread the {commas(fan['readers'])} streams follow, "
                f"from its 201 to the last of them receiving it: p50 {fan['p50']} ms, max "
                f"{fan['max']} ms ({fan['n']} comments; this includes the Python reader going "
                "through every socket).")
    return out + "\n"


def search_section(v):
    """Issue 48's search figures (bench/search.py, step 13)."""
    out = "\n## Search: query latency on 100,000 articles\n\n"
    if not v:
        return out + "Step 13 (bench/search.py) did not run in this run.\n"
    names = {"sqlite": "SQLite (FTS5)", "postgresql": "PostgreSQL (tsvector, GIN)"}
    backs = v["backends"]
    out += (f"`python3 bench/search.py` (make bench step 13): {commas(v['articles'])} generated "
            "articles (titles of 4–8 words, texts of ~150, a third of the words Chinese runs of "
            "2–6 characters, drawn by a Zipf law) written into `articles`, the index reset, and "
            "built by plauditd's own indexer; then "
            f"{v['queries_per_shape']} queries of each shape one after the other on one "
            "keep-alive connection (size 10), timed at the client. The reference is the first "
            "page of the published list on the same server and connection.\n\n")
    out += "| | " + " | ".join(names.get(b, b) + (f" {backs[b]['version']}" if backs[b].get("version") else "")
                               for b in backs) + " |\n"
    out += "|---" * (len(backs) + 1) + "|\n"
    out += table_row(["index built in"] + [f"{backs[b]['build_s']} s" for b in backs])
    shapes = list(next(iter(backs.values()))["shapes"])
    for name in shapes:
        cells = []
        for b in backs:
            sh = backs[b]["shapes"][name]
            cells.append(f"p50 {sh['p50_ms']} ms, p99 {sh['p99_ms']} ms "
                         f"({commas(sh['median_matches'])} matches counted)")
        out += table_row([name] + cells)
    out += table_row(["all queries"] + [f"**p50 {backs[b]['p50_ms']} ms, p99 {backs[b]['p99_ms']} ms**"
                                        for b in backs])
    out += table_row(["reference: list page"] + [f"p50 {backs[b]['list_p50_ms']} ms, p99 "
                                                 f"{backs[b]['list_p99_ms']} ms" for b in backs])
    out += table_row(["search p50 ÷ list p50"] + [
        f"{backs[b]['p50_ms'] / backs[b]['list_p50_ms']:.1f}×" if backs[b]["list_p50_ms"] else "—"
        for b in backs])
    out += ("\nMatches are the median `total`: a search ranks and counts only the newest 1,000 "
            "matches (docs/architecture.md \"Search\"). Before that cap a word found in 90% of "
            "the articles took p50 605 ms on SQLite and 4,292 ms on PostgreSQL (2026-12-07, same "
            "script), every match ranked. A page of results costs more than a list page because "
            "it runs the match twice (count and ranking) and cuts ten snippets. PostgreSQL's p99 "
            "for two words and a Chinese pair comes from a few slow queries among the 100, not "
            "explained yet (a lossy bitmap rechecking every candidate's terms is the suspect).\n")
    return out


def mariadb_section(m):
    """Issue 45's figures (bench/mariadb.py, step 11)."""
    out = "\n## MariaDB: flush throughput and comment writes\n\n"
    if not m:
        return out + "Step 11 (bench/mariadb.py) did not run in this run.\n"
    out += (f"`python3 bench/mariadb.py` (make bench step 11): a private mariadbd "
            f"({m['mariadb']}) with its durable defaults (`innodb_flush_log_at_trx_commit=1`, "
            "doublewrite on, no binary log). `bench_flush` (200,000 changes in batches of "
            f"10,000, as step 4): **{commas(m.get('flush_changes_per_s'))} changes/s** (goal: "
            "≥ 30,000, PostgreSQL's target). Then `comment_create.lua`, wrk -t1 "
            f"-c{m['connections']}, {m['duration_s']} s a run, on a plauditd with SQLite and one "
            "with MariaDB (both embedded Redis), alternating; the disk's fsync rate before each "
            "run.\n\n"
            "| run | database | comments/s | p99 | fsyncs/s | errors |\n"
            "|---|---|---|---|---|---|\n")
    for i, r in enumerate(m["runs"]):
        out += table_row([str(i // 2 + 1), r["database"], commas(r["rps"]), r["p99"],
                          commas(r["fsync_per_s"]), str(r["errors"])])
    med = m["median_rps"]
    out += (f"\nMedians: SQLite {commas(med['sqlite'])}/s, MariaDB {commas(med['mariadb'])}/s "
            f"(MariaDB over SQLite {text(m.get('mariadb_over_sqlite'))}×; the disk's median "
            f"{commas(m.get('median_fsync_per_s'))} fsyncs/s).\n")
    return out


def web_section(res):
    """The embedding figures: the counts call (a row above) and bench/widget.mjs's (step 7)."""
    pages, web = res.get("pages") or {}, res.get("web")
    out = ("\n## Embedding: the counts call and the widget\n\n"
           f"`page_counts` (the scenario table above) is `GET /api/v1/pages/counts` for "
           f"{text(pages.get('threads'))} page threads of the bench site (one comment each), "
           "anonymous: what count.js sends for an index page of 50 posts; "
           f"{text(pages.get('counts_round_trips'))} Redis round trips per call.\n\n")
    if not web:
        return out + ("The widget step (bench/widget.mjs) did not run: node, Debian's chromium "
                      "or web/node_modules was missing.\n")
    f, r = web["files"], web["first_render_ms"]
    out += ("bench/widget.mjs (its own plauditd, headless Debian Chromium): the bytes a browser "
            "gets (gzip: the build's `gzip -9` copies) and the widget's first render of a "
            "20-comment thread, from navigation start until all 20 comments are in its shadow "
            f"DOM, median of {r['runs']} cold loads (a fresh browser context each).\n\n"
            "| what | result |\n|---|---|\n")
    for name in ("embed.js", "count.js", "site.js", "site.css"):
        if name in f:
            budget = " (the widget's goal: ≤ 25 KB with its CSS)" if name == "embed.js" else ""
            out += table_row([name, f"{commas(f[name]['bytes'])} bytes, "
                              f"**{commas(f[name]['sent_bytes'])} bytes sent** "
                              f"({f[name]['encoding']}){budget}"])
    out += table_row(["first render, 20 comments",
                      f"median **{r['median']} ms** (min {r['min']}, max {r['max']})"])
    return out

# Issue 28's read path: (plauditd scenario, its nginx reference, what is compared). mixed_reads
# is compared by its reads/s (read_path.mixed_reads_per_s), not by its row's req/s.
READ_PAIRS = (
    ("comment_page_anon", "nginx_comment_page", "anonymous comment page (20 × 3)"),
    ("comment_page_auth", "nginx_comment_page", "signed-in comment page"),
    ("comment_page_304", "nginx_304", "comment page revalidated (If-None-Match → 304)"),
    ("article_list", "nginx_article_list", "anonymous article list (size=20)"),
    ("mixed_reads", "nginx_comment_page", "its page reads/s (90% of its requests)"),
)


def read_rps(res, fig, scenario):
    """req/s of a read-path scenario (mixed_reads: its reads/s); None when it did not run."""
    if scenario == "mixed_reads":
        rp = res.get("read_path") or {}
        return rp.get("mixed_reads_per_s") if scenario in fig.rows else None
    return fig.rows[scenario]["rps"] if scenario in fig.rows else None


def read_path_chart(res, tmp):
    """req/s of each read-path scenario beside its nginx reference → docs/bench-read-path.png."""
    if "read_path" not in res:
        return ""
    if not shutil.which("gnuplot"):
        return "No read path chart: gnuplot is not installed."
    fig = Figures(res)
    dat = os.path.join(tmp, "readpath.dat")
    with open(dat, "w") as f:
        for scenario, ref, _ in READ_PAIRS:
            mine, theirs = read_rps(res, fig, scenario), read_rps(res, fig, ref)
            label = scenario + (" (reads)" if scenario == "mixed_reads" else "")
            if mine is None:
                label += " (skipped)"
            f.write(f'"{label}" {awk_number(number(mine))} {awk_number(number(theirs))} "{ref}"\n')
    title = (f"plauditd read path vs nginx serving the same bytes ({res['cores']} cores, "
             f"wrk -c{res['connections']}, {res['date']})")
    error = gnuplot(f"""set terminal pngcairo size 900,440 font "sans,10" noenhanced
set output "docs/bench-read-path.png"
set title "{title}"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set ylabel "requests/s"
set yrange [0:*]
set grid ytics
set xtics rotate by -20 nomirror
set key top right
plot "{dat}" using 2:xtic(1) title "plauditd" lc rgb "#4477aa", \\
     "{dat}" using 3 title "nginx reference (same bytes)" lc rgb "#999933", \\
     "{dat}" using ($0 - 0.15):2:(sprintf("%.0f", $2)) with labels offset 0,0.7 notitle, \\
     "{dat}" using ($0 + 0.15):3:(sprintf("%.0f", $3)) with labels offset 0,0.7 notitle
""")
    if error is not None:
        return f"No read path chart: gnuplot failed ({error})."
    return "![plauditd read path vs nginx](bench-read-path.png)"


def read_path_section(res, fig, args):
    """Issue 28: the read path against nginx serving the same bytes, and the issue's targets."""
    rp = res.get("read_path")
    if rp is None:
        return ""
    skipped = rp.get("skipped") or {}
    statuses = rp.get("statuses") or {}
    out = ["\n## Read path against nginx\n\n"]
    if rp.get("nginx_skipped"):
        out.append(f"**No nginx reference in this run**: {rp['nginx_skipped']}.\n\n")
    out.append(
        f"Issue 28: read pages as fast as static files. nginx {text(rp.get('nginx_version'), '?')} "
        "(Debian's package; its service unused: the bench runs the binary with a config of its "
        "own, `worker_processes 1`, `access_log off`, sendfile, keep-alive never closed by "
        "nginx) serves, as static files, the exact bytes plauditd answered (curl, just before "
        "each nginx row) for the anonymous comment page "
        f"(`{rp.get('comment_page_path')}`, {text(rp.get('nginx_comment_page_body_bytes'), '?')} "
        f"bytes) and the anonymous article list (`{rp.get('article_list_path')}`, "
        f"{text(rp.get('nginx_article_list_body_bytes'), '?')} bytes), at the same paths "
        "(nginx ignores the query), with plauditd's `Content-Type: application/json; "
        "charset=utf-8`. Each nginx row runs with the same wrk settings "
        f"(`-t{text(res['threads'])} -c{text(res['connections'])} -d{text(res['duration'])}`) "
        "and the same Lua script as its plauditd counterpart, right before it. `nginx_304` sends "
        f"`If-None-Match: {text(rp.get('nginx_etag'), '?')}` (nginx's own ETag); "
        + ("`comment_page_304` sends plauditd's own ETag "
           f"(`{text(rp.get('plauditd_etag'))}`; a curl GET with it answered "
           f"{text(rp.get('plauditd_if_none_match_status'), '?')}). "
           if rp.get("plauditd_etag") else
           "`comment_page_304` would send plauditd's own ETag, but plauditd sent none in this "
           "run (curl), so that row is skipped, not measured. ")
        + "wrk's \"Non-2xx or 3xx\" "
        "count holds only statuses above 399 (a 304 is not in it, and a 200 would not be "
        "either), so the 304 rows count their answers by status in Lua "
        "(bench/wrk/common.lua `count_statuses`).\n\n")
    out.append("| scenario | req/s | p99 | nginx reference | reference req/s | ratio | "
               "Redis commands per request (sent by plauditd / all) | non-2xx |\n"
               "|---|---|---|---|---|---|---|---|\n")
    for scenario, ref, what in READ_PAIRS:
        if scenario not in fig.rows:
            reason = skipped.get(scenario, "did not run")
            out.append(table_row([f"`{scenario}`: {what}", f"skipped: {reason}", "", f"`{ref}`",
                                  text(read_rps(res, fig, ref), "-"), "", "", ""]))
            continue
        row = fig.rows[scenario]
        mine, theirs = read_rps(res, fig, scenario), read_rps(res, fig, ref)
        r = ratio(mine, theirs) if theirs is not None else "n/a"
        n2 = text(row["non2xx"])
        if scenario in statuses:
            st = statuses[scenario]
            n2 = (f"{n2} (by status: " + ", ".join(f"{k}: {text(v)}" for k, v in st["counts"].items())
                  + f"; not {text(st['expected'])}: {text(st['other'])})")
        rps_text = text(mine) + (f" reads/s ({text(row['rps'])} req/s in all)"
                                 if scenario == "mixed_reads" else "")
        out.append(table_row([f"`{scenario}`: {what}", rps_text, row["p99"], f"`{ref}`",
                              text(theirs, "skipped"), f"{r}×" if r != "n/a" else r,
                              f"{text(row['client_cmds_per_req'])} / {text(row['redis_cmds_per_req'])}",
                              n2]))
    for ref in ("nginx_comment_page", "nginx_article_list", "nginx_304"):
        if ref in fig.rows:
            row = fig.rows[ref]
            n2 = text(row["non2xx"])
            if ref in statuses:
                st = statuses[ref]
                n2 += " (by status: " + ", ".join(f"{k}: {text(v)}" for k, v in st["counts"].items()) + ")"
            out.append(table_row([f"`{ref}` (reference)", text(row["rps"]), row["p99"], "", "",
                                  "", "", n2]))
        else:
            out.append(table_row([f"`{ref}` (reference)", f"skipped: {skipped.get(ref, 'did not run')}",
                                  "", "", "", "", "", ""]))
    if "mixed_reads" in fig.rows:
        out.append(
            f"\n`mixed_reads`: {text(rp.get('mixed_reads'))} page reads and "
            f"{text(rp.get('mixed_likes'))} like changes ({text(rp.get('mixed_likes_per_s'))}/s) "
            f"in {text(rp.get('mixed_seconds'))} s, {text(rp.get('mixed_other'))} answers not 200 "
            "(told apart by body in bench/wrk/mixed_reads.lua). Afterwards (one flush period "
            "later), for each of the page's comments, its `likeCount` in the anonymous page, the "
            "`likeCount` of `GET /api/v1/comments/{id}/like` and the number of the seeded users "
            "whose `GET /api/v1/likes?comment=…` says liked must be equal: "
            f"**{text(rp.get('mixed_check'), 'not run')}**.\n")
    out.append("\nIssue 28's targets, computed from the rows above (*unknown*: a row did not run).\n\n")
    out.append("| target | measured | |\n|---|---|---|\n")

    def verdict(ok):
        return "**unknown**" if ok is None else ("**met**" if ok else "**not met**")

    def against(scenario, ref, floor, label):
        mine, theirs = read_rps(res, fig, scenario), read_rps(res, fig, ref)
        if mine is None or theirs is None or number(theirs) <= 0:
            why = skipped.get(scenario) or skipped.get(ref) or "did not run"
            out.append(table_row([f"{label} ≥ {floor}× `{ref}`", f"not measured ({why})",
                                  verdict(None)]))
            return
        r = number(mine) / number(theirs)
        out.append(table_row([f"{label} ≥ {floor}× `{ref}`",
                              f"{text(mine)} / {text(theirs)} = {r:.2f}×", verdict(r >= floor)]))

    against("comment_page_anon", "nginx_comment_page", 0.5, "anonymous comment page (`comment_page_anon`)")
    against("comment_page_304", "nginx_304", 0.7, "`comment_page_304`")
    if "comment_page_304" in statuses:
        st = statuses["comment_page_304"]
        out.append(table_row(["`comment_page_304`: every answer a 304",
                              ", ".join(f"{k}: {text(v)}" for k, v in st["counts"].items()) or "no counts",
                              verdict(number(st["other"]) == 0 and bool(st["counts"]))]))
    against("comment_page_auth", "nginx_comment_page", 0.2, "signed-in comment page (`comment_page_auth`)")
    against("article_list", "nginx_article_list", 0.5, "anonymous article list (`article_list`)")
    against("mixed_reads", "nginx_comment_page", 0.2, "`mixed_reads` reads/s")
    if "mixed_reads" in fig.rows:
        out.append(table_row(["`mixed_reads`: page like counts = like endpoint = users who liked",
                              text(rp.get("mixed_check"), "not run"),
                              verdict(rp.get("mixed_check_pass"))]))
    for scenario, label in (("comment_page_anon", "comment page"), ("article_list", "list page")):
        if scenario in fig.rows and fig.rows[scenario]["client_cmds_per_req"] is not None:
            row = fig.rows[scenario]
            c = number(row["client_cmds_per_req"])
            out.append(table_row([f"Redis commands per {label} (`{scenario}`) ≤ 5",
                                  f"{text(row['client_cmds_per_req'])} sent by plauditd "
                                  f"({row['client_cmds'] or '-'}); {text(row['redis_cmds_per_req'])} "
                                  "executed in Redis in all", verdict(c <= 5)]))
        else:
            out.append(table_row([f"Redis commands per {label} (`{scenario}`) ≤ 5",
                                  "not measured", verdict(None)]))
    hello = fig.field("hello", "rps")
    for kind in ("spread", "hot"):
        c, a = f"comment_like_put_{kind}", f"like_put_{kind}"
        if c not in fig.rows or a not in fig.rows or number(hello) <= 0:
            out.append(table_row([f"`{c}`: ratio to hello ≥ 0.9× `{a}`'s, p99 < 5 ms",
                                  "not measured", verdict(None)]))
            continue
        cr, ar = number(fig.rows[c]["rps"]) / number(hello), number(fig.rows[a]["rps"]) / number(hello)
        p99 = to_ms(fig.rows[c]["p99"])
        rel = cr / ar if ar > 0 else 0
        out.append(table_row([f"`{c}`: ratio to hello within 10% of `{a}`'s (≥ 0.9× it), p99 < 5 ms",
                              f"{cr:.2f}× hello vs {ar:.2f}× ({rel:.2f}×), p99 {p99:.2f} ms "
                              f"(`{a}`: {to_ms(fig.rows[a]['p99']):.2f} ms)",
                              verdict(rel >= 0.9 and p99 < 5)]))
    pairs = [p for p in res["like_vs_healthz"]["rounds"] if p["scenario"].startswith("comment_like")]
    if pairs:
        out.append("\nAgainst `/healthz` (step 2b, interleaved, the rounds that ran them): " + "; ".join(
            f"round {text(p['round'])} `{p['scenario']}` {text(p['ratio'])}× (p99 {text(p['p99_ms'])} ms)"
            for p in pairs) + ".\n")
    note = getattr(args, "read_path_chart_note", "")
    if note:
        out.append(f"\n{note}\n\nEach plauditd scenario (blue) beside the nginx reference of the "
                   "same bytes (olive); `mixed_reads` by its page reads/s.\n")
    return "".join(out)


def fill(template, v):
    return Template(template[1:]).substitute(v)


def report(res, args, chart_note, depth_chart_note):
    """docs/benchmarks.md's text."""
    fig = Figures(res)
    v = values(res, args, fig, chart_note, depth_chart_note)
    out = fill(HEADER, v)
    for r in res["rows"]:
        out += table_row([r["scenario"], text(r["connections"]), text(r["rps"]), r["p50"],
                          r["p99"], text(r["non2xx"]), fig.ratio_to_hello(r["scenario"])])
    out += "\n" + v["CCREATE_DISK"] + "\n"  # beneath the table: comment_create's real bound
    out += TARGETS[1:] + target_rows(res) + fill(PAIRS, v)
    for p in res["like_vs_healthz"]["rounds"]:
        out += table_row([text(p[k]) for k in ("round", "scenario", "rps", "p99_ms", "non2xx",
                                               "healthz_before", "healthz_after")]
                         + [text(p["ratio"]) + "×"])
    out += fill(REDIS, v)
    for r in res["rows"]:
        if r["redis_cmds_per_req"] is not None:
            out += table_row([r["scenario"]] + [text(r[k]) for k in (
                "redis_cmds_per_req", "evalsha_per_req", "client_cmds_per_req",
                "round_trips_per_req", "client_cmds")])
    out += fill(LIKE, v) + fill(COMMENTS, v)
    for d in fig.depths():
        out += table_row([commas(d)] + [fig.depth(mode, d, key) for mode in ("cursor", "offset")
                                        for key in ("rps", "p50", "p99")])
    return out + fill(DEEP_ROUNDS, v) + read_path_section(res, fig, args) + fill(REST, v)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    opt = parser.add_argument
    opt("results", help="bench/results/<date>.json, relative to the repository")
    opt("--started", type=int, help="the run's start (Unix time), for the whole run's seconds")
    opt("--build", default="build", help="the build directory measured")
    opt("--lua-dir", default="src/redis/lua", help="where EVALSHA calls were named from")
    opt("--lua-note", default="", help="a warning that those differ from the binary's")
    opt("--like-memory-stale", action="store_true",
        help="src/redis/lua's like scripts differ from the binary's")
    opt("--rt-method", choices=("strace", "reads"), default="strace",
        help="how Redis round trips were counted")
    opt("--idle-writes", default="?", help="idle plauditd's writes/s on its Redis socket")
    opt("--idle-reads", default="?", help="idle plauditd's Redis read events/s")
    opt("--hot-id", default="?", help="like_put_hot's article")
    opt("--create-id", default="?", help="comment_create's article")
    opt("--resp-ns", default="like_evalsha:: hmget_17::",
        help="bench_resp's figures: 'command:hiredis_ns:plauditd_ns …'")
    opt("--flush-sqlite-line", default="", help="bench_flush's line on SQLite")
    opt("--flush-pg-line", default="not run", help="bench_flush's line on PostgreSQL")
    opt("--pg-version", default="", help="the PostgreSQL server's version")
    opt("--like-script-rounds", default="", help="bench/like_script.sh's 'rounds:' figures")
    opt("--deep-plog", default="", help="what plauditd logged while a rebuild failed")
    opt("--out", default="docs/benchmarks.md", help="the markdown written")
    args = parser.parse_args()
    os.chdir(ROOT)
    with open(args.results) as f:
        res = json.load(f, parse_float=Decimal)
    with tempfile.TemporaryDirectory(prefix="plaudit-report-") as tmp:
        chart_note = throughput_chart(res, tmp)
        depth_chart_note = depth_chart(res, tmp)
        args.read_path_chart_note = read_path_chart(res, tmp)
    markdown = report(res, args, chart_note, depth_chart_note)
    with open(args.out, "w") as f:
        f.write(markdown)


if __name__ == "__main__":
    main()
