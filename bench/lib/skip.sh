# The figures of the steps bench/run.sh leaves out when BENCH_SKIP names them (sourced): each
# skip_* sets what the step would have set, as "not measured" (null, empty), so that the
# results JSON stays valid and bench/report.py renders. For quick checks of the bench scripts
# only: such a run's results and report are not to be committed.
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

skip_redis_benchmark() {
  RB1=null RB1_WRITES=0 RB16=null RB16_WRITES=0 RBPING1=0 RBPING16=0
  REDIS_VERSION=$(rcli INFO server | tr -d '\r' | awk -F: '$1=="redis_version" {print $2}')
}

skip_deep_pages() {
  DEEP_LOAD_SECS=null DEEP_REBUILD_SECS=null DEEP_MEM_BEFORE=null DEEP_MEM_AFTER=null
  DEEP_BPC=null DEEP_PERSIST_WAIT=null DEEP_RLOG=0 DEEP_PLOG="" DEEP_FAILS=""
  DEEP_SECOND="not run (BENCH_SKIP)" DEEP_CHECK="not run (BENCH_SKIP)" RSS_DEEP_MIB=null
  : >"$WORK/depth.dat"
  : >"$WORK/depth.raw"
}

skip_instructions() {
  INSTR_LINE="" INSTR_LIKE="" INSTR_HELLO="" INSTR_REDIS="" INSTR_RATIO=null
}

skip_flush() {
  FLUSH_SQLITE_LINE="not run (BENCH_SKIP)" FLUSH_SQLITE=0 FLUSH_PG_RATE=null
  FLUSH_PG_LINE="not run (BENCH_SKIP)" PG_VERSION=""
}

skip_like_memory() {
  LIKEMEM='{"bytes_per_like":null,"bytes_per_like_with_counts":null,"like_keys":null,"bytes_per_like_per_target_set":null,"bytes_per_count_key":null}'
  BPL="" BPL_COUNTS="" BPL_NOTE=" (not measured: BENCH_SKIP)"
}

skip_like_script() {
  LIKESCRIPT='{"noop_us":null,"single_us":null,"single_over_noop":null,"batch4_us_per_call":null,"batch4_us_per_like":null,"rounds":null,"calls":null}'
  LS_ROUNDS=""
}
