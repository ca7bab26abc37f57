# bench/run.sh's step 6, first half: the targets, and every figure of the run in
# bench/results/<date>.json (sourced; needs like_vs_healthz.sh's pair_* and common.sh's to_ms,
# and the figures the other steps set). bench/report.py turns that file into
# docs/benchmarks.md.
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

# field JSON_LINE KEY → the value (strings unquoted) in one of WORK/rows' lines
field() { sed -E "s/.*\"$2\":(\"([^\"]*)\"|([^,}]*)).*/\2\3/" <<<"$1"; }
row_of() { grep "\"scenario\":\"$1\"" "$WORK/rows"; }
ratio_of() { awk -v a="$(field "$(row_of "$1")" rps)" -v b="$(field "$(row_of hello)" rps)" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
commas() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "" && a != "null" && a + 0 >= b + 0) ? 1 : 0 }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { print (a != "" && a != "null" && a + 0 < b + 0) ? 1 : 0 }'; }
depth_field() { awk -v m="$1" -v d="$2" -v k="$3" '$1 == m && $2 == d { print $k }' "$WORK/depth.dat"; }

# add_target NAME GOAL MEASURED OK(1/0): one entry of the results' "targets". A target that
# could not be measured has none (the report says "unknown").
add_target() {
  targets_json+=("{\"target\":\"$1\",\"goal\":\"$2\",\"measured\":\"$3\",\"met\":$([ "$4" = 1 ] && echo true || echo false)}")
}

