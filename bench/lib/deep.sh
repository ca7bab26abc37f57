# bench/run.sh's step 3b, deep comment pages (sourced; needs common.sh and scenarios.sh's
# rss_start/rss_stop, and from run.sh: API, DATA, WORK, DEEP_ID, DEEP_N, DEEP_DUR, DEEP_ROUNDS,
# AUTHOR_ID, pids). DEEP_N top-level comments on DEEP_ID, bulk-loaded straight into the SQLite
# file (WAL: an external writer is fine) while plauditd runs; its comment cache was never
# built, so the first read rebuilds it from SQL. Ids as plauditd makes them (seq * 256 +
# shard), seq 1,000,001 .. 1,000,000 + DEEP_N (far above the live sequence); created_at = i, so
# comment i is the i-th oldest and, for sort=new (score = id), the d-th newest is
# i = DEEP_N - d + 1.
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

deep_comment_id() { echo $(((1000000 + $1) * 256 + DEEP_ID % 256)); }
redis_info() { rcli INFO "$1" | tr -d '\r' | awk -F: -v k="$2" '$1 == k { print $2 }'; }
# Waits (at most 180 s) for an AOF rewrite or RDB save of the embedded Redis to end, so that
# its fork does not share the cores with what is timed next. → seconds waited
persistence_idle() {
  local t0=$SECONDS
  for _ in $(seq 1 900); do
    [ "$(redis_info persistence aof_rewrite_in_progress)" = 0 ] &&
      [ "$(redis_info persistence rdb_bgsave_in_progress)" = 0 ] &&
      [ "$(redis_info persistence aof_rewrite_scheduled)" = 0 ] && break
    sleep 0.2
  done
  echo $((SECONDS - t0))
}
deep_url() { echo "$API/articles/$DEEP_ID/comments?sort=new&size=20"; }
# The cursor of depth d (after the d newest): base64url, unpadded, of "n<score>.<id>" with
# score = id of the d-th newest comment.
deep_cursor() {
  local id
  id=$(deep_comment_id $((DEEP_N - $1 + 1)))
  printf 'n%s.%s' "$id" "$id" | base64 -w0 | tr '+/' '-_' | tr -d '='
}
message_of() { grep -oE '"message":"[^"]*"' "$1" 2>/dev/null | cut -d'"' -f4 | head -1; }

# deep_load → DEEP_LOAD_SECS: the bulk load, one recursive-CTE INSERT by the sqlite3 CLI
deep_load() {
  local t0
  t0=$(date +%s.%N)
  sqlite3 -bail "$DATA/plaudit.db" >"$WORK/deep_load.txt" 2>&1 <<SQL
.timeout 10000
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $DEEP_N)
INSERT INTO comments (id, article_id, parent_id, author_id, body, created_at, updated_at)
  SELECT (1000000 + i) * 256 + $((DEEP_ID % 256)), $DEEP_ID, NULL, $AUTHOR_ID, 'bulk', i, i FROM n;
UPDATE articles SET comment_count = $DEEP_N, comment_ver = 1 WHERE id = $DEEP_ID;
COMMIT;
SELECT count(*) FROM comments WHERE article_id = $DEEP_ID;
SQL
  DEEP_LOAD_SECS=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  if [ "$(tail -1 "$WORK/deep_load.txt")" != "$DEEP_N" ]; then
    echo "bulk load failed:" >&2; cat "$WORK/deep_load.txt" >&2; exit 1
  fi
  echo "bulk-loaded $DEEP_N comments on article $DEEP_ID into SQLite in ${DEEP_LOAD_SECS}s" >&2
}

