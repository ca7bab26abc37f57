#!/usr/bin/env bash
# make bench: measures plauditd against a reference server measured in the same run, on the
# same cores, and writes bench/results/<date>.json and docs/benchmarks.md.
#   BENCH_DURATION (default 10s)   BENCH_CONNECTIONS (default 64)   BENCH_THREADS (default 1)
#   BUILD_DIR (default build)
#   BENCH_DEEP_COMMENTS (default 1000000): comments on the deep-page article
#   BENCH_LUA_DIR (default src/redis/lua): the Lua scripts the plauditd binary embeds (to name
#     EVALSHA calls, and for the redis-benchmark reference); must match BUILD_DIR's binary
#   BENCH_PAIR_DURATION (default 5s), BENCH_PAIR_ROUNDS (default 5): the like target's runs
#     against /healthz, interleaved (step 2b); BENCH_PAIR_COMMENT_ROUNDS (default 1): how many
#     of those rounds also run the comment likes
#   BENCH_DEEP_DURATION (default 2s), BENCH_DEEP_ROUNDS (default 3): wrk duration per deep-page
#     point (8 connections), and rounds over all points (each point: the median)
#   BENCH_FLUSH_PG: auto (default: PostgreSQL flush bench when initdb is installed), 1 (required),
#                   0 (skip). BENCH_DB=postgresql means BENCH_FLUSH_PG=1.
#   BENCH_SKIP: steps left out, comma-separated, for a quick check of the scripts (the results
#     and the report then say "not measured" for them; do not commit such a run): pairs (2b),
#     redis-benchmark (3), deep (3b), instructions (3c), resp, flush (4), like-memory (5),
#     like-script (5b), web (7), cluster (8), moderation (9), notifications (10), mariadb (11),
#     live (12), search (13);
#     "slow" = all of these. A quick run of the rest:
#     BENCH_SKIP=slow BENCH_DURATION=2s bash bench/run.sh   (~2 minutes)
#
# Steps (about 17 minutes on 2 cores with the defaults: 680 s on 2026-12-02 before steps 12
# and 13, which take about 80 s and 320 s):
#   1. bench/hello and plauditd (embedded Redis + SQLite; --rate-limits off --password-hash
#      minimal --bootstrap-admin benchadmin:benchpassword), seeded through the API with curl:
#      author 'bench', 200 published articles, 1,000 users with one session token each; then
#      3 more articles: one comment page (20 top-level comments × 3 replies, 40 comment
#      likes), one for comment writes, one left for the deep pages (step 3b); and 5 top-level
#      comments on each of the 200 articles, the targets of the comment like scenarios.
#   2. wrk scenarios (bench/wrk/*.lua), each bounded by BENCH_DURATION. Around each one:
#      Redis INFO (commandstats, total_commands_processed) before/after → commands per request;
#      then a 1 s probe at 8 connections under MONITOR → the commands plauditd itself sends per
#      request, by name (EVALSHA shown as its script's file name); then 1 s at 1 connection
#      with Redis INFO total_reads_processed around it → Redis round trips per request.
#      plauditd's peak RSS (VmHWM, reset through clear_refs) over the like and comment scenarios.
#      Right before comment_create and right after: the disk's syncs/s in plauditd's data dir
#      (append 100 bytes + fsync, + fdatasync, one-row SQLite commits; up to 2,000 or 1 s each,
#      beside a SCHED_IDLE spinner; a few seconds): one SQLite commit (WAL, synchronous=FULL)
#      per comment, so that row is bounded by the disk, not the CPU.
#      Among them the read path against nginx (issue 28; bench/lib/nginx.sh, readpath.sh):
#      Debian's nginx, run by the bench on a free port (worker_processes 1, no access log),
#      serving as static files the exact bytes plauditd answered for the anonymous comment page
#      and article list, at the same paths: nginx_article_list, nginx_comment_page, nginx_304
#      (If-None-Match with nginx's ETag), each with the same wrk settings and script as its
#      plauditd counterpart (article_list, comment_page_anon, comment_page_304), run right
#      before it. comment_page_304 runs only when plauditd sends an ETag (else it is recorded
#      as skipped, with the reason); the 304 rows count answers by status in their Lua (wrk's
#      "Non-2xx or 3xx" count holds only statuses > 399, so a 304 is never in it, and neither
#      would a 200 be). mixed_reads: 90% anonymous page GETs, 10% comment like changes on that
#      page, reads and likes counted apart; then a consistency check of the page's like counts.
#   2b. The like target against /healthz, interleaved: BENCH_PAIR_ROUNDS rounds of /healthz,
#      like_put_spread, /healthz, like_put_hot, /healthz (the first BENCH_PAIR_COMMENT_ROUNDS
#      also comment_like_put_spread, /healthz, comment_like_put_hot, /healthz); each like run
#      over the mean of the /healthz runs around it (docs/benchmarks.md "Likes against /healthz").
#   3. redis-benchmark reference: like_set.lua by EVALSHA on the same embedded Redis.
#   3b. Deep pages: BENCH_DEEP_COMMENTS comments bulk-loaded into the SQLite file (sqlite3
#      CLI), the first GET timed (a rebuild of the Redis comment cache from SQL), Redis
#      used_memory per comment, then wrk (8 connections, BENCH_DEEP_DURATION each) on page 1
#      and on pages 1k … 999,980 deep by cursor and by offset; docs/bench-depth.png.
#   4. bench_flush (sql::LikeTable::Apply) on SQLite and on a private PostgreSQL server.
#   3c. bench/instructions.sh: instructions per like request and per hello request (callgrind).
#   5. bench/like_memory.sh: bytes per like record at 1,000,000 records.
#   5b. bench/like_script.sh: Redis CPU per like_set.lua call in isolation, against a no-op
#      script with the same arguments (docs/benchmarks.md "Redis CPU per like script call").
#   8. bench/lib/cluster.sh: plauditd on a 3-primary Redis Cluster on this box, seeded as in
#      step 1; like_put_spread, comment_page_anon and article_list with each primary's CPU and
#      commands per request (issue 29: the work spreads; docs/operations.md sizes from it).
#   9. bench/moderation.py (issue 42): comment_create under --moderation off and first, each on
#      a fresh plauditd with the disk's fsync rate beside it; comment_page_anon alone and while
#      a moderator approves comments of the same thread, with the page cache's hits.
#   10. bench/notifications.py (issue 44): comment_create with notifications off and on (a real
#      SMTP server and webhook receiver on loopback, every comment a webhook and an author's
#      notice), alternating runs, medians and on/off.
#   11. bench/mariadb.py (issue 45): a private mariadbd with its durable defaults; bench_flush into
#      it, and comment_create on SQLite and on MariaDB, alternating runs, with the disk's fsync rate.
#   12. bench/live.py (issue 48): two plauditd on one Redis and SQLite file; 10,000 live-update
#      streams open on one (RSS per stream, CPU and Redis commands while idle, against none
#      open), then a comment's 201 (one instance) to its event (a reader on the other), p50/p99,
#      and the fan-out of a comment to all 10,000.
#   13. bench/search.py (issue 48): 100,000 generated articles (a third of their words Chinese)
#      loaded into SQLite and into a private PostgreSQL; the index built by plauditd's indexer
#      (its time), then query latency p50/p99 by query shape (a common word, a rare one, two
#      words, a Chinese pair, a Chinese run of four).
#   6. bench/results/<date>.json, docs/benchmarks.md, docs/bench-throughput.png and
#      docs/bench-depth.png (gnuplot): bench/report.py writes the markdown and the charts from
#      the results JSON.
#
# One file per step under bench/lib/: seed.sh (1), scenarios.sh (2; nginx.sh and readpath.sh
# for the read path against nginx), like_vs_healthz.sh (2b), references.sh (bench/hello, the
# disk's fsync rate, 3), deep.sh (3b), micro.sh (3c, 5, 5b), flush.sh (4), results.sh
# (6, the targets and the JSON); common.sh is shared with the other bench scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

