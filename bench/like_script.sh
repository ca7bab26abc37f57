#!/usr/bin/env bash
# Redis CPU per like, in isolation: src/redis/lua/like_set.lua driven straight into a private
# redis-server configured as plauditd's embedded child (src/app/embedded_redis.cpp: AOF
# everysec with automatic rewrite, hash-max-listpack-entries 512, no latency tracking),
# against a script that does nothing with the same arguments, in the same run. It answers in
# seconds what make bench's like rows answer in minutes, for the Redis side only: how much of
# a like is the script call itself, how much its commands, and what a batch saves.
#
# Mixes (the like_put_spread shape: 200 published articles, 1,000 users, PUT or DELETE at
# random; the article cache hash says published, counts and small sets are loaded):
#   noop    `return 1` with an article like's keys and arguments (2 keys, 6 args): the floor
#           of any one-script like (request parsing, EVALSHA, KEYS/ARGV, the reply)
#   single  like_set.lua, one like a call (a spread like: its target idle)
#   batch4  like_set.lua, four likes of one target a call (what a busy target's queue sends)
# Every 50,000 calls the pending hashes and dirty indexes are dropped, as a flush would (so the
# hashes stay the size a 1 s flush leaves); that CPU is counted, and is small.
# Each mix runs ROUNDS times, alternating; the figure is the median µs of Redis CPU (INFO cpu,
# user + sys) per call and per like. Correctness check at the end: the sum of the counts equals
# the sum of the liker sets.
#
# Prints human lines on stderr and one JSON object on stdout. Env: LIKE_SCRIPT_CALLS (200000),
# LIKE_SCRIPT_ROUNDS (3), LIKE_SCRIPT_SEED (1).
set -euo pipefail
cd "$(dirname "$0")/.."

CALLS=${LIKE_SCRIPT_CALLS:-200000}
ROUNDS=${LIKE_SCRIPT_ROUNDS:-3}
SEED=${LIKE_SCRIPT_SEED:-1}
ARTICLES=200
USERS=1000
source bench/lib/common.sh  # private_redis_workdir, start_private_redis, rcli, median
private_redis_workdir likescript

# As src/app/embedded_redis.cpp starts its child (the settings that change a like's cost).
start_private_redis "$DIR" --appendonly yes --appendfsync everysec \
  --auto-aof-rewrite-percentage 100 --auto-aof-rewrite-min-size 64mb \
  --hash-max-listpack-entries 512 --latency-tracking no

SET_SHA=$(rcli SCRIPT LOAD "$(cat src/redis/lua/like_set.lua)")
NOOP_SHA=$(rcli SCRIPT LOAD "return 1")

# The loaded state like_load.lua would leave for a target nobody likes yet, and the article's
# cache hash (the 'pub' check reads its status).
for a in $(seq 1 $ARTICLES); do
  tag="{l$((a % 256))}"
  echo "HSET pl:art:$tag:$a status published"
  echo "SET pl:lc:$tag:a$a 0"
  echo "SADD pl:lk:$tag:a$a:s 0"
done | rcli >/dev/null

# What a flush leaves: no pending hashes, no dirty members (the records and counts stay).
FLUSH_LUA="for s = 0, 255 do
  local d = 'pl:ld:{l' .. s .. '}'
  for _, m in ipairs(redis.call('ZRANGE', d, 0, -1)) do
    redis.call('DEL', 'pl:lp:{l' .. s .. '}:' .. m)
  end
  redis.call('DEL', d)
end
return 1"

# gen MIX SEED GUESS → CALLS commands in RESP on stdout. GUESS: the mode guess plauditd's
# LikeModeHints would send ('s', or 'big' once a target has outgrown its small set).
gen() {
  awk -v mix="$1" -v seed="$2" -v guess="$3" -v calls="$CALLS" -v articles="$ARTICLES" -v users="$USERS" \
    -v set_sha="$SET_SHA" -v noop_sha="$NOOP_SHA" -v flush="$FLUSH_LUA" '
  function bulk(s) { s = s ""; return "$" length(s) "\r\n" s "\r\n" }
  BEGIN {
    srand(seed)
    per = (mix == "batch4") ? 4 : 1
    sha = (mix == "noop") ? noop_sha : set_sha
    for (i = 0; i < calls; i++) {
      if (i > 0 && i % 50000 == 0) {
        printf "*3\r\n%s%s%s", bulk("EVAL"), bulk(flush), bulk(0)
      }
      a = 1 + int(rand() * articles)
      tag = "{l" (a % 256) "}"
      out = bulk("EVALSHA") bulk(sha) bulk(2) bulk("pl:lk:" tag ":a" a ":s") \
            bulk("pl:art:" tag ":" a) bulk(1796000000000 + int(i / 70)) bulk(guess) bulk("pub")
      for (k = 0; k < per; k++) {
        uid = 2 + int(rand() * users)
        out = out bulk(uid) bulk(rand() < 0.5 ? 1 : 0) bulk(int(uid / 256))
      }
      printf "*%d\r\n%s", 8 + 3 * per, out
    }
  }'
}