# deep_rebuild → DEEP_REBUILD_SECS, DEEP_FAILS, DEEP_PLOG, DEEP_RLOG, DEEP_SECOND,
# DEEP_MEM_AFTER, DEEP_BPC (from DEEP_MEM_BEFORE), DEEP_PERSIST_WAIT: the first GET, timed,
# with a second reader sent 2 s into it (does it wait, or fail?), and what the rebuild left in
# Redis.
deep_rebuild() {
  local url second_pid plog_lines attempt code fail code2 secs2
  url=$(deep_url)
  ( sleep 2; curl -sS -m 600 -o "$WORK/deep_second.json" -w '%{http_code} %{time_total}\n' \
      "$url&replies=0" >"$WORK/deep_second.txt" 2>&1 || true ) &
  second_pid=$!
  pids+=("$second_pid")
  # The first GET rebuilds; if it fails (the whole rebuild fails with any one Redis call), the
  # next GET starts the rebuild again: up to 3 attempts, every failure reported.
  DEEP_FAILS=""
  plog_lines=$(wc -l <"$WORK/plauditd.log")
  for attempt in 1 2 3; do
    code=000
    read -r code DEEP_REBUILD_SECS < <(curl -sS -m 600 -o "$WORK/deep_first.json" \
      -w '%{http_code} %{time_total}\n' "$url") || true
    [ "$code" = 200 ] && grep -q "\"total\":$DEEP_N," "$WORK/deep_first.json" && break
    fail="attempt $attempt: HTTP $code after $(awk -v s="${DEEP_REBUILD_SECS:-0}" 'BEGIN { printf "%.1f", s }') s ($(message_of "$WORK/deep_first.json"))"
    DEEP_FAILS="${DEEP_FAILS:+$DEEP_FAILS; }$fail"
    echo "first deep page failed, $fail; $(head -c 300 "$WORK/deep_first.json")" >&2
    if [ "$attempt" = 3 ]; then
      tail -n +"$plog_lines" "$WORK/plauditd.log" | grep -vE ' info ' | tail -20 >&2 || true
      grep -iE 'fsync|too long|slow' "$DATA/redis/redis.log" | tail -10 >&2 || true
      exit 1
    fi
  done
  DEEP_REBUILD_SECS=$(awk -v s="$DEEP_REBUILD_SECS" 'BEGIN { printf "%.1f", s }')
  # What plauditd and its Redis logged meanwhile, besides info lines (kept for the report).
  DEEP_PLOG=$(tail -n +"$plog_lines" "$WORK/plauditd.log" | grep -vE ' info ' | cut -c1-200 | head -5 |
    sed 's/["\\]//g' | paste -sd'|' || true)
  DEEP_RLOG=$(grep -ciE 'fsync is taking too long|too long' "$DATA/redis/redis.log" || true)
  wait "$second_pid" 2>/dev/null || true
  forget_pid "$second_pid"
  read -r code2 secs2 <"$WORK/deep_second.txt" || true
  DEEP_SECOND="HTTP ${code2:-none} after $(awk -v s="${secs2:-0}" 'BEGIN { printf "%.1f", s }') s"
  if [ "${code2:-}" != 200 ]; then
    DEEP_SECOND="$DEEP_SECOND ($(message_of "$WORK/deep_second.json"))"
  fi
  echo "a second reader, 2 s into the rebuild: $DEEP_SECOND" >&2
  DEEP_MEM_AFTER=$(redis_info memory used_memory)
  DEEP_BPC=$(awk -v a="$DEEP_MEM_BEFORE" -v b="$DEEP_MEM_AFTER" -v n="$DEEP_N" 'BEGIN { printf "%.0f", (b - a) / n }')
  echo "rebuild of $DEEP_N comments from SQL (first GET): ${DEEP_REBUILD_SECS}s; Redis used_memory $DEEP_MEM_BEFORE → $DEEP_MEM_AFTER bytes ($DEEP_BPC bytes per comment)" >&2
  DEEP_PERSIST_WAIT=$(persistence_idle)
  if [ "$DEEP_PERSIST_WAIT" -gt 0 ]; then
    echo "waited ${DEEP_PERSIST_WAIT}s for Redis' AOF rewrite" >&2
  fi
}

# deep_check DEPTH → DEEP_CHECK: the page after DEPTH's cursor, and the same page by offset,
# must both start with the next-newest comment and hold 20 of them in order.
first_ids() { { grep -oE '"id":[0-9]+,"articleId"' || true; } | grep -oE '[0-9]+' | awk -v n="$1" 'NR <= n' | paste -sd' ' || true; }
deep_check() {
  local d=$1 want got_cursor got_offset
  want=$(for k in $(seq 0 19); do deep_comment_id $((DEEP_N - d - k)); done | paste -sd' ')
  got_cursor=$(curl -fsS "$(deep_url)&cursor=$(deep_cursor "$d")" | first_ids 20)
  got_offset=$(curl -fsS "$(deep_url)&page=$((d / 20 + 1))" | first_ids 20)
  if [ "$got_cursor" = "$want" ] && [ "$got_offset" = "$want" ]; then
    DEEP_CHECK="ok: the page after depth $d's cursor and page $((d / 20 + 1)) by offset both hold ids ${want%% *} … ${want##* } (the $((d + 1))th to $((d + 20))th newest)"
  else
    DEEP_CHECK="MISMATCH at depth $d: expected ${want%% *} … ${want##* }, cursor gave '${got_cursor:0:40}…', offset gave '${got_offset:0:40}…'"
  fi
  echo "cursor check: $DEEP_CHECK" >&2
}