DUR=${BENCH_DURATION:-10s}
CONN=${BENCH_CONNECTIONS:-64}
THREADS=${BENCH_THREADS:-1}
BUILD=${BUILD_DIR:-build}
FLUSH_PG=${BENCH_FLUSH_PG:-auto}
DEEP_N=${BENCH_DEEP_COMMENTS:-1000000}
LUA_DIR=${BENCH_LUA_DIR:-src/redis/lua}
DEEP_DUR=${BENCH_DEEP_DURATION:-2s}
DEEP_ROUNDS=${BENCH_DEEP_ROUNDS:-3}
PAIR_DUR=${BENCH_PAIR_DURATION:-5s}
PAIR_ROUNDS=${BENCH_PAIR_ROUNDS:-5}
PAIR_COMMENT_ROUNDS=${BENCH_PAIR_COMMENT_ROUNDS:-1}
SKIP=,${BENCH_SKIP:-},
[[ $SKIP == *,slow,* ]] && SKIP=,pairs,redis-benchmark,deep,instructions,resp,flush,like-memory,like-script,web,cluster,moderation,notifications,mariadb,live,search,
skipped() { [[ $SKIP == *",$1,"* ]] && echo "step $1 skipped (BENCH_SKIP)" >&2; }
[ "${BENCH_DB:-}" = postgresql ] && FLUSH_PG=1
STAMP=$(date -u +%Y-%m-%dT%H-%M-%SZ)
WORK=$(mktemp -d /tmp/plaudit-bench-XXXXXX)
RESULTS=bench/results/$STAMP.json
BENCH_START=$(date +%s)
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
pids=()

