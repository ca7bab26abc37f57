#!/usr/bin/env bash
# make soak-all MINUTES=N [DB=postgresql|mariadb|sqlite] [SEED=n]: both model-based fault
# tests at once, each for MINUTES of faults on DB, then their final checks (every acknowledged
# like, view, article and comment present, every count equal to its rows), with the RSS of
# every `plauditd serve` they run sampled once a second and plotted (scripts/soak_report.py).
#
# The likes test (fault_test.cpp: likes, views, logins on one primary) runs every fault but
# server-kill by default, so its primary lives the whole run and its RSS line shows growth
# over the full length; the content test (content_fault_test.cpp: articles, comments on two
# instances, and its held client: page threads, held comments approved, marked spam and
# deleted by moderation, sign-outs) runs every fault, SIGKILLs and restarts of its instances
# included. LIKE_FAULTS
# and CONTENT_FAULTS override the kinds (the tests' own names, comma-separated, or all).
set -euo pipefail
cd "$(dirname "$0")/.."

MINUTES=${MINUTES:-10}
DB=${DB:-postgresql}
SEED=${SEED:-$(( $(date +%s) % 1000000007 ))}
LIKE_FAULTS=${LIKE_FAULTS:-flushall,redis-kill,redis-rollback,extra-flush,second-instance,sql-restart}
CONTENT_FAULTS=${CONTENT_FAULTS:-all}
OUT=${SOAK_OUT:-build/soak}

mkdir -p "$OUT"
rm -f "$OUT"/rss-*.csv
# The binaries under test are copies: a rebuild during a long soak changes nothing under it.
cp build/plauditd "$OUT/plauditd"
cp build/tests/app_tests "$OUT/app_tests"
export PLAUDIT_FAULT_PLAUDITD="$PWD/$OUT/plauditd"
SECONDS_EACH=$(( MINUTES * 60 ))
echo "soak: ${MINUTES} min on ${DB}, seed ${SEED}; logs and samples in ${OUT}/"

PLAUDIT_SOAK_RSS="$PWD/$OUT/rss-likes.csv" PLAUDIT_FAULT_SEED=$SEED \
  PLAUDIT_FAULT_SECONDS=$SECONDS_EACH PLAUDIT_FAULTS=$LIKE_FAULTS \
  "$OUT/app_tests" --gtest_color=no --gtest_filter="Databases/FaultTest.*/$DB" \
  > "$OUT/likes.log" 2>&1 &
likes=$!
PLAUDIT_SOAK_RSS="$PWD/$OUT/rss-content.csv" PLAUDIT_CONTENT_SEED=$SEED \
  PLAUDIT_CONTENT_SECONDS=$SECONDS_EACH PLAUDIT_CONTENT_FAULTS=$CONTENT_FAULTS \
  "$OUT/app_tests" --gtest_color=no --gtest_filter="Databases/ContentFaultTest.*/$DB" \
  > "$OUT/content.log" 2>&1 &
content=$!

rc=0
wait $likes || rc=1
wait $content || rc=1
for t in likes content; do
  echo "== $t: $(grep -E '^\[  (PASSED|FAILED)  \]' "$OUT/$t.log" | tail -1)"
  grep -E '^\[(fault|content)\]' "$OUT/$t.log" | grep -E 'faults:|findings:|acked writes' || true
done
python3 scripts/soak_report.py --minutes "$MINUTES" --db "$DB" --seed "$SEED" \
  --likes-faults "$LIKE_FAULTS" --content-faults "$CONTENT_FAULTS" "$OUT" || rc=1
exit $rc
