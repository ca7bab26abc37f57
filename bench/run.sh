#!/usr/bin/env bash
# make bench: measures plauditd against a reference server measured in the same run, on the
# same cores, and writes bench/results/<date>.json and docs/benchmarks.md.
#   BENCH_DURATION (default 10s)   BENCH_CONNECTIONS (default 64)   BENCH_THREADS (default 1)
#   BUILD_DIR (default build)
#   BENCH_FLUSH_PG: auto (default: PostgreSQL flush bench when initdb is installed), 1 (required),
#                   0 (skip). BENCH_DB=postgresql means BENCH_FLUSH_PG=1.
#
# Steps (about 2.5 minutes on 2 cores with the defaults):
#   1. bench/hello and plauditd (embedded Redis + SQLite; --rate-limits off --password-hash
#      minimal --bootstrap-admin benchadmin:benchpassword), seeded through the API with curl:
#      author 'bench', 200 published articles, 1,000 users with one session token each.
#   2. wrk scenarios (bench/wrk/*.lua), each bounded by BENCH_DURATION. Around each one:
#      Redis INFO (commandstats, total_commands_processed) before/after → commands per request;
#      then a 1 s probe at 8 connections under MONITOR → the commands plauditd itself sends per
#      request, by name (EVALSHA shown as its script's file name).
#   3. redis-benchmark reference: like_set.lua by EVALSHA on the same embedded Redis.
#   4. bench_flush (sql::LikeTable::Apply) on SQLite and on a private PostgreSQL server.
#   5. bench/like_memory.sh: bytes per like record at 1,000,000 records.
#   6. bench/results/<date>.json, docs/benchmarks.md, docs/bench-throughput.png (gnuplot).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

DUR=${BENCH_DURATION:-10s}
CONN=${BENCH_CONNECTIONS:-64}
THREADS=${BENCH_THREADS:-1}
BUILD=${BUILD_DIR:-build}
FLUSH_PG=${BENCH_FLUSH_PG:-auto}
[ "${BENCH_DB:-}" = postgresql ] && FLUSH_PG=1
STAMP=$(date -u +%Y-%m-%dT%H-%M-%SZ)
WORK=$(mktemp -d /tmp/plaudit-bench-XXXXXX)
RESULTS=bench/results/$STAMP.json
BENCH_START=$SECONDS
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
pids=()
PG_ROOT=
PLAUDITD_PID=

stop_postgres() {
  [ -n "$PG_ROOT" ] || return 0
  local pidfile=$PG_ROOT/data/postmaster.pid
  if [ -f "$pidfile" ]; then
    # The postmaster itself (runuser would turn any signal into a "smart" SIGTERM).
    kill -INT "$(head -1 "$pidfile")" 2>/dev/null || true
    for _ in $(seq 1 100); do [ -f "$pidfile" ] || break; sleep 0.1; done
  fi
  rm -rf "$PG_ROOT"
  PG_ROOT=
}
forget_pid() {  # a reaped child: never signal its (reusable) pid again
  local keep=() p
  for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  pids=("${keep[@]}")
}
cleanup() {
  stop_postgres
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

for target in bench_hello plauditd bench_flush; do
  if [ ! -x "$BUILD/$target" ]; then
    cmake --build "$BUILD" -j2 --target "$target" >&2
  fi
done

wait_port_line() {  # file regex → prints the port once the log names it
  for _ in $(seq 1 300); do
    if port=$(grep -oE "$2" "$1" 2>/dev/null | grep -oE '[0-9]+$' | head -1) && [ -n "$port" ]; then
      echo "$port"; return 0
    fi
    sleep 0.05
  done
  echo "no port in $1" >&2; cat "$1" >&2; return 1
}

"$BUILD/bench_hello" 0 >"$WORK/hello.log" 2>&1 &
pids+=($!)
HELLO_PORT=$(wait_port_line "$WORK/hello.log" 'listening on [0-9]+')

DATA=$WORK/data
SOCK=$DATA/redis/redis.sock
PLAUDITD_ARGS=(--data-dir "$DATA" --port 0 --rate-limits off --password-hash minimal
  --bootstrap-admin benchadmin:benchpassword --log-level info)
"$BUILD/plauditd" "${PLAUDITD_ARGS[@]}" >"$WORK/plauditd.log" 2>&1 &
PLAUDITD_PID=$!
pids+=("$PLAUDITD_PID")
PORT=$(wait_port_line "$WORK/plauditd.log" 'listening on http://127.0.0.1:[0-9]+')
for _ in $(seq 1 200); do
  curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
  sleep 0.05
done
rcli() { redis-cli -s "$SOCK" "$@"; }

# ---------------------------------------------------------------------------------------------
# 1. Seed through the API: a few curl processes, each sending its share of the requests on
# one keep-alive connection (curl -K config with `next`), 4 at a time.
API=http://127.0.0.1:$PORT/api/v1
json_token() { grep -oE '"token":"[^"]+"' | head -1 | cut -d'"' -f4; }
post_json() {  # path body [token]
  curl -fsS -X POST -H 'Content-Type: application/json' ${3:+-H "Authorization: Bearer $3"} \
    -d "$2" "$API$1"
}
# curl_posts PATH [TOKEN] < bodies (one JSON body a line, no backslashes) → one response a
# line on stdout. 4 curl processes in parallel, output in input order.
curl_posts() {
  local path=$1 token=${2:-} chunk curls=()
  cat >"$WORK/post.in"
  split -n l/4 -d "$WORK/post.in" "$WORK/post."
  for chunk in "$WORK"/post.0[0-3]; do
    awk -v url="$API$path" -v token="$token" '{
      gsub(/"/, "\\\"")
      if (NR > 1) print "next"
      print "url = \"" url "\""
      print "request = \"POST\""
      print "fail"
      print "header = \"Content-Type: application/json\""
      if (token != "") print "header = \"Authorization: Bearer " token "\""
      print "data = \"" $0 "\""
      print "write-out = \"\\n\""
    }' "$chunk" >"$chunk.conf"
    curl -sS -K "$chunk.conf" >"$chunk.out" &
    curls+=($!)
  done
  wait "${curls[@]}" || true  # failures show as missing lines, counted below
  cat "$WORK"/post.0[0-3].out
  rm -f "$WORK"/post.*
}