# check_targets → targets_json, DEEP_RATIO
check_targets() {
  local s r p99ms n2 ok first_ms deep_ms deep_first_p50 deep_50k_p50
  targets_json=()
  for s in like_put_spread like_put_hot; do
    r=$(pair_stat $s 8)
    p99ms=$(pair_stat $s 4)
    n2=$(( $(pair_errors $s) + $(field "$(row_of $s)" non2xx) ))
    ok=$([ "$(ge "$r" 0.5)" = 1 ] && [ "$(lt "$p99ms" 5)" = 1 ] && [ "$n2" = 0 ] && echo 1 || echo 0)
    add_target "like (\`$s\`), $CONN connections" "≥ 0.5× /healthz, p99 < 5 ms, no errors (median of $PAIR_ROUNDS interleaved rounds)" \
      "${r}× /healthz (rounds $(pair_range $s 8)), p99 ${p99ms} ms ($(pair_range $s 4)); $(ratio_of $s)× hello in the table" "$ok"
  done
  for s in article_list article_get; do
    r=$(ratio_of $s)
    add_target "page (\`$s\`)" "≥ 0.3× hello" "${r}× hello" "$(ge "$r" 0.3)"
  done
  check_issue47_targets
  add_target "flush, SQLite" "≥ 100,000 changes/s" "${FLUSH_SQLITE:-0} changes/s" "$(ge "${FLUSH_SQLITE:-0}" 100000)"
  if [ "$FLUSH_PG_RATE" != null ]; then
    add_target "flush, PostgreSQL" "≥ 30,000 changes/s" "$FLUSH_PG_RATE changes/s" "$(ge "$FLUSH_PG_RATE" 30000)"
  fi
  add_target "memory per like record (1,000,000)" "≤ 24 bytes" "$BPL bytes ($BPL_COUNTS with count keys)$BPL_NOTE" "$(lt "$BPL" 24.0001)"
  deep_first_p50=$(depth_field first 0 4)
  deep_50k_p50=$(depth_field cursor 50000 4)
  DEEP_RATIO=null
  if [ -n "$deep_50k_p50" ]; then
    first_ms=$(to_ms "$deep_first_p50")
    deep_ms=$(to_ms "$deep_50k_p50")
    DEEP_RATIO=$(awk -v a="$deep_ms" -v b="$first_ms" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
    add_target "comment page 50,000 deep by cursor ($(commas "$DEEP_N") comments)" "p50 ≤ 1.5× the first page's" \
      "p50 $deep_50k_p50 vs $deep_first_p50 (${DEEP_RATIO}×); by offset $(depth_field offset 50000 4)" \
      "$(awk -v r="$DEEP_RATIO" 'BEGIN { print (r != "n/a" && r + 0 <= 1.5) ? 1 : 0 }')"
    [ "$DEEP_RATIO" != n/a ] || DEEP_RATIO=null  # a JSON value
  fi
}

# check_issue47_targets → targets_json: comment writes against the disk, and the reads issue
# 47 names (each from this run's rows; a row that did not run is not a target here).
check_issue47_targets() {
  local cc fs r p99ms auth anon unknown known counts
  cc=$(field "$(row_of comment_create)" rps)
  if [ -n "$cc" ]; then
    fs=$(python3 -c 'import json,sys; v=json.loads(sys.argv[1] or "null"); print(v["per_s"] if v else "")' "${FSYNC_JSON:-null}" 2>/dev/null)
    p99ms=$(to_ms "$(field "$(row_of comment_create)" p99)")
    if [ -n "$fs" ]; then
      r=$(awk -v a="$cc" -v b="$fs" 'BEGIN { printf "%.2f", a / b }')
      add_target "comment_create against the disk, $CONN connections" "> 1× the fsync rate measured right before it" \
        "${r}× ($(commas "${cc%.*}") req/s, $(commas "${fs%.*}") fsyncs/s)" "$(awk -v r="$r" 'BEGIN { print (r + 0 > 1) ? 1 : 0 }')"
    fi
    add_target "comment_create p99, $CONN connections" "< 50 ms" "${p99ms} ms" "$(lt "$p99ms" 50)"
  fi
  auth=$(field "$(row_of comment_page_auth)" rps)
  anon=$(field "$(row_of comment_page_anon)" rps)
  if [ -n "$auth" ] && [ -n "$anon" ]; then
    # Three decimals, and compared unrounded: 1.5026 printed as 1.50 once passed for met.
    r=$(awk -v a="$anon" -v b="$auth" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }')
    add_target "comment page signed in" "≤ 1.5× the anonymous page's cost" "${r}× (req/s $(commas "${auth%.*}") against $(commas "${anon%.*}"))" \
      "$(awk -v a="$anon" -v b="$auth" 'BEGIN { print (b > 0 && a / b <= 1.5) ? 1 : 0 }')"
  fi
  counts=$(field "$(row_of page_counts)" rps)
  if [ -n "$counts" ]; then
    add_target "counts for a 50-post index page (\`page_counts\`)" "≥ 5,000 calls/s" "$(commas "${counts%.*}") calls/s" "$(ge "$counts" 5000)"
  fi
  add_target "idle plauditd" "≤ 50 Redis commands/s" "${IDLE_CMDS:-?} commands/s" "$([ -n "${IDLE_CMDS:-}" ] && lt "$IDLE_CMDS" 50.0001 || echo 0)"
  unknown=$(field "$(row_of like_status_unknown)" rps)
  known=$(field "$(row_of like_status)" rps)
  if [ -n "$unknown" ] && [ -n "$known" ]; then
    r=$(awk -v a="$known" -v b="$unknown" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
    add_target "like states of 20 unknown ids" "≤ 2× the cost of 20 known ones (\`like_status\`)" "${r}×" \
      "$(awk -v r="$r" 'BEGIN { print (r != "n/a" && r + 0 <= 2) ? 1 : 0 }')"
  fi
}

# write_results FILE: the results JSON (its schema is what docs/benchmarks.md and the earlier
# bench/results files are read by: keep it)
write_results() {
  local load_end
  load_end=$(cut -d' ' -f1-3 /proc/loadavg)
  {
    echo "{\"date\":\"$STAMP\",\"cores\":$(nproc),\"loadavg_start\":\"$LOAD_START\",\"loadavg_end\":\"$load_end\",\"connections\":$CONN,\"threads\":$THREADS,\"duration\":\"$DUR\","
    echo "\"idle_redis_cmds_per_s\":${IDLE_CMDS:-0},\"seed\":{\"articles\":$N_IDS,\"users\":$N_TOKENS,\"seconds\":$SEED_SECS},"
    echo "\"fsync\":${FSYNC_JSON:-null},"
    echo "\"rows\":["
    paste -sd, "$WORK/rows"
    echo "],"
    echo "\"redis_benchmark\":{\"redis_version\":\"$REDIS_VERSION\",\"script\":\"like_set.lua\",\"clients\":50,\"requests\":200000,\"unpipelined_ops\":$RB1,\"unpipelined_writes\":${RB1_WRITES:-0},\"pipelined16_ops\":$RB16,\"pipelined16_writes\":${RB16_WRITES:-0},\"ping_unpipelined_ops\":${RBPING1:-0},\"ping_pipelined16_ops\":${RBPING16:-0}},"
    echo "\"like_vs_healthz\":{\"duration\":\"$PAIR_DUR\",\"rounds\":["
    awk '{ printf "%s{\"round\":%s,\"scenario\":\"%s\",\"rps\":%s,\"p99_ms\":%s,\"non2xx\":%s,\"healthz_before\":%s,\"healthz_after\":%s,\"ratio\":%s}", (NR > 1 ? ",\n " : " "), $1, $2, $3, $4, $5, $6, $7, $8 } END { print "" }' "$WORK/pairs"
    echo "]},"
    echo "\"flush\":{\"sqlite_changes_per_s\":${FLUSH_SQLITE:-0},\"postgresql_changes_per_s\":$FLUSH_PG_RATE},"
    echo "\"like_memory\":$LIKEMEM,"
    echo "\"like_script\":$LIKESCRIPT,"
    echo "\"instructions_per_request\":{\"like_put_spread\":${INSTR_LIKE:-null},\"like_requests\":$(instr_field like_requests | grep . || echo null),\"redis_scripts_per_like\":${INSTR_REDIS:-null},\"redis_requests\":$(instr_field redis_requests | grep . || echo null),\"hello\":${INSTR_HELLO:-null},\"hello_requests\":$(instr_field hello_requests | grep . || echo null),\"ratio\":$INSTR_RATIO},"
    echo "\"comments\":{\"page_article\":$PAGE_ID,\"top_level\":$N_COMMENTS,\"replies\":$N_REPLIES,\"likes\":$N_CLIKES,\"seed_seconds\":$CSEED_SECS,"
    echo " \"page_round_trips_anonymous\":$(field "$(row_of comment_page_anon)" round_trips_per_req | grep . || echo null),\"page_round_trips_signed_in\":${PAGE_RT_AUTH:-null},"
    echo " \"rss_max_mib_like_and_comment_scenarios\":${RSS_LIKE_MIB:-null},\"rss_max_mib_rebuild_and_deep_pages\":${RSS_DEEP_MIB:-null},"
    echo " \"deep\":{\"comments\":$DEEP_N,\"article\":$DEEP_ID,\"sqlite_bulk_load_seconds\":$DEEP_LOAD_SECS,\"rebuild_seconds\":$DEEP_REBUILD_SECS,"
    echo "  \"redis_used_memory_before\":$DEEP_MEM_BEFORE,\"redis_used_memory_after\":$DEEP_MEM_AFTER,\"redis_bytes_per_comment\":$DEEP_BPC,"
    echo "  \"aof_rewrite_wait_seconds\":$DEEP_PERSIST_WAIT,\"wrk\":\"-t1 -c8 -d$DEEP_DUR\",\"rounds\":$DEEP_ROUNDS,\"concurrent_reader\":\"$DEEP_SECOND\",\"rebuild_failures\":\"$DEEP_FAILS\",\"redis_slow_fsync_warnings\":${DEEP_RLOG:-0},\"cursor_check\":\"$DEEP_CHECK\",\"cursor_50k_over_first_p50\":$DEEP_RATIO,"
    echo "  \"points\":["
    awk '{ printf "%s{\"mode\":\"%s\",\"depth\":%s,\"rps\":%s,\"p50\":\"%s\",\"p99\":\"%s\",\"non2xx\":%s}", (NR > 1 ? ",\n   " : "   "), $1, $2, $3, $4, $5, $6 } END { print "" }' "$WORK/depth.dat"
    echo "  ],"
    echo "  \"raw\":["
    awk '{ printf "%s{\"round\":%s,\"mode\":\"%s\",\"depth\":%s,\"rps\":%s,\"p50_ms\":%s,\"p99_ms\":%s,\"non2xx\":%s}", (NR > 1 ? ",\n   " : "   "), $1, $2, $3, $4, $5, $6, $7 } END { print "" }' "$WORK/depth.raw"
    echo "  ]}},"
    echo "\"pages\":{\"threads\":${N_PAGES:-0},\"counts_round_trips\":$(field "$(row_of page_counts)" round_trips_per_req | grep . || echo null)},"
    echo "\"web\":${WEB_JSON:-null},"
    echo "\"cluster\":${CLUSTER_JSON:-null},"
    echo "\"moderation\":${MODERATION_JSON:-null},"
    echo "\"notifications\":${NOTIFY_JSON:-null},"
    echo "\"mariadb\":${MARIADB_JSON:-null},"
    echo "\"live\":${LIVE_JSON:-null},"
    echo "\"search\":${SEARCH_JSON:-null},"
    echo "\"read_path\":$(read_path_json),"
    echo "\"total_seconds\":$(($(date +%s) - BENCH_START)),"
    echo "\"targets\":[$(IFS=,; echo "${targets_json[*]}")]"
    echo "}"
  } >"$1"
}
