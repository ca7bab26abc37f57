# bench/run.sh's step 2: the wrk scenarios, each with what it cost Redis (sourced; needs
# common.sh and references.sh, and from run.sh: SOCK, WORK, DATA, PORT, HELLO_PORT, PLAUDITD_PID,
# CONN, THREADS, DUR, BUILD, LUA_DIR). Around each scenario on plauditd: Redis INFO (commandstats,
# total_commands_processed) before/after → commands per request; then a 1 s probe at 8
# connections under MONITOR → the commands plauditd itself sends per request, by name (EVALSHA
# shown as its script's file name); then 1 s at 1 connection → Redis round trips per request.
# plauditd's peak RSS over the like and comment scenarios; the disk's sync rate around
# comment_create (FSYNC_JSON).
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

# stale_lua BINARY SCRIPT… → the names of the scripts BINARY does not embed verbatim
stale_lua() {
  python3 - "$@" <<'PY'
import sys
binary = open(sys.argv[1], "rb").read()
print(" ".join(f.rsplit("/", 1)[-1] for f in sys.argv[2:] if open(f, "rb").read() not in binary))
PY
}

# sha1 → script file name in WORK/shas.txt, to name the EVALSHA calls seen by MONITOR. The
# binary embeds the scripts verbatim: LUA_NOTE says so when LUA_DIR holds other versions (a
# source tree ahead of the build); SRC_LUA_STALE names src/redis/lua's that differ (the
# scripts bench/like_memory.sh runs).
name_lua_scripts() {
  local stale f
  LUA_NOTE=""
  stale=$(stale_lua "$BUILD/plauditd" "$LUA_DIR"/*.lua)
  SRC_LUA_STALE=$(stale_lua "$BUILD/plauditd" src/redis/lua/*.lua)
  if [ -n "$stale" ]; then
    LUA_NOTE="Warning: $stale in \`$LUA_DIR\` differ from the scripts embedded in \`$BUILD/plauditd\` (EVALSHA names below may be missing, the redis-benchmark reference ran another version); set BENCH_LUA_DIR."
    echo "$LUA_NOTE" >&2
  fi
  for f in "$LUA_DIR"/*.lua; do
    echo "$(sha1sum <"$f" | cut -c1-40) $(basename "$f" .lua)"
  done >"$WORK/shas.txt"
}

redis_snap() {  # file ← "command calls" lines and "_total N"
  rcli INFO all | tr -d '\r' | awk -F'[:=,]' '
    /^cmdstat_/ { sub(/^cmdstat_/, "", $1); print $1, $3 }
    /^total_commands_processed:/ { print "_total", $2 }
    /^total_reads_processed:/ { print "_reads", $2 }' >"$1"
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
# Redis round trips per request. plauditd's Redis client writes every command issued in one
# event-loop turn (a pipeline, or the concurrent operations of one request) with one write(2)
# on its Redis socket, then waits for the replies: so, with one request at a time, its writes on
# that socket per request are the request's sequential waits on Redis. Counted with strace
# (write/writev/sendmsg on plauditd's Unix-socket fds, between wrk's start and end), less the
# flusher's idle rate. Without strace: Redis' read events (INFO total_reads_processed) instead,
# an upper bound, since Redis reads at most 16 KB per event and splits a larger batch.
RT_METHOD=none
if command -v strace >/dev/null && command -v ss >/dev/null; then RT_METHOD=strace; else RT_METHOD=reads; fi
redis_fds() {  # plauditd's connected Unix-socket fds (its Redis connection), "6|7"
  ss -xp 2>/dev/null | grep "pid=$PLAUDITD_PID," | grep -oE "pid=$PLAUDITD_PID,fd=[0-9]+" |
    cut -d= -f3 | paste -sd'|' || true
}
# SECONDS_TO_WATCH [WRK ARGS...] → "writes start end" (writes on the Redis fds in [start, end],
# the times wrk ran, when wrk args are given; else the whole window)
strace_writes() {
  local secs=$1; shift
  local fds out=$WORK/strace.out sp t0 t1
  fds=$(redis_fds)
  strace -f -qq -ttt -e trace=write,writev,sendmsg,sendto -e signal=none -o "$out" \
    -p "$PLAUDITD_PID" 2>/dev/null &
  sp=$!
  sleep 0.5  # attached to every thread
  t0=$(date +%s.%N)
  if [ $# -gt 0 ]; then wrk "$@" >"$WORK/strace.wrk.txt" 2>&1; else sleep "$secs"; fi
  t1=$(date +%s.%N)
  sleep 0.1
  kill -INT "$sp" 2>/dev/null || true
  wait "$sp" 2>/dev/null || true
  awk -v t0="$t0" -v t1="$t1" -v re="^(write|writev|sendmsg|sendto)[(](${fds:-x}),"  \
    '$2 >= t0 && $2 <= t1 && $3 ~ re { n++ } END { print n + 0, t0, t1 }' "$out"
}
# NAME URL [LUA] → round trips per request (wrk, 1 connection, 1 s)
round_trips() {
  local name=$1 url=$2 script=${3:-}
  local args=(-t1 -c1 -d1s)
  [ -n "$script" ] && args+=(-s "$script")
  if [ "$RT_METHOD" = strace ]; then
    local writes t0 t1
    read -r writes t0 t1 < <(strace_writes 0 "${args[@]}" "$url")
    cp "$WORK/strace.wrk.txt" "$WORK/$name.rt.txt"
    awk -v w="$writes" -v n="$(awk '/requests in/ {print $1}' "$WORK/$name.rt.txt")" \
      -v idle="${IDLE_WRITES:-0}" -v secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
      'BEGIN { r = w - idle * secs; if (n > 0) printf "%.2f\n", (r < 0 ? 0 : r) / n; else print "null" }'
    return
  fi
  redis_snap "$WORK/$name.rt.before"
  local t0 t1
  t0=$(date +%s.%N)
  wrk "${args[@]}" "$url" >"$WORK/$name.rt.txt" 2>&1
  t1=$(date +%s.%N)
  redis_snap "$WORK/$name.rt.after"
  awk -v n="$(awk '/requests in/ {print $1}' "$WORK/$name.rt.txt")" -v idle="${IDLE_READS:-0}" \
    -v secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
    FNR == NR { b[$1] = $2; next }
    $1 == "_reads" { r = $2 - b["_reads"] - 1 - idle * secs }
    END { if (n > 0) printf "%.2f\n", (r < 0 ? 0 : r) / n; else print "null" }' \
    "$WORK/$name.rt.before" "$WORK/$name.rt.after"
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
  local rps p50 p99 errors requests all_cmds=null evalsha=null client=null breakdown="" rt=null
  read -r rps p50 p99 errors requests < <(wrk_summary "$WORK/$name.txt")
  if [ $on_plauditd = 1 ]; then
    read -r all_cmds evalsha < <(redis_delta "$WORK/$name.before" "$WORK/$name.after" "${requests:-0}")
    local p
    p=$(probe "$name" "$url" "$script")
    client=${p%%|*}
    breakdown=${p#*|}
    rt=$(round_trips "$name" "$url" "$script")
  fi
  printf '{"scenario":"%s","rps":%s,"p50":"%s","p99":"%s","non2xx":%s,"connections":%s,"requests":%s,"redis_cmds_per_req":%s,"evalsha_per_req":%s,"client_cmds_per_req":%s,"client_cmds":"%s","round_trips_per_req":%s}\n' \
    "$name" "${rps:-0}" "$p50" "$p99" "${errors:-0}" "$conns" "${requests:-0}" "$all_cmds" \
    "$evalsha" "$client" "$breakdown" "$rt" >>"$WORK/rows"
  echo "$name: $rps req/s, p50 $p50, p99 $p99, non-2xx ${errors:-0}${breakdown:+; Redis per request: $all_cmds commands ($evalsha EVALSHA), $rt round trips, sent by plauditd: $breakdown}" >&2
}

# rss_start NAME / rss_stop NAME VAR: VAR ← plauditd's peak RSS (MiB) in between: the kernel's
# high-water mark (VmHWM), reset at the start by writing 5 to /proc/PID/clear_refs. It is exact
# and costs nothing while wrk runs. The sampler it replaces started awk and sleep every 0.2 s
# beside the scenarios: on the 2 cores that cost the like scenarios ~10% of their req/s and
# raised p99 by 1.5-2 ms (3 of 3 alternating 10 s rounds, 4.0-4.8 ms against 6.1-6.8 ms).
# NAME is kept for the log line only.
rss_start() {
  echo 5 >"/proc/$PLAUDITD_PID/clear_refs" ||
    echo "rss_start $1: cannot reset plauditd's VmHWM; the peak reported is since start-up" >&2
}
rss_stop() {
  local kb
  kb=$(awk '$1 == "VmHWM:" { print $2 }' "/proc/$PLAUDITD_PID/status")
  printf -v "$2" '%s' "$(awk -v kb="$kb" 'BEGIN { printf "%.1f", kb / 1024 }')"
}

# measure_idle → IDLE_CMDS (Redis commands/s), IDLE_READS (read events/s) and, with strace,
# IDLE_WRITES (writes/s on plauditd's Redis socket) of an idle plauditd: the flusher's
# periodic pass, to read the figures below.
measure_idle() {
  local t0 t1 rt secs=10
  # The seeding's last likes go to SQL in the first pass after it (and their shards are read
  # once more in the next): idle from then on.
  sleep 2
  redis_snap "$WORK/idle.before"
  sleep "$secs"
  redis_snap "$WORK/idle.after"
  IDLE_CMDS=$(awk -v s="$secs" 'FNR == NR { b[$1] = $2; next } $1 == "_total" { printf "%.0f", ($2 - b["_total"] - 1) / s }' \
    "$WORK/idle.before" "$WORK/idle.after")
  IDLE_READS=$(awk -v s="$secs" 'FNR == NR { b[$1] = $2; next } $1 == "_reads" { printf "%.2f", ($2 - b["_reads"] - 1) / s }' \
    "$WORK/idle.before" "$WORK/idle.after")
  IDLE_WRITES=0
  if [ "$RT_METHOD" = strace ]; then
    read -r IDLE_WRITES t0 t1 < <(strace_writes 2)
    IDLE_WRITES=$(awk -v w="$IDLE_WRITES" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", w / (b - a) }')
  fi
  rt=$([ "$RT_METHOD" = strace ] && echo "$IDLE_WRITES" || echo "$IDLE_READS")
  echo "idle plauditd: $IDLE_CMDS Redis commands/s in $rt round trips/s" >&2
}

# run_scenarios → WORK/rows (one JSON object a scenario), RSS_LIKE_MIB, PAGE_RT_AUTH, FSYNC_JSON,
# and readpath.sh's figures (nginx rows, comment_page_304, mixed_reads)
run_scenarios() {
  local site=http://127.0.0.1:$PORT
  run hello "http://127.0.0.1:$HELLO_PORT/"
  run healthz "$site/healthz"
  run readyz "$site/readyz"
  run article_get "$site/" bench/wrk/article_get.lua
  nginx_row nginx_article_list list "/api/v1/articles?size=20" bench/wrk/article_list.lua
  run article_list "$site/api/v1/articles?size=20" bench/wrk/article_list.lua
  rss_start like
  run like_put_spread "$site/" bench/wrk/like_put_spread.lua
  run like_put_hot "$site/" bench/wrk/like_put_hot.lua
  run comment_like_put_spread "$site/" bench/wrk/comment_like_put_spread.lua
  run comment_like_put_hot "$site/" bench/wrk/comment_like_put_hot.lua
  run like_status "$site/" bench/wrk/like_status.lua
  run like_status_unknown "$site/" bench/wrk/like_status_unknown.lua
  # The comment page (sort=new, 20 × 3): nginx serving plauditd's bytes, then plauditd
  # anonymous (the row called comment_page_new before issue 28), then signed in.
  nginx_row nginx_comment_page page "/" bench/wrk/comment_page_anon.lua
  run comment_page_anon "$site/" bench/wrk/comment_page_anon.lua
  run comment_page_auth "$site/" bench/wrk/comment_page_auth.lua
  run comment_page_hot "$site/" bench/wrk/comment_page_hot.lua
  # Revalidation (If-None-Match → 304), each server with its own ETag; before mixed_reads,
  # which changes the page.
  nginx_row nginx_304 304 "/" bench/wrk/comment_page_304.lua
  run_304 comment_page_304
  run_mixed
  run comment_like_status "$site/" bench/wrk/comment_like_status.lua
  # One SQLite commit per comment: the disk's sync rate, right before and after, is its bound.
  measure_fsync "$DATA"
  run comment_create "$site/" bench/wrk/comment_create.lua
  measure_fsync "$DATA" "$FSYNC_JSON"
  # count.js on an index page of 50 posts: one counts call, anonymous.
  run page_counts "$site$(cat "$WORK/counts_path.txt")"
  rss_stop like RSS_LIKE_MIB
  # The comment page signed in: the session lookup and the caller's like states on top.
  PAGE_RT_AUTH=$(field "$(row_of comment_page_auth)" round_trips_per_req)
  echo "plauditd max RSS during the like and comment scenarios: $RSS_LIKE_MIB MiB; comment page signed in: $PAGE_RT_AUTH Redis round trips per request" >&2
  # Logins at --password-hash minimal (a benchmark rig setting): the login path, not Argon2id's
  # interactive cost; 4 connections.
  run login "$site/api/v1/sessions" bench/wrk/login.lua 4
}