SEED_START=$SECONDS
ADMIN_TOKEN=$(post_json /sessions '{"username":"benchadmin","password":"benchpassword"}' | json_token)
AUTHOR_ID=$(post_json /users '{"username":"bench","password":"bench-password"}' |
  sed -nE 's/^\{"id":([0-9]+).*/\1/p')
curl -fsS -o /dev/null -X PATCH -H 'Content-Type: application/json' \
  -H "Authorization: Bearer $ADMIN_TOKEN" -d '{"role":"author"}' "$API/users/$AUTHOR_ID"
AUTHOR_TOKEN=$(post_json /sessions '{"username":"bench","password":"bench-password"}' | json_token)

# ~1.6 KB of HTML per article, like a short post (single-quoted attributes: no JSON escapes).
para="<p>Plaudit benchmark article body: a paragraph of ordinary prose with <em>some</em> markup and a <a href='https://example.com/x'>link</a>, repeated.</p>"
ARTICLE_BODY=$(for _ in $(seq 1 10); do printf '%s' "$para"; done)
for i in $(seq 1 200); do
  printf '{"title":"Bench article %d","content":"%s","status":"published"}\n' "$i" "$ARTICLE_BODY"
done | curl_posts /articles "$AUTHOR_TOKEN" | sed -nE 's/^\{"id":([0-9]+).*/\1/p' |
  sort -n >"$WORK/ids.txt"
seq 1 1000 | awk '{printf "{\"username\":\"benchuser%d\",\"password\":\"bench-password-%d\"}\n", $1, $1}' \
  >"$WORK/users.jsonl"
curl_posts /users <"$WORK/users.jsonl" >"$WORK/users.out"
curl_posts /sessions <"$WORK/users.jsonl" | grep -oE '"token":"[^"]+"' | cut -d'"' -f4 \
  >"$WORK/tokens.txt"
SEED_SECS=$((SECONDS - SEED_START))
N_IDS=$(grep -c . "$WORK/ids.txt" || true)
N_TOKENS=$(grep -c . "$WORK/tokens.txt" || true)
if [ "$N_IDS" -ne 200 ] || [ "$N_TOKENS" -ne 1000 ]; then
  echo "seeding failed: $N_IDS articles, $N_TOKENS tokens" >&2
  exit 1
fi
HOT_ID=$(head -1 "$WORK/ids.txt")
# One like by hand: the seeded data must work before it is measured.
check=$(curl -fsS -X PUT -H "Authorization: Bearer $(head -1 "$WORK/tokens.txt")" \
  "$API/articles/$HOT_ID/like")
grep -q '"liked":true' <<<"$check" || { echo "like check failed: $check" >&2; exit 1; }
echo "seeded 1 author, $N_IDS articles, $N_TOKENS users with sessions in ${SEED_SECS}s" >&2

export BENCH_WRK_DIR=$ROOT/bench/wrk BENCH_IDS=$WORK/ids.txt BENCH_TOKENS=$WORK/tokens.txt
export BENCH_HOT_ID=$HOT_ID

