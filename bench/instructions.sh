#!/usr/bin/env bash
# Instructions per request, counted by callgrind: unlike req/s on a shared 2-core box (hello
# moved between 49k and 95k req/s within minutes), an instruction count repeats, so it shows
# what a change to the request path costs or saves. Two servers, each under
# `valgrind --tool=callgrind`, each driven by `wrk -t1 -c64` for INSTR_DURATION (default 5s)
# after a 2 s warm-up, counters zeroed between the two (callgrind_control -z):
#   - plauditd on DATA (a data dir seeded by bench/run.sh and stopped), with the like_put_spread
#     mix (bench/wrk/like_put_spread.lua): every thread's instructions, so the write-behind
#     flusher's SQL work in that window is included;
#   - the same, plauditd run natively and its embedded redis-server under callgrind instead
#     (--redis-server-bin names a wrapper that execs valgrind): the instructions Redis spends
#     in scripts (evalShaCommand, inclusive: the Lua run, its redis.calls and their AOF
#     propagation) per like. Not the whole process: slowed down ~50×, Redis's timers (cron,
#     expiry, rehashing of this run's million-key data set) would weigh per like what they
#     never weigh at full speed;
#   - bench_hello (the reference server), plain GETs.
# Usage: bench/instructions.sh BUILD_DIR DATA_DIR IDS_FILE TOKENS_FILE
# Prints one line: like_instr_per_req=N like_requests=N redis_script_instr_per_like=N
# redis_requests=N hello_instr_per_req=N hello_requests=N
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=$1 DATA=$2 IDS=$3 TOKENS=$4
DUR=${INSTR_DURATION:-5s}
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null ||
  { echo "valgrind is needed: bash scripts/install-deps.sh" >&2; exit 1; }
WORK=$(mktemp -d /tmp/plaudit-instr-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

source bench/lib/common.sh  # wait_port_line

# measure NAME PID URL [wrk args…] → "instructions requests"
measure() {
  local name=$1 pid=$2 url=$3
  shift 3
  wrk -t1 -c64 -d2s "$@" "$url" >/dev/null
  callgrind_control -z "$pid" >/dev/null 2>&1
  wrk -t1 -c64 -d"$DUR" "$@" "$url" >"$WORK/$name.wrk"
  callgrind_control -d "$pid" >/dev/null 2>&1
  local dump=$WORK/$name.out.1 total=""
  for _ in $(seq 1 100); do
    total=$(awk '$1 == "totals:" || $1 == "summary:" { print $2; exit }' "$dump" 2>/dev/null || true)
    [ -n "$total" ] && break
    sleep 0.1
  done
  local requests
  requests=$(awk '/ requests in / { print $1 }' "$WORK/$name.wrk")
  [ -n "$total" ] && [ "${requests:-0}" -gt 0 ] ||
    { echo "no callgrind count for $name" >&2; cat "$WORK/$name.wrk" >&2; return 1; }
  echo "$total $requests"
}

valgrind --tool=callgrind --callgrind-out-file="$WORK/like.out" "$BUILD/plauditd" \
  --data-dir "$DATA" --port 0 --rate-limits off --password-hash minimal --log-level info \
  >"$WORK/plauditd.log" 2>&1 &
PL=$!
pids+=("$PL")
PORT=$(wait_port_line "$WORK/plauditd.log" 'listening on http://127.0.0.1:[0-9]+' 60)
for _ in $(seq 1 300); do
  curl -fsS "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break
  sleep 0.1
done
read -r LIKE_I LIKE_N < <(BENCH_WRK_DIR=$PWD/bench/wrk BENCH_IDS=$IDS BENCH_TOKENS=$TOKENS \
  measure like "$PL" "http://127.0.0.1:$PORT/" -s bench/wrk/like_put_spread.lua)
[ -n "${LIKE_N:-}" ] || exit 1
kill -TERM "$PL"
wait "$PL" 2>/dev/null || true

# Redis's share: plauditd native, its embedded redis-server under callgrind (valgrind runs
# in the redis-server process itself, so the pidfile names it).
REDIS_BIN=$(command -v redis-server)
cat >"$WORK/redis-callgrind" <<WRAP
#!/bin/sh
exec valgrind --tool=callgrind --callgrind-out-file="$WORK/redis.out" "$REDIS_BIN" "\$@"
WRAP
chmod +x "$WORK/redis-callgrind"
"$BUILD/plauditd" --data-dir "$DATA" --port 0 --rate-limits off --password-hash minimal \
  --log-level info --redis-server-bin "$WORK/redis-callgrind" >"$WORK/plauditd-r.log" 2>&1 &
PR=$!
pids+=("$PR")
# Under valgrind Redis replays this run's AOF (a million comments) for a minute or more,
# answering LOADING meanwhile; plauditd listens before that ends.
RPORT=$(wait_port_line "$WORK/plauditd-r.log" 'listening on http://127.0.0.1:[0-9]+' 900)
for _ in $(seq 1 9000); do
  [ "$(redis-cli -s "$DATA/redis/redis.sock" PING 2>/dev/null)" = PONG ] && break
  sleep 0.1
done
ready=""
for _ in $(seq 1 300); do
  curl -fsS "http://127.0.0.1:$RPORT/readyz" >/dev/null 2>&1 && { ready=1; break; }
  sleep 0.1
done
[ -n "$ready" ] || { echo "plauditd with redis-server under callgrind never got ready" >&2; exit 1; }
RPID=$(cat "$DATA/redis/redis.pid")
read -r REDIS_I REDIS_N < <(BENCH_WRK_DIR=$PWD/bench/wrk BENCH_IDS=$IDS BENCH_TOKENS=$TOKENS \
  measure redis "$RPID" "http://127.0.0.1:$RPORT/" -s bench/wrk/like_put_spread.lua)
[ -n "${REDIS_N:-}" ] || exit 1
# awk reads to the end: leaving early would kill callgrind_annotate with SIGPIPE mid-write, and
# under pipefail the failed pipeline ended this script without a word (make bench's
# instructions rows read "not measured" on a big profile, 2026-12-01).
REDIS_SCRIPT_I=$(callgrind_annotate --inclusive=yes --threshold=100 "$WORK/redis.out.1" 2>/dev/null |
  awk '!found && $NF ~ /^\[/ && $(NF-1) ~ /:evalShaCommand$/ { gsub(",", "", $1); print $1; found = 1 }')
[ -n "$REDIS_SCRIPT_I" ] || { echo "no evalShaCommand in redis-server's profile" >&2; exit 1; }
kill -TERM "$PR"
wait "$PR" 2>/dev/null || true

valgrind --tool=callgrind --callgrind-out-file="$WORK/hello.out" "$BUILD/bench_hello" 0 \
  >"$WORK/hello.log" 2>&1 &
HL=$!
pids+=("$HL")
HPORT=$(wait_port_line "$WORK/hello.log" 'listening on [0-9]+' 60)
read -r HELLO_I HELLO_N < <(measure hello "$HL" "http://127.0.0.1:$HPORT/")
[ -n "${HELLO_N:-}" ] || exit 1

echo "like_instr_per_req=$((LIKE_I / LIKE_N)) like_requests=$LIKE_N" \
  "redis_script_instr_per_like=$((REDIS_SCRIPT_I / REDIS_N)) redis_requests=$REDIS_N" \
  "hello_instr_per_req=$((HELLO_I / HELLO_N)) hello_requests=$HELLO_N"