cpu() { rcli INFO cpu | tr -d '\r' | awk -F: '/^used_cpu_(user|sys):/ { s += $2 } END { printf "%.6f", s }'; }

run() {  # MIX ROUND GUESS → µs of Redis CPU per call
  local file=$DIR/$1.$2 before after out
  gen "$1" $((SEED * 100 + $2)) "$3" >"$file"
  before=$(cpu)
  out=$(rcli --pipe <"$file" 2>&1)
  after=$(cpu)
  if ! grep -q 'errors: 0' <<<"$out"; then
    echo "like_script: redis-cli --pipe failed ($1): $out" >&2
    exit 1
  fi
  rm -f "$file"
  awk -v a="$before" -v b="$after" -v n="$CALLS" 'BEGIN { printf "%.3f", (b - a) * 1e6 / n }'
}

# Warm-up passes load the script and grow the likers to their steady size: ~500 of the 1,000
# users a target, until every target has split into big-mode buckets (as in make bench's
# like_put_spread); the measured rounds then guess 'big' as plauditd does.
big_targets() {
  rcli EVAL "local n = 0
for a = 1, tonumber(ARGV[1]) do
  n = n + redis.call('EXISTS', 'pl:lb:{l' .. (a % 256) .. '}:a' .. a)
end
return n" 0 "$ARTICLES"
}
for w in 1 2 3 4 5 6 7 8; do
  run single "-$w" s >/dev/null
  [ "$(big_targets)" = "$ARTICLES" ] && break
done
declare -A seen
for r in $(seq 1 "$ROUNDS"); do
  for mix in noop single batch4; do
    seen[$mix]="${seen[$mix]:-} $(run "$mix" "$r" big)"
  done
done
NOOP=$(median <<<"${seen[noop]}")
SINGLE=$(median <<<"${seen[single]}")
BATCH=$(median <<<"${seen[batch4]}")
BATCH_PER_LIKE=$(awk -v b="$BATCH" 'BEGIN { printf "%.3f", b / 4 }')
RATIO=$(awk -v s="$SINGLE" -v n="$NOOP" 'BEGIN { printf "%.2f", s / n }')

# The counts must equal the liker sets (the small set or the buckets, minus their 0 marks),
# likes must have happened, and the targets must be in big mode as the rounds guessed.
CHECK=$(rcli EVAL "local counts, likers = 0, 0
for a = 1, tonumber(ARGV[1]) do
  local t = '{l' .. (a % 256) .. '}:a' .. a
  counts = counts + tonumber(redis.call('GET', 'pl:lc:' .. t))
  for _, b in ipairs({'s', '0', '1', '2', '3'}) do
    local n = redis.call('SCARD', 'pl:lk:' .. t .. ':' .. b)
    if n > 0 then likers = likers + n - 1 end
  end
end
return counts .. ' ' .. likers" 0 "$ARTICLES")
read -r COUNTS LIKERS <<<"$CHECK"
BIG=$(big_targets)
if [ "$COUNTS" != "$LIKERS" ] || [ "$COUNTS" -le 0 ] || [ "$BIG" != "$ARTICLES" ]; then
  echo "like_script: counts $COUNTS, likers $LIKERS, $BIG of $ARTICLES targets in big mode:" \
    "the mix did not run as meant" >&2
  exit 1
fi

{
  echo "like_script: Redis CPU per call (median of $ROUNDS × $CALLS calls; counts $COUNTS = likers, $BIG targets in big mode):"
  echo "  noop   (return 1, same args)  $NOOP µs"
  echo "  single (like_set.lua, 1 like) $SINGLE µs (${RATIO}× noop)"
  echo "  batch4 (like_set.lua, 4 likes of one target) $BATCH µs a call, $BATCH_PER_LIKE µs a like"
  echo "  rounds: noop${seen[noop]}; single${seen[single]}; batch4${seen[batch4]}"
} >&2
printf '{"calls":%s,"rounds":%s,"noop_us":%s,"single_us":%s,"batch4_us_per_call":%s,"batch4_us_per_like":%s,"single_over_noop":%s}\n' \
  "$CALLS" "$ROUNDS" "$NOOP" "$SINGLE" "$BATCH" "$BATCH_PER_LIKE" "$RATIO"