# sha1 → script file name, to name the EVALSHA calls seen by MONITOR.
for f in src/redis/lua/*.lua; do
  echo "$(sha1sum <"$f" | cut -c1-40) $(basename "$f" .lua)"
done >"$WORK/shas.txt"

# ---------------------------------------------------------------------------------------------
# 2. Scenarios.
redis_snap() {  # file ← "command calls" lines and "_total N"
  rcli INFO all | tr -d '\r' | awk -F'[:=,]' '
    /^cmdstat_/ { sub(/^cmdstat_/, "", $1); print $1, $3 }
    /^total_commands_processed:/ { print "_total", $2 }' >"$1"
}
# before after requests → "all-commands-per-request evalsha-per-request" (the INFO call that
# takes the second snapshot is not counted)
redis_delta() {
  awk -v n="$3" 'FNR == NR { b[$1] = $2; next }
    { d[$1] = $2 - b[$1] }
    END {
      if (n <= 0) { print "0 0"; exit }
      printf "%.2f %.2f\n", (d["_total"] - 1) / n, (d["evalsha"] + d["evalsha_ro"]) / n
    }' "$1" "$2"
}
# NAME URL [LUA] → "client-commands-per-request|breakdown": what plauditd sent to Redis per
# request, by command (EVALSHA by script name), from MONITOR during a 1 s run at 8 connections.
# Background work in that second (the flusher) is included and named.
probe() {
  local name=$1 url=$2 script=${3:-}
  local args=(-t1 -c8 -d1s)
  [ -n "$script" ] && args+=(-s "$script")
  # redis-cli itself, not a function (whose $! would be a subshell): kill must reach it.
  redis-cli -s "$SOCK" MONITOR >"$WORK/$name.monitor" 2>/dev/null &
  local mon=$!
  sleep 0.2
  wrk "${args[@]}" "$url" >"$WORK/$name.probe.txt" 2>&1
  sleep 0.3
  kill "$mon" 2>/dev/null || true
  wait "$mon" 2>/dev/null || true
  local reqs
  reqs=$(awk '/requests in/ {print $1}' "$WORK/$name.probe.txt")
  awk -v n="${reqs:-0}" 'FNR == NR { name[$1] = $2; next }
    $3 == "lua]" || $2 != "[0" && $2 !~ /^\[[0-9]+$/ { next }
    $4 ~ /^"/ {
      cmd = tolower($4); gsub(/"/, "", cmd)
      if (cmd == "evalsha" || cmd == "evalsha_ro") {
        sha = $5; gsub(/"/, "", sha)
        cmd = (sha in name) ? name[sha] ".lua" : "evalsha:" substr(sha, 1, 8)
      }
      c[cmd]++; total++
    }
    END {
      if (n <= 0) { print "0|"; exit }
      out = ""
      while (1) {  # by count, descending
        best = ""; for (k in c) if (best == "" || c[k] > c[best]) best = k
        if (best == "") break
        out = out (out == "" ? "" : ", ") sprintf("%s %.2f", best, c[best] / n)
        delete c[best]
      }
      printf "%.2f|%s\n", total / n, out
    }' "$WORK/shas.txt" "$WORK/$name.monitor"
}

# run NAME URL [LUA] [CONNECTIONS] → appends one JSON object line to $WORK/rows
run() {
  local name=$1 url=$2 script=${3:-} conns=${4:-$CONN}
  local args=(-t"$THREADS" -c"$conns" -d"$DUR" --latency)
  [ -n "$script" ] && args+=(-s "$script")
  local on_plauditd=0
  [[ $url == *":$PORT/"* ]] && on_plauditd=1
  [ $on_plauditd = 1 ] && redis_snap "$WORK/$name.before"
  wrk "${args[@]}" "$url" >"$WORK/$name.txt" 2>&1
  [ $on_plauditd = 1 ] && redis_snap "$WORK/$name.after"
  local rps p50 p99 errors requests all_cmds=null evalsha=null client=null breakdown=""
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$WORK/$name.txt")
  p50=$(awk '$1=="50%" {print $2}' "$WORK/$name.txt")
  p99=$(awk '$1=="99%" {print $2}' "$WORK/$name.txt")
  errors=$(awk '/Non-2xx or 3xx responses:/ {print $5}' "$WORK/$name.txt")
  requests=$(awk '/requests in/ {print $1}' "$WORK/$name.txt")
  if [ $on_plauditd = 1 ]; then
    read -r all_cmds evalsha < <(redis_delta "$WORK/$name.before" "$WORK/$name.after" "${requests:-0}")
    local p
    p=$(probe "$name" "$url" "$script")
    client=${p%%|*}
    breakdown=${p#*|}
  fi
  printf '{"scenario":"%s","rps":%s,"p50":"%s","p99":"%s","non2xx":%s,"connections":%s,"requests":%s,"redis_cmds_per_req":%s,"evalsha_per_req":%s,"client_cmds_per_req":%s,"client_cmds":"%s"}\n' \
    "$name" "${rps:-0}" "$p50" "$p99" "${errors:-0}" "$conns" "${requests:-0}" "$all_cmds" \
    "$evalsha" "$client" "$breakdown" >>"$WORK/rows"
  echo "$name: $rps req/s, p50 $p50, p99 $p99, non-2xx ${errors:-0}${breakdown:+; Redis per request: $all_cmds commands ($evalsha EVALSHA), sent by plauditd: $breakdown}" >&2
}

# What an idle plauditd sends to Redis (the flusher's periodic pass), to read the figures below.
redis_snap "$WORK/idle.before"
sleep 3
redis_snap "$WORK/idle.after"
IDLE_CMDS=$(awk 'FNR == NR { b[$1] = $2; next } $1 == "_total" { printf "%.0f", ($2 - b["_total"] - 1) / 3 }' \
  "$WORK/idle.before" "$WORK/idle.after")
echo "idle plauditd: $IDLE_CMDS Redis commands/s" >&2

run hello "http://127.0.0.1:$HELLO_PORT/"
run healthz "http://127.0.0.1:$PORT/healthz"
run readyz "http://127.0.0.1:$PORT/readyz"
run article_get "http://127.0.0.1:$PORT/" bench/wrk/article_get.lua
run article_list "http://127.0.0.1:$PORT/api/v1/articles?size=20" bench/wrk/article_list.lua
run like_put_spread "http://127.0.0.1:$PORT/" bench/wrk/like_put_spread.lua
run like_put_hot "http://127.0.0.1:$PORT/" bench/wrk/like_put_hot.lua
run like_status "http://127.0.0.1:$PORT/" bench/wrk/like_status.lua
# Logins at --password-hash minimal (a benchmark rig setting): the login path, not Argon2id's
# interactive cost; 4 connections.
run login "http://127.0.0.1:$PORT/api/v1/sessions" bench/wrk/login.lua 4

# ---------------------------------------------------------------------------------------------
# 3. redis-benchmark reference: like_set.lua on the same embedded Redis (AOF everysec).
# -r 100000: __rand_int__ becomes a random 12-digit, zero-padded user id (so a string member,
# not an intset one); each call likes (ARGV[2] = 1): the first call per user writes, repeats
# only read. k1 holds member 0 and k2 a count, so no call takes the "not loaded" exit.
LIKE_SHA=$(rcli -x SCRIPT LOAD <src/redis/lua/like_set.lua | tr -d '\r')
rb_like() {  # PIPELINE → "ops_per_s writes"
  rcli DEL 'k1{x}' 'k2{x}' 'k3{x}' 'k4{x}' 'k5{x}' >/dev/null
  rcli SADD 'k1{x}' 0 >/dev/null
  rcli SET 'k2{x}' 0 >/dev/null
  local ops
  ops=$(redis-benchmark -s "$SOCK" -c 50 -n 200000 -r 100000 -P "$1" -q \
      evalsha "$LIKE_SHA" 5 'k1{x}' 'k2{x}' 'k3{x}' 'k4{x}' 'k5{x}' __rand_int__ 1 m 2>&1 |
    tr '\r' '\n' | grep -oE '[0-9.]+ requests per second' | tail -1 | awk '{print $1}')
  echo "${ops:-0} $(rcli GET 'k2{x}' | tr -d '\r')"
}
rb_ping() {  # PIPELINE → ops/s of PING (the same Redis' floor cost per call, for scale)
  redis-benchmark -s "$SOCK" -c 50 -n 100000 -P "$1" -q -t ping_mbulk 2>&1 |
    tr '\r' '\n' | grep -oE '[0-9.]+ requests per second' | tail -1 | awk '{print $1}'
}
read -r RB1 RB1_WRITES < <(rb_like 1)
read -r RB16 RB16_WRITES < <(rb_like 16)
rcli DEL 'k1{x}' 'k2{x}' 'k3{x}' 'k4{x}' 'k5{x}' >/dev/null
RBPING1=$(rb_ping 1)
RBPING16=$(rb_ping 16)
REDIS_VERSION=$(rcli INFO server | tr -d '\r' | awk -F: '$1=="redis_version" {print $2}')
echo "redis-benchmark EVALSHA like_set.lua: $RB1 ops/s unpipelined ($RB1_WRITES of 200000 wrote), $RB16 ops/s with -P 16 ($RB16_WRITES wrote)" >&2

# plauditd's part is done: stop it (drain, last flush, embedded Redis stops with it).
kill -TERM "$PLAUDITD_PID"
wait "$PLAUDITD_PID" 2>/dev/null || true
forget_pid "$PLAUDITD_PID"

# ---------------------------------------------------------------------------------------------
# 4. Write-behind flush throughput: sql::LikeTable::Apply, 200,000 changes in batches of 10,000.
FLUSH_SQLITE_LINE=$("$BUILD/bench_flush")
FLUSH_SQLITE=$(grep -oE 'changes_per_s=[0-9]+' <<<"$FLUSH_SQLITE_LINE" | cut -d= -f2)
echo "flush $FLUSH_SQLITE_LINE" >&2

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$PG_BIN" ] && command -v initdb >/dev/null; then PG_BIN=$(dirname "$(command -v initdb)"); fi
FLUSH_PG_RATE=null
FLUSH_PG_LINE="not run"
if [ "$FLUSH_PG" != 0 ] && [ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ]; then
  # A private server: own data directory, Unix socket only; fsync and synchronous_commit at
  # their defaults (on), since this measures durable writes. (initdb --no-sync only skips
  # syncing initdb's own files.)
  PG_ROOT=$(mktemp -d /tmp/plaudit-bench-pg-XXXXXX)
  chmod 755 "$PG_ROOT"
  mkdir "$PG_ROOT/sock"
  as_pg=()
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres:postgres "$PG_ROOT"
    as_pg=(runuser -u postgres --)
  fi
  "${as_pg[@]}" "$PG_BIN/initdb" -D "$PG_ROOT/data" -U postgres -A trust -E UTF8 --locale=C \
    --no-sync >"$WORK/initdb.log" 2>&1
  "${as_pg[@]}" "$PG_BIN/postgres" -D "$PG_ROOT/data" -k "$PG_ROOT/sock" -p 5432 \
    -c listen_addresses= >"$WORK/postgres.log" 2>&1 &
  PG_PID=$!
  pids+=("$PG_PID")
  for _ in $(seq 1 200); do
    "$PG_BIN/pg_isready" -q -h "$PG_ROOT/sock" -p 5432 && break
    sleep 0.1
  done
  "$PG_BIN/psql" -X -q -h "$PG_ROOT/sock" -p 5432 -U postgres -d postgres -c 'CREATE DATABASE bench'
  FLUSH_PG_LINE=$("$BUILD/bench_flush" "postgresql://postgres@/bench?host=$PG_ROOT/sock&port=5432")
  FLUSH_PG_RATE=$(grep -oE 'changes_per_s=[0-9]+' <<<"$FLUSH_PG_LINE" | cut -d= -f2)
  PG_VERSION=$("$PG_BIN/postgres" --version | awk '{print $3}')
  stop_postgres
  wait "$PG_PID" 2>/dev/null || true
  forget_pid "$PG_PID"
  echo "flush $FLUSH_PG_LINE (PostgreSQL $PG_VERSION, fsync on, synchronous_commit on)" >&2
elif [ "$FLUSH_PG" = 1 ]; then
  echo "BENCH_FLUSH_PG=1 but PostgreSQL's initdb is not installed" >&2
  exit 1
else
  echo "flush postgresql: skipped (initdb not installed, or BENCH_FLUSH_PG=0)" >&2
fi

# ---------------------------------------------------------------------------------------------
# 5. Bytes per like record at 1,000,000 records.
LIKEMEM=$(bash bench/like_memory.sh 2>"$WORK/likemem.txt")
cat "$WORK/likemem.txt" >&2
jnum() { grep -oE "\"$1\":[0-9.]+" <<<"$LIKEMEM" | cut -d: -f2; }
BPL=$(jnum bytes_per_like)
BPL_COUNTS=$(jnum bytes_per_like_with_counts)
BPL_KEYS=$(jnum like_keys)
BPL_PER_TARGET=$(jnum bytes_per_like_per_target_set)
BPL_COUNT_KEY=$(jnum bytes_per_count_key)

# ---------------------------------------------------------------------------------------------
# 6. Results and report.
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
field() { sed -E "s/.*\"$2\":(\"([^\"]*)\"|([^,}]*)).*/\2\3/" <<<"$1"; }
row_of() { grep "\"scenario\":\"$1\"" "$WORK/rows"; }
HELLO_RPS=$(field "$(row_of hello)" rps)
ratio_of() { awk -v a="$(field "$(row_of "$1")" rps)" -v b="$HELLO_RPS" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
to_ms() { awk -v s="$1" 'BEGIN { n = s + 0; if (s ~ /us$/) n /= 1000; else if (s ~ /ms$/) n += 0; else if (s ~ /s$/) n *= 1000; printf "%.2f", n }'; }
met() { if [ "$1" = 1 ]; then echo "**met**"; else echo "**not met**"; fi; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "" && a != "null" && a + 0 >= b + 0) ? 1 : 0 }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "" && a != "null" && a + 0 < b + 0) ? 1 : 0 }'; }

