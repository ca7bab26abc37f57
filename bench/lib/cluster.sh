# bench/run.sh's step 8 (issue 29): plauditd on a 3-primary Redis Cluster on this box
# (`--redis redis-cluster://…`, AOF everysec like the embedded Redis, no replicas), seeded as
# step 1 seeds, then like_put_spread, comment_page_anon and article_list with the same wrk
# settings as step 2. Around each: every primary's CPU (user + system, /proc) and
# total_commands_processed, and plauditd's CPU, per request: what shows the work spreads, and
# what sizes a deployment (docs/operations.md). → CLUSTER_JSON (null when skipped or failed).
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

CLUSTER_SCENARIOS=(like_put_spread comment_page_anon article_list)

# cluster_ports N → N ports p, each with p + 10000 (its cluster bus) free too
cluster_ports() {
  python3 - "$1" <<'EOF'
import random, socket, sys
want, got = int(sys.argv[1]), []
def free(p):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
        return True
    except OSError:
        return False
    finally:
        s.close()
while len(got) < want:
    p = random.randint(20000, 30000)
    if p not in got and free(p) and free(p + 10000):
        got.append(p)
print(" ".join(map(str, got)))
EOF
}

# node_ticks PORT → CPU clock ticks the redis-server on PORT has used
node_ticks() { awk '{ print $14 + $15 }' "/proc/$(cat "$CLUSTER_DIR/$1/redis.pid")/stat"; }
node_commands() { rcli_port "$1" INFO stats | awk -F: '/^total_commands_processed:/ { print $2 + 0 }'; }
rcli_port() { local p=$1; shift; redis-cli -p "$p" "$@" | tr -d '\r'; }

start_cluster() {
  local p nodes=()
  CLUSTER_DIR=$WORK/cluster
  read -r -a CLUSTER_PORTS <<<"$(cluster_ports 3)"
  for p in "${CLUSTER_PORTS[@]}"; do
    mkdir -p "$CLUSTER_DIR/$p"
    redis-server --bind 127.0.0.1 --port "$p" --dir "$CLUSTER_DIR/$p" --daemonize yes \
      --pidfile "$CLUSTER_DIR/$p/redis.pid" --logfile "$CLUSTER_DIR/$p/redis.log" \
      --cluster-enabled yes --cluster-config-file nodes.conf --save '' \
      --appendonly yes --appendfsync everysec --latency-tracking no
    nodes+=("127.0.0.1:$p")
  done
  for p in "${CLUSTER_PORTS[@]}"; do
    for _ in $(seq 1 100); do [ "$(rcli_port "$p" PING 2>/dev/null)" = PONG ] && break; sleep 0.05; done
  done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$CLUSTER_DIR/create.log" 2>&1 ||
    return 1
  for p in "${CLUSTER_PORTS[@]}"; do
    for _ in $(seq 1 200); do
      rcli_port "$p" CLUSTER INFO | grep -q '^cluster_state:ok' && break
      sleep 0.05
    done
    rcli_port "$p" CLUSTER INFO | grep -q '^cluster_state:ok' || return 1
  done
  CLUSTER_URL="redis-cluster://$(IFS=,; echo "${nodes[*]}")"
}

stop_cluster() {
  local p
  for p in "${CLUSTER_PORTS[@]:-}"; do
    [ -n "$p" ] && [ -f "$CLUSTER_DIR/$p/redis.pid" ] && kill "$(cat "$CLUSTER_DIR/$p/redis.pid")" 2>/dev/null
  done
  return 0
}

