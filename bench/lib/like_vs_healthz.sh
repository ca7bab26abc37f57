# bench/run.sh's step 2b: the like target against /healthz, as issue 6 states it, interleaved
# (sourced; needs common.sh, and from run.sh: WORK, PORT, CONN, THREADS, PAIR_DUR,
# PAIR_ROUNDS, PAIR_COMMENT_ROUNDS). BENCH_PAIR_ROUNDS rounds of /healthz, like_put_spread,
# /healthz, like_put_hot, /healthz (BENCH_PAIR_DURATION each, plain wrk, no probes); the first
# BENCH_PAIR_COMMENT_ROUNDS of them go on with comment_like_put_spread, /healthz,
# comment_like_put_hot, /healthz. Each like run is divided by the
# mean of the two /healthz runs right around it: on this shared box the reference alone moved
# 55k-95k req/s within minutes, so one reference taken minutes apart (the table's hello column)
# can swing a ratio by a third. The target takes the median ratio and the median p99 over the
# rounds; every round is in the results.
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

wrk_line() {  # URL [SCRIPT] → "rps p99_ms non2xx"
  wrk -t"$THREADS" -c"$CONN" -d"$PAIR_DUR" --latency ${2:+-s "$2"} "$1" >"$WORK/pair.txt" 2>&1
  local rps p99 n2
  read -r rps _ p99 n2 _ < <(wrk_summary "$WORK/pair.txt")
  echo "$rps $(to_ms "$p99") $n2"
}

# run_like_pairs → WORK/pairs: "round scenario rps p99_ms non2xx healthz_before healthz_after
# ratio" a line
run_like_pairs() {
  local round s h0 h1 l p n2 r
  : >"$WORK/pairs"
  for round in $(seq 1 "$PAIR_ROUNDS"); do
    read -r h0 _ _ < <(wrk_line "http://127.0.0.1:$PORT/healthz")
    local scenarios=(like_put_spread like_put_hot)
    # The comment likes in the first PAIR_COMMENT_ROUNDS rounds only (each adds two like runs
    # and two /healthz runs to its round).
    [ "$round" -le "$PAIR_COMMENT_ROUNDS" ] && scenarios+=(comment_like_put_spread comment_like_put_hot)
    for s in "${scenarios[@]}"; do
      read -r l p n2 < <(wrk_line "http://127.0.0.1:$PORT/" "bench/wrk/$s.lua")
      read -r h1 _ _ < <(wrk_line "http://127.0.0.1:$PORT/healthz")
      r=$(awk -v l="$l" -v a="$h0" -v b="$h1" 'BEGIN { printf "%.3f", (a + b > 0) ? 2 * l / (a + b) : 0 }')
      echo "$round $s $l $p $n2 $h0 $h1 $r" >>"$WORK/pairs"
      echo "like vs /healthz, round $round: $s $l req/s, p99 $p ms, non-2xx $n2; /healthz $h0 before, $h1 after → ${r}×" >&2
      h0=$h1
    done
  done
}

# pair_stat SCENARIO COLUMN → the median of that column over the rounds (col 8 ratio, 4 p99)
pair_stat() {
  awk -v s="$1" -v c="$2" '$2 == s { print $c }' "$WORK/pairs" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print "null"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
pair_range() {  # SCENARIO COLUMN → "min-max"
  awk -v s="$1" -v c="$2" '$2 == s { print $c }' "$WORK/pairs" | sort -g | sed -n '1p;$p' | paste -sd- -
}
pair_errors() { awk -v s="$1" '$2 == s { n += $5 } END { print n + 0 }' "$WORK/pairs"; }

