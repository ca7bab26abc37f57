# The measurements of bench/run.sh that need no running plauditd of its own, each by a tool of
# its own (sourced; from run.sh: BUILD, DATA, WORK, SRC_LUA_STALE): instructions per request
# (callgrind, bench/instructions.sh, step 3c), RESP framing (bench_resp), bytes per like record
# (bench/like_memory.sh, step 5) and Redis CPU per like script call (bench/like_script.sh,
# step 5b).
# shellcheck shell=bash disable=SC2034
# (SC2034: a step sets figures that bench/run.sh's later steps read.)

# run_instructions → INSTR_LINE (bench/instructions.sh's line, empty without valgrind or when
# it failed), INSTR_LIKE, INSTR_HELLO, INSTR_REDIS, INSTR_RATIO. plauditd restarted on DATA
# under the like_put_spread mix, and bench_hello, each under valgrind.
instr_field() { grep -oE "$1=[0-9]+" <<<"$INSTR_LINE" | cut -d= -f2 || true; }
run_instructions() {
  INSTR_LINE=""
  if command -v valgrind >/dev/null; then
    INSTR_LINE=$(bash bench/instructions.sh "$BUILD" "$DATA" "$WORK/ids.txt" "$WORK/tokens.txt" \
      2>"$WORK/instr.err") || { cat "$WORK/instr.err" >&2; INSTR_LINE=""; }
  fi
  INSTR_LIKE=$(instr_field like_instr_per_req)
  INSTR_HELLO=$(instr_field hello_instr_per_req)
  INSTR_REDIS=$(instr_field redis_script_instr_per_like)
  INSTR_RATIO=$(awk -v l="${INSTR_LIKE:-0}" -v h="${INSTR_HELLO:-0}" 'BEGIN { if (l > 0 && h > 0) printf "%.2f", l / h; else print "null" }')
  echo "instructions per request (callgrind): like_put_spread ${INSTR_LIKE:-?} (+ ${INSTR_REDIS:-?} in redis-server's scripts), hello ${INSTR_HELLO:-?} ($INSTR_RATIO×)" >&2
}

# run_resp → RESP_NS: "command:hiredis_ns:plauditd_ns …" (Google Benchmark: plauditd's
# FormatCommand against hiredis's formatter, measured in the same process; empty when missing)
run_resp() {
  local csv command_name h p log=""
  csv=$("$BUILD/bench_resp" --benchmark_min_time=0.5 --benchmark_format=csv 2>/dev/null | grep '^"')
  RESP_NS=""
  for command_name in like_evalsha hmget_17; do
    h=$(awk -F, -v n="\"Hiredis/$command_name\"" '$1 == n { printf "%.0f", $3 }' <<<"$csv")
    p=$(awk -F, -v n="\"Plaudit/$command_name\"" '$1 == n { printf "%.0f", $3 }' <<<"$csv")
    RESP_NS+="${RESP_NS:+ }$command_name:$h:$p"
    log+="${log:+, }$command_name ${h:-?} vs ${p:-?}"
  done
  echo "resp framing (ns, hiredis vs plauditd): $log" >&2
}

# run_like_memory → LIKEMEM (like_memory.sh's JSON), BPL, BPL_COUNTS, BPL_NOTE
run_like_memory() {
  LIKEMEM=$(bash bench/like_memory.sh 2>"$WORK/likemem.txt")
  cat "$WORK/likemem.txt" >&2
  BPL=$(grep -oE '"bytes_per_like":[0-9.]+' <<<"$LIKEMEM" | cut -d: -f2)
  BPL_COUNTS=$(grep -oE '"bytes_per_like_with_counts":[0-9.]+' <<<"$LIKEMEM" | cut -d: -f2)
  # like_memory.sh runs the like scripts of src/redis/lua: say so when they are not the binary's.
  BPL_NOTE=""
  if [[ " $SRC_LUA_STALE " == *" like_set.lua "* || " $SRC_LUA_STALE " == *" like_load.lua "* ]]; then
    BPL_NOTE=" (src/redis/lua's like scripts, which differ from the plauditd binary measured above)"
  fi
}

# run_like_script → LIKESCRIPT (like_script.sh's JSON), LS_ROUNDS (each mix's per-round figures,
# from its stderr: the JSON holds the medians only)
run_like_script() {
  LIKESCRIPT=$(bash bench/like_script.sh 2>"$WORK/likescript.txt") || {
    cat "$WORK/likescript.txt" >&2
    echo "bench/like_script.sh failed" >&2
    exit 1
  }
  cat "$WORK/likescript.txt" >&2
  LS_ROUNDS=$(grep '  rounds:' "$WORK/likescript.txt" | sed 's/^ *rounds: //')
}