# cluster_row SCENARIO PLAUDITD_PID → one JSON object: req/s, p99, plauditd's and each
# primary's CPU µs and commands per request
cluster_row() {
  local s=$1 pid=$2 p t0=() c0=() t1=() c1=() p0 p1 hz out
  hz=$(getconf CLK_TCK)
  out=$CLUSTER_DIR/$s.wrk
  for p in "${CLUSTER_PORTS[@]}"; do t0+=("$(node_ticks "$p")"); c0+=("$(node_commands "$p")"); done
  p0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  wrk -t"$THREADS" -c"$CONN" -d"$DUR" --latency -s "bench/wrk/$s.lua" "http://127.0.0.1:$CLUSTER_HTTP_PORT/" >"$out" 2>&1
  p1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  for p in "${CLUSTER_PORTS[@]}"; do t1+=("$(node_ticks "$p")"); c1+=("$(node_commands "$p")"); done
  read -r rps _ p99 errors n <<<"$(wrk_summary "$out")"
  [ "$n" -gt 0 ] || { echo "cluster $s: no requests" >&2; cat "$out" >&2; return 1; }
  local nodes_json="" i
  for i in "${!CLUSTER_PORTS[@]}"; do
    nodes_json+=$(awk -v t="$((t1[i] - t0[i]))" -v c="$((c1[i] - c0[i]))" -v n="$n" -v hz="$hz" \
      -v port="${CLUSTER_PORTS[i]}" -v sep="$([ "$i" -gt 0 ] && echo ,)" \
      'BEGIN { printf "%s{\"port\":%d,\"cpu_us_per_req\":%.2f,\"commands_per_req\":%.3f}", sep, port, t * 1e6 / hz / n, c / n }')
  done
  awk -v s="$s" -v rps="$rps" -v p99="$p99" -v e="$errors" -v n="$n" -v pt="$((p1 - p0))" -v hz="$hz" \
    -v nodes="$nodes_json" \
    'BEGIN { printf "{\"scenario\":\"%s\",\"rps\":%s,\"p99\":\"%s\",\"non2xx\":%d,\"requests\":%d,\"plauditd_cpu_us_per_req\":%.2f,\"primaries\":[%s]}", s, rps, p99, e, n, pt * 1e6 / hz / n, nodes }'
}

run_cluster() {
  CLUSTER_JSON=null
  if ! start_cluster; then
    echo "cluster step: the cluster did not form (see $WORK/cluster/create.log)" >&2
    stop_cluster
    return 0
  fi
  local rows=() s row pid
  if ! start_plauditd "$BUILD/plauditd" "$CLUSTER_DIR/data" "$CLUSTER_DIR/plauditd.log" \
    --redis "$CLUSTER_URL"; then
    echo "cluster step: plauditd did not start" >&2
    stop_cluster
    return 0
  fi
  pid=$PLAUDITD_PID
  CLUSTER_HTTP_PORT=$PLAUDITD_PORT
  # Seeded as step 1 seeds, into files of its own (a subshell: its WORK and API are this step's).
  if ! (
    WORK=$CLUSTER_DIR API=http://127.0.0.1:$CLUSTER_HTTP_PORT/api/v1
    seed_articles && seed_comments && echo "$PAGE_ID" >"$CLUSTER_DIR/page_id"
  ) >&2; then
    echo "cluster step: seeding failed" >&2
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; forget_pid "$pid"
    stop_cluster
    return 0
  fi
  curl -fsS -o /dev/null "http://127.0.0.1:$CLUSTER_HTTP_PORT/api/v1/articles?size=20"
  for s in "${CLUSTER_SCENARIOS[@]}"; do
    if row=$(BENCH_IDS=$CLUSTER_DIR/ids.txt BENCH_TOKENS=$CLUSTER_DIR/tokens.txt \
      BENCH_HOT_ID=$(head -1 "$CLUSTER_DIR/ids.txt") BENCH_PAGE_ID=$(cat "$CLUSTER_DIR/page_id") \
      cluster_row "$s" "$pid"); then
      rows+=("$row")
      echo "cluster $s: $row" >&2
    fi
  done
  kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; forget_pid "$pid"
  stop_cluster
  CLUSTER_JSON="{\"primaries\":${#CLUSTER_PORTS[@]},\"redis\":\"$(redis-server --version | awk '{ print $3 }' | sed 's/v=//')\",\"rows\":[$(IFS=,; echo "${rows[*]}")]}"
}