TARGET_ROWS=()
targets_json=()
add_target() {  # name target measured ok
  TARGET_ROWS+=("| $1 | $2 | $3 | $(met "$4") |")
  targets_json+=("{\"target\":\"$1\",\"goal\":\"$2\",\"measured\":\"$3\",\"met\":$([ "$4" = 1 ] && echo true || echo false)}")
}
for s in like_put_spread like_put_hot; do
  r=$(ratio_of $s)
  p99=$(field "$(row_of $s)" p99)
  p99ms=$(to_ms "$p99")
  n2=$(field "$(row_of $s)" non2xx)
  ok=$([ "$(ge "$r" 0.5)" = 1 ] && [ "$(lt "$p99ms" 5)" = 1 ] && [ "$n2" = 0 ] && echo 1 || echo 0)
  add_target "like (\`$s\`), $CONN connections" "≥ 0.5× hello, p99 < 5 ms, no errors" "${r}× hello, p99 $p99" "$ok"
done
for s in article_list article_get; do
  r=$(ratio_of $s)
  add_target "page (\`$s\`)" "≥ 0.3× hello" "${r}× hello" "$(ge "$r" 0.3)"
done
add_target "flush, SQLite" "≥ 100,000 changes/s" "${FLUSH_SQLITE:-0} changes/s" "$(ge "${FLUSH_SQLITE:-0}" 100000)"
if [ "$FLUSH_PG_RATE" != null ]; then
  add_target "flush, PostgreSQL" "≥ 30,000 changes/s" "$FLUSH_PG_RATE changes/s" "$(ge "$FLUSH_PG_RATE" 30000)"