# depth_point ROUND MODE DEPTH URL → a line "round mode depth rps p50_ms p99_ms non2xx" in
# $WORK/depth.raw
depth_point() {
  local f=$WORK/depth.$1.$2.$3.txt
  wrk -t1 -c8 -d"$DEEP_DUR" --latency "$4" >"$f" 2>&1
  local rps p50 p99 n2
  read -r rps p50 p99 n2 _ < <(wrk_summary "$f")
  echo "$1 $2 $3 $rps $(to_ms "$p50") $(to_ms "$p99") $n2" |
    tee -a "$WORK/depth.raw" |
    awk '{ print "deep page, round " $1 ": " $2 " at depth " $3 ": " $4 " req/s, p50 " $5 " ms, p99 " $6 " ms, non-2xx " $7 }' >&2
}

# deep_points DEPTH… → WORK/depth.raw, and WORK/depth.dat: "mode depth rps p50 p99 non2xx"
# (medians; p50 and p99 as "N.NNms"; the non-2xx summed), in measuring order. DEEP_ROUNDS
# rounds, each: page 1, then every depth by cursor and by offset; every point is the median
# over the rounds, so that the shared machine's load drifts over all points alike.
deep_points() {
  local url r d m pts
  url=$(deep_url)
  : >"$WORK/depth.raw"
  wrk -t1 -c8 -d1s "$url" >/dev/null 2>&1 || true  # warm-up, not counted
  for r in $(seq 1 "$DEEP_ROUNDS"); do
    depth_point "$r" first 0 "$url"
    for d in "$@"; do
      depth_point "$r" cursor "$d" "$url&cursor=$(deep_cursor "$d")"
      depth_point "$r" offset "$d" "$url&page=$((d / 20 + 1))"
    done
  done
  : >"$WORK/depth.dat"
  while read -r m d; do
    pts=$(awk -v m="$m" -v d="$d" '$2 == m && $3 == d' "$WORK/depth.raw")
    echo "$m $d $(awk '{print $4}' <<<"$pts" | paste -sd' ' | median) $(awk '{print $5}' <<<"$pts" | paste -sd' ' | median)ms $(awk '{print $6}' <<<"$pts" | paste -sd' ' | median)ms $(awk '{ n += $7 } END { print n + 0 }' <<<"$pts")" >>"$WORK/depth.dat"
  done < <(awk '$1 == 1 { print $2, $3 }' "$WORK/depth.raw")
  awk '{ print "deep page, median of '"$DEEP_ROUNDS"': " $1 " at depth " $2 ": " $3 " req/s, p50 " $4 ", p99 " $5 ", non-2xx " $6 }' "$WORK/depth.dat" >&2
}

# run_deep_pages → the DEEP_* figures above, DEEP_MEM_BEFORE, WORK/depth.{raw,dat},
# RSS_DEEP_MIB
run_deep_pages() {
  local start=$SECONDS d depths=()
  deep_load
  persistence_idle >/dev/null
  DEEP_MEM_BEFORE=$(redis_info memory used_memory)
  rss_start deep
  deep_rebuild
  for d in 1000 10000 50000 100000 500000 $((DEEP_N - 20)); do
    if [ "$d" -gt 0 ] && [ "$d" -le $((DEEP_N - 20)) ] && [[ " ${depths[*]} " != *" $d "* ]]; then
      depths+=("$d")
    fi
  done
  deep_check "${depths[0]}"
  deep_points "${depths[@]}"
  rss_stop deep RSS_DEEP_MIB
  echo "plauditd max RSS during the rebuild and the deep pages: $RSS_DEEP_MIB MiB; deep section $((SECONDS - start))s" >&2
}
