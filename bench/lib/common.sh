# Shared by the bench scripts (sourced, from the repository root).
# shellcheck shell=bash

# wait_port_line FILE REGEX [SECONDS, default 15] → prints the port once the log names it
# (its last digits); on timeout prints the log to stderr and fails.
wait_port_line() {
  local port tries=$(( ${3:-15} * 20 ))
  for _ in $(seq 1 "$tries"); do
    if port=$(grep -oE "$2" "$1" 2>/dev/null | grep -oE '[0-9]+$' | head -1) && [ -n "$port" ]; then
      echo "$port"; return 0
    fi
    sleep 0.05
  done
  echo "no port in $1" >&2; cat "$1" >&2; return 1
}

# start_private_redis DIR [redis-server options…]: a redis-server of the bench's own on
# DIR/redis.sock (no TCP, no RDB snapshots), its log in DIR/redis.log; sets redis_pid and
# returns once it answers PING. stop_private_redis stops it (safe to call twice, or before
# a start: for an EXIT trap).
start_private_redis() {
  local dir=$1
  shift
  redis-server --port 0 --unixsocket "$dir/redis.sock" --unixsocketperm 700 --save '' \
    --dir "$dir" --logfile "$dir/redis.log" "$@" &
  redis_pid=$!
  for _ in $(seq 1 200); do
    redis-cli -s "$dir/redis.sock" PING >/dev/null 2>&1 && return 0
    sleep 0.02
  done
  echo "redis-server did not start in $dir" >&2
  cat "$dir/redis.log" >&2 || true
  return 1
}

rcli() { redis-cli -s "$SOCK" "$@"; }  # the bench's Redis, on the Unix socket SOCK

stop_private_redis() {
  if [ -n "${redis_pid:-}" ]; then
    kill "$redis_pid" 2>/dev/null || true
    wait "$redis_pid" 2>/dev/null || true
    redis_pid=
  fi
}

# private_redis_workdir NAME: DIR (a new /tmp/plaudit-NAME-XXXXXX), SOCK (DIR/redis.sock, for
# start_private_redis DIR), and an EXIT trap that stops that server and removes DIR.
private_redis_workdir() {
  DIR=$(mktemp -d "/tmp/plaudit-$1-XXXXXX")
  SOCK=$DIR/redis.sock
  trap 'stop_private_redis; rm -rf "$DIR"' EXIT
}

# median: of the numbers on stdin (space or line separated; an even count: the mean of the two
# middle ones).
median() { tr ' ' '\n' | { grep . || true; } | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# to_ms LATENCY → milliseconds, 2 decimals, from a latency as wrk prints it (850.00us, 1.75ms, 1.02s).
to_ms() { awk -v s="$1" 'BEGIN { n = s + 0; if (s ~ /us$/) n /= 1000; else if (s ~ /ms$/) n += 0; else if (s ~ /s$/) n *= 1000; printf "%.2f", n }'; }
# wrk_summary FILE → "rps p50 p99 non2xx requests" from wrk --latency output (latencies as wrk
# prints them, e.g. 1.75ms; 0 for what is missing).
wrk_summary() {
  awk '/^Requests\/sec:/ { r = $2 } $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 }
       /Non-2xx or 3xx responses:/ { e = $5 } / requests in / { n = $1 }
       END { print (r == "" ? 0 : r), (p50 == "" ? 0 : p50), (p99 == "" ? 0 : p99), e + 0, n + 0 }' "$1"
}

# start_plauditd BINARY DATA_DIR LOG [plauditd options…]: plauditd on DATA_DIR, port 0, as the
# benchmarks run it (no rate limits, the minimal password hash, the bench admin), its output in
# LOG; appends its pid to the caller's pids array and sets PLAUDITD_PID and PLAUDITD_PORT once
# /readyz answers (fails after 10 s).
start_plauditd() {
  local binary=$1 data=$2 log=$3
  shift 3
  "$binary" --data-dir "$data" --port 0 --rate-limits off --password-hash minimal \
    --bootstrap-admin benchadmin:benchpassword "$@" >"$log" 2>&1 &
  PLAUDITD_PID=$!
  pids+=("$PLAUDITD_PID")
  PLAUDITD_PORT=$(wait_port_line "$log" 'listening on http://127.0.0.1:[0-9]+') || return 1
  for _ in $(seq 1 200); do
    curl -fsS "http://127.0.0.1:$PLAUDITD_PORT/readyz" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "plauditd ($log) did not become ready" >&2
  return 1
}

forget_pid() {  # PID: a reaped child, out of the caller's pids: never signal its (reusable) pid again
  local keep=() p
  for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  pids=("${keep[@]}")
}

# cleanup_on_exit: at exit, stop every process in the caller's `pids` array and remove its
# WORK directory (the trap every bench script sets).
cleanup_on_exit() {
  trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT
}