else
  TARGET_ROWS+=("| flush, PostgreSQL | ≥ 30,000 changes/s | not measured (no initdb, or BENCH_FLUSH_PG=0) | **unknown** |")
fi
add_target "memory per like record (1,000,000)" "≤ 24 bytes" "$BPL bytes ($BPL_COUNTS with count keys)" "$(lt "$BPL" 24.0001)"

{
  echo "{\"date\":\"$STAMP\",\"cores\":$(nproc),\"loadavg_start\":\"$LOAD_START\",\"loadavg_end\":\"$LOAD_END\",\"connections\":$CONN,\"threads\":$THREADS,\"duration\":\"$DUR\","
  echo "\"idle_redis_cmds_per_s\":${IDLE_CMDS:-0},\"seed\":{\"articles\":$N_IDS,\"users\":$N_TOKENS,\"seconds\":$SEED_SECS},"
  echo "\"rows\":["
  paste -sd, "$WORK/rows"
  echo "],"
  echo "\"redis_benchmark\":{\"redis_version\":\"$REDIS_VERSION\",\"script\":\"like_set.lua\",\"clients\":50,\"requests\":200000,\"unpipelined_ops\":$RB1,\"unpipelined_writes\":${RB1_WRITES:-0},\"pipelined16_ops\":$RB16,\"pipelined16_writes\":${RB16_WRITES:-0},\"ping_unpipelined_ops\":${RBPING1:-0},\"ping_pipelined16_ops\":${RBPING16:-0}},"
  echo "\"flush\":{\"sqlite_changes_per_s\":${FLUSH_SQLITE:-0},\"postgresql_changes_per_s\":$FLUSH_PG_RATE},"
  echo "\"like_memory\":$LIKEMEM,"
  echo "\"targets\":[$(IFS=,; echo "${targets_json[*]}")]"
  echo "}"
} >"$RESULTS"

