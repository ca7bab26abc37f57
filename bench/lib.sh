# Shared by the bench scripts (sourced, from the repository root).

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
