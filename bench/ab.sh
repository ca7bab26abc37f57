#!/usr/bin/env bash
# bench/ab.sh OLD_BUILD_DIR NEW_BUILD_DIR [SCENARIO…]: two plauditd builds side by side, each
# on its own embedded Redis and SQLite, seeded alike (200 published articles, 1,000 users with
# a session each, one comment page of 20 top-level comments with 40 comment likes), then, for
# BENCH_AB_ROUNDS rounds (default 3), alternating: /healthz on old, each scenario on old,
# /healthz on new, each scenario on new. Prints each run and, per scenario and build, the
# median of (scenario req/s ÷ the /healthz req/s of the same round and build): the ratio
# cancels most of a shared box's drift, the alternation the rest.
#   SCENARIO: a bench/wrk/<name>.lua (default: like_status comment_like_status like_put_spread)
#   BENCH_AB_DURATION (default 5s), BENCH_CONNECTIONS (default 64), BENCH_THREADS (default 1)
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
source bench/lib.sh  # wait_port_line, median

json_token() { grep -oE '"token":"[^"]+"' | head -1 | cut -d'"' -f4; }
json_id() { sed -nE 's/^\{"id":([0-9]+).*/\1/p'; }

# start NAME BUILD → the instance's port in $WORK/NAME.port
start() {
  local name=$1 build=$2
  [ -x "$build/plauditd" ] || { echo "no $build/plauditd" >&2; exit 1; }
  "$build/plauditd" --data-dir "$WORK/$name" --port 0 --rate-limits off --password-hash minimal \
    --bootstrap-admin benchadmin:benchpassword >"$WORK/$name.log" 2>&1 &
  pids+=($!)
  wait_port_line "$WORK/$name.log" 'listening on http://127.0.0.1:[0-9]+' >"$WORK/$name.port"
  local port
  port=$(cat "$WORK/$name.port")
  for _ in $(seq 1 200); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "$name did not become ready" >&2
  exit 1
}

# seed NAME: the data of bench/run.sh's step 1 (without its checks), through the API.
seed() {
  local name=$1 api dir
  dir=$WORK/$name.seed
  api=http://127.0.0.1:$(cat "$WORK/$name.port")/api/v1
  mkdir -p "$dir"
  post() { curl -fsS -X POST -H 'Content-Type: application/json' ${3:+-H "Authorization: Bearer $3"} -d "$2" "$api$1"; }
  # posts PATH TOKEN < bodies: one keep-alive curl, one response a line.
  posts() {
    awk -v url="$api$1" -v token="$2" '{
      gsub(/"/, "\\\"")
      if (NR > 1) print "next"
      print "url = \"" url "\""
      print "request = \"POST\""
      print "header = \"Content-Type: application/json\""
      if (token != "") print "header = \"Authorization: Bearer " token "\""
      print "data = \"" $0 "\""
      print "write-out = \"\\n\""
    }' >"$dir/posts.conf"
    curl -sS -K "$dir/posts.conf"
  }
  local admin author_id author
  admin=$(post /sessions '{"username":"benchadmin","password":"benchpassword"}' | json_token)
  author_id=$(post /users '{"username":"bench","password":"bench-password"}' | json_id)
  curl -fsS -o /dev/null -X PATCH -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $admin" -d '{"role":"author"}' "$api/users/$author_id"
  author=$(post /sessions '{"username":"bench","password":"bench-password"}' | json_token)
  for i in $(seq 1 200); do
    printf '{"title":"Bench article %d","content":"<p>Bench article %d.</p>","status":"published"}\n' "$i" "$i"
  done | posts /articles "$author" | json_id | sort -n >"$dir/ids.txt"
  seq 1 1000 | awk '{printf "{\"username\":\"benchuser%d\",\"password\":\"bench-password-%d\"}\n", $1, $1}' \
    >"$dir/users.jsonl"
  posts /users "" <"$dir/users.jsonl" >/dev/null
  posts /sessions "" <"$dir/users.jsonl" | grep -oE '"token":"[^"]+"' | cut -d'"' -f4 >"$dir/tokens.txt"
  local page
  page=$(post /articles '{"title":"Bench comment page","content":"<p>c</p>","status":"published"}' "$author" | json_id)
  seq 1 20 | awk '{ printf "{\"body\":\"Top-level comment %d.\"}\n", $1 }' |
    posts "/articles/$page/comments" "$(sed -n 1p "$dir/tokens.txt")" | json_id >"$dir/comment_ids.txt"
  local k=0 c u
  while read -r c; do
    k=$((k + 1))
    for u in $(seq 1 $((k % 5))); do
      curl -fsS -o /dev/null -X PUT -H "Authorization: Bearer $(sed -n "${u}p" "$dir/tokens.txt")" \
        "$api/comments/$c/like"
    done
  done <"$dir/comment_ids.txt"
  local n_ids n_tokens n_comments
  n_ids=$(grep -c . "$dir/ids.txt" || true)
  n_tokens=$(grep -c . "$dir/tokens.txt" || true)
  n_comments=$(grep -c . "$dir/comment_ids.txt" || true)
  if [ "$n_ids" -ne 200 ] || [ "$n_tokens" -ne 1000 ] || [ "$n_comments" -ne 20 ]; then
    echo "$name: seeding failed ($n_ids articles, $n_tokens tokens, $n_comments comments)" >&2
    exit 1
  fi
  # A list page builds the published index, as the first reader of a real site does.
  curl -fsS -o /dev/null "$api/articles?size=20"
  echo "$page" >"$dir/page_id"
  echo "$name: seeded" >&2
}

# rps NAME SCENARIO → req/s of one wrk run (SCENARIO healthz: GET /healthz)
rps() {
  local name=$1 scenario=$2 port dir args=()
  dir=$WORK/$name.seed
  port=$(cat "$WORK/$name.port")
  args=(-t"$THREADS" -c"$CONN" -d"$DUR")
  local url="http://127.0.0.1:$port/"
  if [ "$scenario" = healthz ]; then
    url="http://127.0.0.1:$port/healthz"
  else
    args+=(-s "bench/wrk/$scenario.lua")
  fi
  BENCH_WRK_DIR=$ROOT/bench/wrk BENCH_IDS=$dir/ids.txt BENCH_TOKENS=$dir/tokens.txt \
    BENCH_HOT_ID=$(head -1 "$dir/ids.txt") BENCH_PAGE_ID=$(cat "$dir/page_id") \
    BENCH_CREATE_ID=$(cat "$dir/page_id") BENCH_COMMENT_IDS=$dir/comment_ids.txt \
    wrk "${args[@]}" "$url" >"$WORK/wrk.txt" 2>&1
  if grep -q "Non-2xx" "$WORK/wrk.txt"; then
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
      ratio=$(awk -v r="$r" -v h="$h" 'BEGIN { printf "%.3f", r / h }')
      echo "round $round $name: healthz $h, $s $r ($ratio)"
      echo "$ratio" >>"$WORK/$name.$s.ratios"
    done
  done
done
echo "median ratio to /healthz over $ROUNDS rounds ($DUR, $CONN connections, $THREADS wrk thread):"
for s in "${SCENARIOS[@]}"; do
  echo "  $s: old $(median <"$WORK/old.$s.ratios"), new $(median <"$WORK/new.$s.ratios")"
done