# Chart: req/s per scenario next to hello's (gnuplot, when installed).
CHART_NOTE="No chart: gnuplot is not installed (\`apt-get install gnuplot-nox\`, then rerun)."
if command -v gnuplot >/dev/null; then
  while IFS= read -r row; do
    echo "$(field "$row" scenario) $(field "$row" rps)"
  done <"$WORK/rows" >"$WORK/chart.dat"
  if gnuplot <<GP 2>"$WORK/gnuplot.log"; then
set terminal pngcairo size 900,420 font "sans,10" noenhanced
set output "docs/bench-throughput.png"
set title "plauditd req/s per scenario vs the hello reference ($(nproc) cores, wrk -c$CONN, $STAMP)"
set style fill solid 0.8 border -1
set boxwidth 0.7
set ylabel "requests/s"
set yrange [0:*]
set xrange [-0.6:$(($(wc -l <"$WORK/chart.dat") - 1)).6]
set grid ytics
set xtics rotate by -30 nomirror
set key off
plot "$WORK/chart.dat" using 0:2:xtic(1) with boxes lc rgb "#4477aa", \
     "$WORK/chart.dat" using 0:2:(sprintf("%.0f", \$2)) with labels offset 0,0.7, \
     $HELLO_RPS with lines dt 2 lc rgb "#cc3311"
GP
    CHART_NOTE="![req/s per scenario](bench-throughput.png)

