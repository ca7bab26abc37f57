#!/usr/bin/env bash
# What an idle plauditd asks of Redis (issue 47): one plauditd (embedded Redis + SQLite), some
# likes and comments first so that its shards have data and its flusher something to do, then
# nothing: Redis commands a second (INFO's total_commands_processed, which counts the commands
# inside scripts too) over SECS seconds, and which commands they were.
#   bash bench/idle_cost.sh                # build/plauditd
#   BIN=/tmp/plauditd-old SECS=30 bash bench/idle_cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh

BIN=${BIN:-build/plauditd}
SECS=${SECS:-20}
WORK=$(mktemp -d /tmp/plaudit-idle.XXXXXX)
pids=()
cleanup_on_exit

start_plauditd "$BIN" "$WORK/data" "$WORK/plauditd.log" --log-level info
API=http://127.0.0.1:$PLAUDITD_PORT/api/v1
SOCK=$WORK/data/redis/redis.sock
rcli() { redis-cli -s "$SOCK" "$@"; }

# Some work first: 40 articles (40 shards), a like and a comment on each.
token=$(curl -fsS -X POST "$API/sessions" -H 'Content-Type: application/json' \
  -d '{"username":"benchadmin","password":"benchpassword"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
auth=(-H "Authorization: Bearer $token" -H 'Content-Type: application/json')
for i in $(seq 1 40); do
  id=$(curl -fsS -X POST "$API/articles" "${auth[@]}" \
    -d "{\"title\":\"idle $i\",\"content\":\"<p>x</p>\",\"status\":\"published\"}" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
  curl -fsS -o /dev/null -X PUT "$API/articles/$id/like" "${auth[@]}"
  curl -fsS -o /dev/null -X POST "$API/articles/$id/comments" "${auth[@]}" -d '{"body":"hi"}'
done
sleep 3  # the passes after the work have flushed it

total() { rcli INFO stats | tr -d '\r' | awk -F: '/^total_commands_processed:/ { print $2 }'; }
rcli CONFIG RESETSTAT >/dev/null
before=$(total)
sleep "$SECS"
after=$(total)
# The INFO call that reads `after` is not the flusher's.
awk -v a="$before" -v b="$after" -v s="$SECS" \
  'BEGIN { printf "idle plauditd: %.1f Redis commands/s over %d s\n", (b - a - 1) / s, s }'
rcli INFO commandstats | tr -d '\r' | awk -F'[:=,]' -v s="$SECS" \
  '/^cmdstat_/ && $1 !~ /info|config/ { sub(/^cmdstat_/, "", $1); printf "  %-10s %6.1f/s\n", $1, $3 / s }'
