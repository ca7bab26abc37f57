#!/usr/bin/env bash
# make fuzz: builds the libFuzzer targets (the `fuzz` preset: clang 22, ASan + UBSan, in
# build-fuzz/) and runs each for FUZZ_SECONDS (default 30), FUZZ_JOBS at a time (default 2).
#   make fuzz [FUZZ_SECONDS=600] [FUZZ_TARGETS="http resp"] [FUZZ_JOBS=2]
# Each target starts from its seeds (fuzz/corpus/<target>, kept in the repo) and from what its
# earlier runs on this machine found (build-fuzz/runs/<target>/corpus, where new inputs go).
# A finding (crash, sanitizer report, leak, timeout, out of memory, an oracle's abort) is kept
# as build-fuzz/runs/<target>/crash-… (or leak-, timeout-, oom-); the run then fails with the
# end of that target's log. Replay one: build-fuzz/fuzz/fuzz_<target> <file>. A fixed finding
# gets a regression test in the unit tests (docs/reliability.md "Fuzzing").
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
jobs=${FUZZ_JOBS:-2}
targets=${FUZZ_TARGETS:-}
targets=${targets:-$(ls fuzz/corpus)}

test -f build-fuzz/build.ninja || cmake --preset fuzz >/dev/null
cmake --build build-fuzz --target fuzzers -j "${JOBS:-$(nproc)}"

runs=build-fuzz/runs
run_one() {
  local t=$1 dir=$runs/$1
  mkdir -p "$dir/corpus"
  local dict=()
  if [ -f "fuzz/$t.dict" ]; then dict=(-dict="fuzz/$t.dict"); fi
  # rss/malloc limits: a reader of hostile bytes must not need gigabytes; timeout: no input
  # may take 10 s.
  if build-fuzz/fuzz/"fuzz_$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$dir/" "${dict[@]}" \
      "$dir/corpus" "fuzz/corpus/$t" >"$dir/log" 2>&1; then
    local execs
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
    echo "fuzz $t: ${execs:-?} executions in ${seconds} s, no finding"
  else
    echo "fuzz $t: FINDING ($dir/log below; inputs: $(ls "$dir" | grep -E '^(crash|leak|timeout|oom|slow-unit)-' | tr '\n' ' '))"
    tail -n 60 "$dir/log"
    return 1
  fi
}
export -f run_one
export seconds runs
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}'
