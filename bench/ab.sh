#!/usr/bin/env bash
# bench/ab.sh OLD_BUILD_DIR NEW_BUILD_DIR [SCENARIO…]: two plauditd builds side by side, each
# on its own embedded Redis and SQLite, seeded alike (200 published articles, 1,000 users with
# a session each, one comment page of 20 top-level comments with 3 replies each and 40 comment
# likes, as bench/run.sh seeds it), then, for
# BENCH_AB_ROUNDS rounds (default 3), alternating: /healthz on old, each scenario on old,
# /healthz on new, each scenario on new. Prints each run and, per scenario and build, the
# median of (scenario req/s ÷ the /healthz req/s of the same round and build): the ratio
# cancels most of a shared box's drift, the alternation the rest.
#   SCENARIO: a bench/wrk/<name>.lua (default: like_status comment_like_status like_put_spread),
#     e.g. comment_page_anon, comment_page_auth, comment_page_304 (needs a build that sends an
#     ETag; every answer must be a 304), comment_like_put_spread, comment_like_put_hot (the
#     seeding then adds 5 comments on each article), mixed_reads (on the page's 80 comments),
#     page_counts (the seeding then adds bench/run.sh's 50 page threads, and both sides run
#     with --sites http://bench.example)
#   BENCH_AB_DURATION (default 5s), BENCH_CONNECTIONS (default 64), BENCH_THREADS (default 1)
#   BENCH_AB_ARGS: more plauditd options for both, e.g. "--page-cache-mb 0" (every comment
#     page read renders)
#   BENCH_AB_OLD_ARGS, BENCH_AB_NEW_ARGS: more options for one side only, e.g. the same build
#     twice with BENCH_AB_NEW_ARGS="--redis-wait-replicas 1"
#   BENCH_AB_REPLICA=1: each side on an external redis-server (TCP, no persistence) with one
#     replica of it (also on this box), instead of the embedded Redis
# Needs wrk, curl, redis-cli (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
[ $# -ge 2 ] || { echo "usage: bench/ab.sh OLD_BUILD_DIR NEW_BUILD_DIR [SCENARIO…]" >&2; exit 2; }
OLD=$1
NEW=$2
shift 2
SCENARIOS=("$@")
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(like_status comment_like_status like_put_spread)
DUR=${BENCH_AB_DURATION:-5s}
CONN=${BENCH_CONNECTIONS:-64}
THREADS=${BENCH_THREADS:-1}
ROUNDS=${BENCH_AB_ROUNDS:-3}
WORK=$(mktemp -d /tmp/plaudit-ab-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
source bench/lib/common.sh  # wait_port_line, median, start_plauditd
source bench/lib/seed.sh    # seed_author, seed_users, curl_posts, post_json, like_comments
source bench/lib/nginx.sh   # etag_of

# replica_pair NAME: a new primary redis-server (its port in PRIMARY_PORT) with one replica
# linked to it.
replica_pair() {
  local name=$1 port rport
  port=$(free_port)
  rport=$(free_port)
  mkdir -p "$WORK/$name.primary" "$WORK/$name.replica"
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$WORK/$name.primary" --logfile "$WORK/$name.primary/redis.log" >/dev/null &
  pids+=("$!")
  echo "$!" >"$WORK/$name.redis_pid"
  redis-server --port "$rport" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$WORK/$name.replica" --logfile "$WORK/$name.replica/redis.log" \
    --replicaof 127.0.0.1 "$port" >/dev/null &
  pids+=("$!")
  for _ in $(seq 1 200); do
    redis-cli -p "$rport" INFO replication 2>/dev/null | grep -q 'master_link_status:up' &&
      { PRIMARY_PORT=$port; return 0; }
    sleep 0.05
  done
  echo "$name: the replica did not link" >&2
  return 1
}

# start NAME BUILD → the instance's port in $WORK/NAME.port
start() {
  local name=$1 build=$2 side_args=() redis_args=()
  [ -x "$build/plauditd" ] || { echo "no $build/plauditd" >&2; exit 1; }
  if [[ " ${SCENARIOS[*]} " == *" page_counts "* ]]; then
    side_args+=(--sites http://bench.example)
  fi
  local extra=()
  if [ "$name" = old ]; then
    read -r -a extra <<<"${BENCH_AB_OLD_ARGS:-}"
  else
    read -r -a extra <<<"${BENCH_AB_NEW_ARGS:-}"
  fi
  side_args+=("${extra[@]}")
  if [ "${BENCH_AB_REPLICA:-0}" = 1 ]; then
    replica_pair "$name" || exit 1
    redis_args=(--redis "redis://127.0.0.1:$PRIMARY_PORT")
  fi
  # shellcheck disable=SC2086  # BENCH_AB_ARGS: options, split on spaces
  start_plauditd "$build/plauditd" "$WORK/$name" "$WORK/$name.log" ${BENCH_AB_ARGS:-} \
    "${redis_args[@]}" "${side_args[@]}" ||
    { echo "$name did not become ready" >&2; exit 1; }
  echo "$PLAUDITD_PORT" >"$WORK/$name.port"
  echo "$PLAUDITD_PID" >"$WORK/$name.pid"
}

# ticks PID → CPU clock ticks (user + system) the process has used so far
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# seed NAME: the data of bench/run.sh's step 1 (without its checks), through the API.
seed() {
  local name=$1 dir page i
  dir=$WORK/$name.seed
  API=http://127.0.0.1:$(cat "$WORK/$name.port")/api/v1
  mkdir -p "$dir"
  seed_author
  for i in $(seq 1 200); do
    printf '{"title":"Bench article %d","content":"<p>Bench article %d.</p>","status":"published"}\n' "$i" "$i"
  done | curl_posts /articles "$AUTHOR_TOKEN" | json_id | sort -n >"$dir/ids.txt"
  seed_users "$dir"
  page=$(post_json /articles '{"title":"Bench comment page","content":"<p>c</p>","status":"published"}' \
    "$AUTHOR_TOKEN" | json_id)
  seq 1 20 | awk '{ printf "{\"body\":\"Top-level comment %d.\"}\n", $1 }' |
    curl_posts "/articles/$page/comments" "$(sed -n 1p "$dir/tokens.txt")" | json_id >"$dir/comment_ids.txt"
  awk '{ for (r = 1; r <= 3; r++) printf "{\"body\":\"Reply %d to comment %s.\",\"parentId\":%s}\n", r, $1, $1 }' \
    "$dir/comment_ids.txt" | curl_posts "/articles/$page/comments" "$(sed -n 2p "$dir/tokens.txt")" |
    json_id >"$dir/reply_ids.txt"
  cat "$dir/comment_ids.txt" "$dir/reply_ids.txt" >"$dir/page_comment_ids.txt"
  local n_ids n_tokens n_comments n_likes n_replies
  n_likes=$(like_comments "$dir/tokens.txt" "$dir/comment_ids.txt")
  n_ids=$(grep -c . "$dir/ids.txt" || true)
  n_tokens=$(grep -c . "$dir/tokens.txt" || true)
  n_comments=$(grep -c . "$dir/comment_ids.txt" || true)
  n_replies=$(grep -c . "$dir/reply_ids.txt" || true)
  if [ "$n_ids" -ne 200 ] || [ "$n_tokens" -ne 1000 ] || [ "$n_comments" -ne 20 ] ||
    [ "$n_replies" -ne 60 ] || [ "$n_likes" -ne 40 ]; then
    echo "$name: seeding failed ($n_ids articles, $n_tokens tokens, $n_comments comments, $n_replies replies, $n_likes comment likes)" >&2
    exit 1
  fi
  if [[ " ${SCENARIOS[*]} " == *" page_counts "* ]]; then
    # seed_pages writes WORK/counts_path.txt and reads WORK/tokens.txt and PORT.
    (PORT=$(cat "$WORK/$name.port") && WORK=$dir && seed_pages)
  fi
  if [[ " ${SCENARIOS[*]} " == *" comment_like_put_"* ]]; then
    seed_like_comments "$dir/ids.txt" "$dir/tokens.txt" "$dir/like_comment_ids.txt"
  fi
  # A list page builds the published index, as the first reader of a real site does.
  curl -fsS -o /dev/null "$API/articles?size=20"
  echo "$page" >"$dir/page_id"
  # The first read may build the thread's cache (rendered uncached, no ETag); the tag is the
  # second's.
  curl -fsS -o /dev/null "$API/articles/$page/comments?sort=new&size=20&replies=3"
  etag_of "$API/articles/$page/comments?sort=new&size=20&replies=3" >"$dir/etag"
  if [[ " ${SCENARIOS[*]} " == *" comment_page_304 "* ]] && [ ! -s "$dir/etag" ]; then
    echo "$name: plauditd sent no ETag for the comment page: comment_page_304 cannot run" >&2
    exit 1
  fi
  echo "$name: seeded" >&2
}

# rps NAME SCENARIO → req/s of one wrk run (SCENARIO healthz: GET /healthz)
rps() {
  local name=$1 scenario=$2 port dir args=()
  dir=$WORK/$name.seed
  port=$(cat "$WORK/$name.port")
  args=(-t"$THREADS" -c"$CONN" -d"$DUR")
  local url="http://127.0.0.1:$port/"
  local pid rpid p0 r0
  pid=$(cat "$WORK/$name.pid")
  # The embedded redis-server child, or (BENCH_AB_REPLICA) the side's primary.
  rpid=$(cat "$WORK/$name.redis_pid" 2>/dev/null || pgrep -P "$pid" redis-server)
  p0=$(ticks "$pid")
  r0=$(ticks "$rpid")
  if [ "$scenario" = healthz ]; then
    url="http://127.0.0.1:$port/healthz"
  else
    args+=(-s "bench/wrk/$scenario.lua")
  fi
  BENCH_WRK_DIR=$ROOT/bench/wrk BENCH_IDS=$dir/ids.txt BENCH_TOKENS=$dir/tokens.txt \
    BENCH_HOT_ID=$(head -1 "$dir/ids.txt") BENCH_PAGE_ID=$(cat "$dir/page_id") \
    BENCH_CREATE_ID=$(cat "$dir/page_id") BENCH_COMMENT_IDS=$dir/comment_ids.txt \
    BENCH_PAGE_COMMENT_IDS=$dir/page_comment_ids.txt BENCH_LIKE_COMMENT_IDS=$dir/like_comment_ids.txt \
    BENCH_COMMENT_HOT_ID=$(head -1 "$dir/like_comment_ids.txt" 2>/dev/null) \
    BENCH_ETAG=$(cat "$dir/etag") BENCH_COUNTS_PATH=$dir/counts_path.txt \
    wrk "${args[@]}" "$url" >"$WORK/wrk.txt" 2>&1
  # CPU per request of plauditd and its embedded redis-server: unlike req/s, barely moved by
  # whatever else the box runs (bench/ab.sh prints it beside the ratio).
  local p1 r1 n
  p1=$(ticks "$pid")
  r1=$(ticks "$rpid")
  n=$(awk '/requests in/ { print $1 }' "$WORK/wrk.txt")
  awk -v p="$((p1 - p0))" -v r="$((r1 - r0))" -v n="$n" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.1f %.1f\n", p * 1e6 / hz / n, r * 1e6 / hz / n }' >"$WORK/cpu.txt"
  # wrk's "Non-2xx or 3xx" holds statuses > 399 only; the *_304 scripts count by status.
  if grep -q "Non-2xx" "$WORK/wrk.txt" ||
    { [[ $scenario == *_304 ]] && ! grep -qE '^statuses: 304=[0-9]+$' "$WORK/wrk.txt"; } ||
    grep -qE '^mixed: .* other [1-9]' "$WORK/wrk.txt"; then
    echo "$name $scenario: non-2xx answers" >&2
    cat "$WORK/wrk.txt" >&2
    exit 1
  fi
  awk '/^Requests\/sec:/ { print $2 }' "$WORK/wrk.txt"
}

start old "$OLD"
start new "$NEW"
seed old
seed new
for round in $(seq 1 "$ROUNDS"); do
  for name in old new; do
    h=$(rps "$name" healthz)
    for s in "${SCENARIOS[@]}"; do
      r=$(rps "$name" "$s")
      read -r cpu_p cpu_r <"$WORK/cpu.txt"
      ratio=$(awk -v r="$r" -v h="$h" 'BEGIN { printf "%.3f", r / h }')
      echo "round $round $name: healthz $h, $s $r ($ratio); CPU µs a request: plauditd $cpu_p, redis $cpu_r"
      echo "$ratio" >>"$WORK/$name.$s.ratios"
      echo "$cpu_p" >>"$WORK/$name.$s.cpu_p"
      echo "$cpu_r" >>"$WORK/$name.$s.cpu_r"
    done
  done
done
echo "median ratio to /healthz over $ROUNDS rounds ($DUR, $CONN connections, $THREADS wrk thread):"
for s in "${SCENARIOS[@]}"; do
  echo "  $s: old $(median <"$WORK/old.$s.ratios"), new $(median <"$WORK/new.$s.ratios")"
done
echo "median CPU µs a request (plauditd + its redis-server), which a busy box moves less:"
for s in "${SCENARIOS[@]}"; do
  echo "  $s: old $(median <"$WORK/old.$s.cpu_p") + $(median <"$WORK/old.$s.cpu_r")," \
    "new $(median <"$WORK/new.$s.cpu_p") + $(median <"$WORK/new.$s.cpu_r")"
done