The dashed line is \`hello\`."
  else
    CHART_NOTE="No chart: gnuplot failed ($(head -1 "$WORK/gnuplot.log"))."
  fi
fi

{
  cat <<HDR
# Benchmarks

Generated by \`make bench\` (bench/run.sh) on $(date -u +%Y-%m-%d), $(nproc) cores,
\`wrk -t$THREADS -c$CONN -d$DUR --latency\`; wrk shares the cores with the servers.
Raw figures: \`$RESULTS\`. Every scenario is also given as a ratio to \`hello\`, a minimal
Beast/Asio server from the same stack (bench/hello) measured in the same run, so the
figures compare across noisy machines. Load average (1/5/15 min) at the start of this run:
$LOAD_START, at the end: $LOAD_END — the 2 cores were shared with other work, so absolute
figures are low and noisy; the ratios are the comparable part.

plauditd ran embedded (own \`redis-server\` with AOF everysec, SQLite in WAL) with
\`--rate-limits off --password-hash minimal\`, everything else default (flush every 1 s, so
the like scenarios include the write-behind flusher's work). Seeded through the API with
curl (4 processes at a time, one keep-alive connection each) in ${SEED_SECS} s: 1 author, $N_IDS published articles (~1.6 KB of HTML
each), $N_TOKENS users with one session each.

| scenario | connections | req/s | p50 | p99 | non-2xx | ratio to hello |
|---|---|---|---|---|---|---|
HDR
  while IFS= read -r row; do
    name=$(field "$row" scenario)
    echo "| $name | $(field "$row" connections) | $(field "$row" rps) | $(field "$row" p50) | $(field "$row" p99) | $(field "$row" non2xx) | $(ratio_of "$name") |"
  done <"$WORK/rows"
  cat <<'MID'

## Targets

An unmet target is listed as such; nothing here is tuned to pass.

| target | goal | measured | |
|---|---|---|---|
MID
  printf '%s\n' "${TARGET_ROWS[@]}"
  cat <<MID

## Redis commands per request

- *all*: (\`total_commands_processed\` after − before) / requests wrk made, from \`INFO\` around
  the timed run; counts the commands scripts run inside Redis too (a like script's SISMEMBER,
  GET, SADD, …) and the flusher's work in that window.
- *EVALSHA*: \`cmdstat_evalsha\` calls (+ \`evalsha_ro\`) / requests, same window.
- *sent by plauditd*: the commands plauditd itself sent per request, from \`MONITOR\` during a
  separate 1 s run at 8 connections (\`[lua]\` lines, i.e. commands inside scripts, not
  counted); EVALSHA calls are named by their script. Background flusher calls in that second
  appear by name (e.g. \`like_claim.lua\`).

An idle plauditd sends $IDLE_CMDS commands/s (measured over 3 s before the scenarios): the
flusher's pass every second (\`scard\`, \`zcard\`, \`zrange\` below are its per-shard checks,
\`spop\` the view counts); at low request rates this dominates *all*.

| scenario | all | EVALSHA | sent by plauditd | sent by plauditd, by command |
|---|---|---|---|---|
MID
  while IFS= read -r row; do
    name=$(field "$row" scenario)
    [ "$(field "$row" redis_cmds_per_req)" = null ] && continue
    echo "| $name | $(field "$row" redis_cmds_per_req) | $(field "$row" evalsha_per_req) | $(field "$row" client_cmds_per_req) | $(field "$row" client_cmds) |"
  done <"$WORK/rows"
  like_row=$(row_of like_put_spread)
  cat <<MID

A like was expected to cost ~2 commands (\`like_set.lua\` + the \`session_get.lua\` lookup).
Measured (\`like_put_spread\`): $(field "$like_row" client_cmds_per_req) commands sent per request —
$(field "$like_row" client_cmds) — and $(field "$like_row" redis_cmds_per_req) commands
executed in Redis per request counting those inside scripts and the flusher's.
MID
  cat <<MID

## redis-benchmark reference (same run, same Redis)

\`like_set.lua\` loaded with \`SCRIPT LOAD\` into plauditd's embedded Redis $REDIS_VERSION
(Unix socket, AOF everysec), 50 clients, 200,000 calls, after \`SADD k1{x} 0\` and
\`SET k2{x} 0\`. \`-r 100000\` makes \`__rand_int__\` a random user id (12-digit, zero-padded:
a string member, so \`k1{x}\` is a hashtable here, not an intset); every call likes, so the
first call per user writes (SADD, INCR, TIME, SET, HSET, ZADD) and repeats only read.

| run | ops/s | calls that wrote |
|---|---|---|
| unpipelined | $RB1 | $RB1_WRITES of 200,000 |
| \`-P 16\` | $RB16 | $RB16_WRITES of 200,000 |
| PING (\`-t ping_mbulk\`, 100,000), unpipelined | $RBPING1 | |
| PING, \`-P 16\` | $RBPING16 | |

For scale: MEASURED.md found ~47k like-script calls/s unpipelined (121k with \`-P 16\`) on a
quiet box of this kind, Redis then using a whole core. A \`like_put_spread\` request above
sends $(field "$(row_of like_put_spread)" client_cmds_per_req) commands (EVALSHA: $(field "$(row_of like_put_spread)" evalsha_per_req) per request).

## Write-behind flush throughput

\`bench_flush\` (bench/flush_bench.cpp): \`sql::LikeTable::Apply\` with 200,000 like changes in
20 batches of 10,000 (one flusher claim each: 100 articles × 100 users, one absolute count per
article, 10% unlikes), new rows each; only the Apply calls are timed.

| database | changes/s | |
|---|---|---|
| SQLite (WAL, synchronous=NORMAL, temp dir) | ${FLUSH_SQLITE:-0} | \`$FLUSH_SQLITE_LINE\` |
| PostgreSQL ${PG_VERSION:-} (private server, Unix socket, fsync on, synchronous_commit on) | $FLUSH_PG_RATE | \`$FLUSH_PG_LINE\` |

## Memory per like record

bench/like_memory.sh: a private \`redis-server\` (no persistence) loaded by
\`redis-cli --pipe\` with 1,000,000 like records in Plaudit's layout: 100,000 users × 10,000
targets, each target liked by 100 distinct random users; keys
\`pl:lk:{l<target % 256>}:a<target>:<uid >> 8>\` (SET of integer ids plus member 0), then one
\`pl:lc:{l<shard>}:a<target>\` count per target. Figure: (used_memory after − before) / records.

| layout | keys | bytes per like |
|---|---|---|
| Plaudit (bucketed by \`uid >> 8\`) | $BPL_KEYS | $BPL |
| the same + 10,000 count keys | +10,000 | $BPL_COUNTS ($BPL_COUNT_KEY per count key) |
| for comparison: one SET per target, no user buckets | 10,000 | $BPL_PER_TARGET |

With 100 likers spread over 100,000 users, a target's likers fall in ~100 different buckets of
256 ids, so nearly every record is a key of its own (key, dict entry, object and a 2-member
intset) instead of 4 bytes inside a shared intset.

## Chart

$CHART_NOTE

## Scenarios
- \`hello\`: the reference server, fixed JSON body.
- \`healthz\`: plauditd's \`GET /healthz\` (router, metrics, JSON), no Redis or SQL.
- \`readyz\`: \`GET /readyz\`, one Redis PING and one SQL \`SELECT 1\` on the pool per request.
- \`article_get\`: \`GET /api/v1/articles/{id}\`, a random seeded id, anonymous (counts a view).
- \`article_list\`: \`GET /api/v1/articles?size=20\`, the first page, anonymous.
- \`like_put_spread\`: \`PUT\` or \`DELETE\` (at random) \`/api/v1/articles/{id}/like\`, a random
  seeded article, a random user's Bearer token.
- \`like_put_hot\`: the same, every request on one article (id $HOT_ID).
- \`like_status\`: \`GET /api/v1/likes?article=<20 consecutive seeded ids>\` with a random user's
  token.
- \`login\`: \`POST /api/v1/sessions\` with a correct password, 4 connections. With
  \`--password-hash minimal\` this is the login path at the minimal Argon2id cost, not the
  interactive cost (64 MiB, ~0.1 s) production uses.

Scripts: \`bench/wrk/*.lua\` (ids and tokens from the files named by \`BENCH_IDS\` and
\`BENCH_TOKENS\`, written while seeding).

## Reproduce

\`\`\`sh
make bench                                    # or: bash bench/run.sh (needs a release build in build/)
BENCH_DURATION=30s BENCH_CONNECTIONS=64 make bench
BENCH_FLUSH_PG=0 bash bench/run.sh            # skip PostgreSQL; BENCH_FLUSH_PG=1 requires it
./build/bench_flush                           # SQLite in a temp dir
./build/bench_flush 'postgresql://user@/db?host=/socket/dir&port=5432'   # an empty database
bash bench/like_memory.sh                     # bytes per like record
redis-cli -s <sock> -x SCRIPT LOAD < src/redis/lua/like_set.lua
redis-cli -s <sock> SADD 'k1{x}' 0; redis-cli -s <sock> SET 'k2{x}' 0
redis-benchmark -s <sock> -c 50 -n 200000 -r 100000 -q [-P 16] \\
  evalsha <sha> 5 'k1{x}' 'k2{x}' 'k3{x}' 'k4{x}' 'k5{x}' __rand_int__ 1 m
\`\`\`
Whole run: $((SECONDS - BENCH_START)) s.
MID
} >docs/benchmarks.md
echo "wrote $RESULTS and docs/benchmarks.md ($((SECONDS - BENCH_START)) s)" >&2