source bench/lib/common.sh  # wait_port_line, median, rcli, to_ms, wrk_summary, start_plauditd
source bench/lib/seed.sh
source bench/lib/scenarios.sh
source bench/lib/like_vs_healthz.sh
source bench/lib/references.sh
source bench/lib/deep.sh
source bench/lib/micro.sh
source bench/lib/flush.sh
source bench/lib/web.sh
source bench/lib/nginx.sh
source bench/lib/readpath.sh
source bench/lib/cluster.sh
source bench/lib/results.sh
source bench/lib/skip.sh  # the figures of the steps BENCH_SKIP leaves out

cleanup() {
  stop_postgres
  stop_nginx
  stop_cluster
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

for target in bench_hello plauditd bench_flush bench_resp; do
  if [ ! -x "$BUILD/$target" ]; then
    cmake --build "$BUILD" -j2 --target "$target" >&2
  fi
done
for tool in sqlite3 python3; do
  command -v "$tool" >/dev/null || { echo "$tool is needed: bash scripts/install-deps.sh" >&2; exit 1; }
done

start_hello
DATA=$WORK/data
SOCK=$DATA/redis/redis.sock
start_plauditd "$BUILD/plauditd" "$DATA" "$WORK/plauditd.log" --log-level info \
  --sites http://bench.example
PORT=$PLAUDITD_PORT
API=http://127.0.0.1:$PORT/api/v1

# 1. Seed through the API.
seed_articles
seed_comments
seed_pages
seed_like_comments "$WORK/ids.txt" "$WORK/tokens.txt" "$WORK/like_comment_ids.txt"
page_comment_ids "$PAGE_ID" "$WORK/page_comment_ids.txt"
# What the wrk scripts (bench/wrk/*.lua) read.
export BENCH_WRK_DIR=$ROOT/bench/wrk BENCH_IDS=$WORK/ids.txt BENCH_TOKENS=$WORK/tokens.txt
export BENCH_HOT_ID=$HOT_ID BENCH_PAGE_ID=$PAGE_ID BENCH_CREATE_ID=$CREATE_ID
export BENCH_COMMENT_IDS=$WORK/comment_ids.txt BENCH_PAGE_COMMENT_IDS=$WORK/page_comment_ids.txt
export BENCH_LIKE_COMMENT_IDS=$WORK/like_comment_ids.txt BENCH_COMMENT_HOT_ID=$COMMENT_HOT_ID

# 2. Scenarios; 2b. likes against /healthz; 3. redis-benchmark; 3b. deep pages.
name_lua_scripts
measure_idle
start_nginx
run_scenarios
stop_nginx
if skipped pairs; then : >"$WORK/pairs"; else run_like_pairs; fi
if skipped redis-benchmark; then skip_redis_benchmark; else run_redis_benchmark; fi
if skipped deep; then skip_deep_pages; else run_deep_pages; fi

# plauditd's part is done: stop it (drain, last flush, embedded Redis stops with it).
kill -TERM "$PLAUDITD_PID"
wait "$PLAUDITD_PID" 2>/dev/null || true
forget_pid "$PLAUDITD_PID"

# 3c. Instructions per request; RESP framing; 4. flush; 5. memory per like; 5b. Redis CPU per
# like script call.
if skipped instructions; then skip_instructions; else run_instructions; fi
if skipped resp; then RESP_NS=""; else run_resp; fi
if skipped flush; then skip_flush; else run_flush; fi
if skipped like-memory; then skip_like_memory; else run_like_memory; fi
if skipped like-script; then skip_like_script; else run_like_script; fi
# 7. The widget: its bytes and its first render in Chromium (bench/widget.mjs).
if skipped web; then WEB_JSON=null; else run_web; fi
# 8. Redis Cluster.
if skipped cluster; then CLUSTER_JSON=null; else run_cluster; fi
# 9. Moderation.
MODERATION_JSON=null
if ! skipped moderation; then
  if python3 bench/moderation.py --bin "$BUILD/plauditd" --duration "${DUR%s}" \
       --connections "$CONN" --json "$WORK/moderation.json" >&2; then
    MODERATION_JSON=$(cat "$WORK/moderation.json")
  else
    echo "moderation step failed (see above)" >&2
  fi
fi
# 10. Notifications.
NOTIFY_JSON=null
if ! skipped notifications; then
  if python3 bench/notifications.py --bin "$BUILD/plauditd" --duration "${DUR%s}" \
       --connections "$CONN" --json "$WORK/notifications.json" >&2; then
    NOTIFY_JSON=$(cat "$WORK/notifications.json")
  else
    echo "notifications step failed (see above)" >&2
  fi
fi
# 11. MariaDB.
MARIADB_JSON=null
if ! skipped mariadb; then
  if python3 bench/mariadb.py --bin "$BUILD/plauditd" --flush-bin "$BUILD/bench_flush" \
       --duration "${DUR%s}" --connections "$CONN" --json "$WORK/mariadb.json" >&2; then
    MARIADB_JSON=$(cat "$WORK/mariadb.json")
  else
    echo "mariadb step failed (see above)" >&2
  fi
fi
# 12. Live updates.
LIVE_JSON=null
if ! skipped live; then
  if python3 bench/live.py --bin "$BUILD/plauditd" --json "$WORK/live.json" >&2; then
    LIVE_JSON=$(cat "$WORK/live.json")
  else
    echo "live step failed (see above)" >&2
  fi
fi
# 13. Search.
SEARCH_JSON=null
if ! skipped search; then
  if python3 bench/search.py --bin "$BUILD/plauditd" --json "$WORK/search.json" >&2; then
    SEARCH_JSON=$(cat "$WORK/search.json")
  else
    echo "search step failed (see above)" >&2
  fi
fi

# 6. Results and report.
check_targets
write_results "$RESULTS"
python3 bench/report.py "$RESULTS" --started "$BENCH_START" --build "$BUILD" --lua-dir "$LUA_DIR" \
  --lua-note "$LUA_NOTE" ${BPL_NOTE:+--like-memory-stale} --rt-method "$RT_METHOD" \
  --idle-writes "$IDLE_WRITES" --idle-reads "$IDLE_READS" --hot-id "$HOT_ID" \
  --create-id "$CREATE_ID" --resp-ns "$RESP_NS" --flush-sqlite-line "$FLUSH_SQLITE_LINE" \
  --flush-pg-line "$FLUSH_PG_LINE" --pg-version "$PG_VERSION" --like-script-rounds "$LS_ROUNDS" \
  --deep-plog "$DEEP_PLOG"
echo "wrote $RESULTS and docs/benchmarks.md ($(($(date +%s) - BENCH_START)) s)" >&2
