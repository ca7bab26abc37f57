#!/usr/bin/env bash
# Bytes per like record in Redis at 1,000,000 records, in Plaudit's layout (src/redis/keys.hpp):
#   pl:lk:{l<shard>}:a<target>:<bucket>  SET of integer user ids whose id >> 8 == bucket,
#                                        plus member 0 (the "loaded" mark)
#   pl:lc:{l<shard>}:a<target>           STRING, the like count
# shard = target % 256. 100,000 users × 10,000 targets, each target liked by 100 distinct
# random users (fixed seed) → 1,000,000 records. A private redis-server (no TCP, no
# persistence) is loaded with `redis-cli --pipe` from an awk generator; the figure is
# (used_memory after − before) / records. For comparison it also loads the same records as
# one SET per target (no user buckets), the layout MEASURED.md calls "intset, 5.3 B".
#
# Prints human lines on stderr and one JSON object on stdout. Env: LIKE_USERS (100000),
# LIKE_TARGETS (10000), LIKE_PER_TARGET (100), LIKE_SEED (1).
set -euo pipefail

USERS=${LIKE_USERS:-100000}
TARGETS=${LIKE_TARGETS:-10000}
PER_TARGET=${LIKE_PER_TARGET:-100}
SEED=${LIKE_SEED:-1}
RECORDS=$((TARGETS * PER_TARGET))

DIR=$(mktemp -d /tmp/plaudit-likemem-XXXXXX)
SOCK=$DIR/redis.sock
redis_pid=
cleanup() {
  if [ -n "$redis_pid" ]; then
    kill "$redis_pid" 2>/dev/null || true
    wait "$redis_pid" 2>/dev/null || true
  fi
  rm -rf "$DIR"
}
trap cleanup EXIT

redis-server --port 0 --unixsocket "$SOCK" --unixsocketperm 700 --save '' --appendonly no \
  --dir "$DIR" --logfile "$DIR/redis.log" &
redis_pid=$!
for _ in $(seq 1 200); do
  redis-cli -s "$SOCK" PING >/dev/null 2>&1 && break
  sleep 0.02
done
rcli() { redis-cli -s "$SOCK" "$@"; }

used_memory() {
  sleep 0.3  # let the server finish incremental rehashing before reading
  rcli INFO memory | tr -d '\r' | awk -F: '$1=="used_memory" {print $2}'
}

# gen MODE → RESP commands on stdout. MODE: bucketed | pertarget | counts
gen() {
  awk -v mode="$1" -v users="$USERS" -v targets="$TARGETS" -v per="$PER_TARGET" \
    -v seed="$SEED" 'BEGIN {
    srand(seed)
    for (t = 1; t <= targets; t++) {
      shard = t % 256
      if (mode == "counts") {
        key = "pl:lc:{l" shard "}:a" t
        printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(key), key, length(per ""), per
        continue
      }
      split("", seen)
      n = 0
      while (n < per) {
        uid = 1 + int(rand() * users)
        if (uid > users || (uid in seen)) continue
        seen[uid] = 1
        n++
        if (mode == "bucketed") key = "pl:lk:{l" shard "}:a" t ":" int(uid / 256)
        else key = "pl:lk:{l" shard "}:a" t
        u = uid ""
        printf "*4\r\n$4\r\nSADD\r\n$%d\r\n%s\r\n$1\r\n0\r\n$%d\r\n%s\r\n", length(key), key, length(u), u
      }
    }
  }'
}

load() {  # MODE → loads, checks the reply count
  local out
  out=$(gen "$1" | rcli --pipe 2>&1)
  if ! grep -q 'errors: 0' <<<"$out"; then
    echo "like_memory: redis-cli --pipe failed: $out" >&2
    exit 1
  fi
}

records_loaded() {  # sum of SCARD over pl:lk:* minus the 0 marks (server-side SCAN: exact check)
  rcli EVAL "local c, s = '0', 0
repeat
  local r = redis.call('SCAN', c, 'MATCH', 'pl:lk:*', 'COUNT', 10000)
  c = r[1]
  for _, k in ipairs(r[2]) do s = s + redis.call('SCARD', k) - 1 end
until c == '0'
return s" 0
}

base=$(used_memory)
t0=$(date +%s.%N)
load bucketed
t1=$(date +%s.%N)
after_likes=$(used_memory)
like_keys=$(rcli DBSIZE)
records=$(records_loaded)
encodings=$(rcli OBJECT ENCODING "$(rcli RANDOMKEY)")
load counts
after_counts=$(used_memory)

rcli FLUSHALL SYNC >/dev/null
base2=$(used_memory)
load pertarget
after_pertarget=$(used_memory)
pertarget_keys=$(rcli DBSIZE)

awk -v base="$base" -v likes="$after_likes" -v counts="$after_counts" -v rec="$records" \
  -v keys="$like_keys" -v targets="$TARGETS" -v base2="$base2" -v pt="$after_pertarget" \
  -v ptkeys="$pertarget_keys" -v enc="$encodings" -v secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" '
BEGIN {
  per_like = (likes - base) / rec
  per_like_counts = (counts - base) / rec
  per_count_key = (counts - likes) / targets
  per_like_pt = (pt - base2) / rec
  printf "like records: %d in %d SET keys (%s, %.1f records/key), loaded in %s s\n", rec, keys, enc, rec / keys, secs > "/dev/stderr"
  printf "  bucketed layout (pl:lk:{lN}:a<t>:<uid>>8): %.1f bytes/like; with the %d count keys: %.1f bytes/like (%.0f bytes per count key)\n", per_like, targets, per_like_counts, per_count_key > "/dev/stderr"
  printf "  for comparison, one SET per target (%d keys): %.1f bytes/like\n", ptkeys, per_like_pt > "/dev/stderr"
  printf "{\"records\":%d,\"like_keys\":%d,\"encoding\":\"%s\",\"used_memory_before\":%d,\"used_memory_likes\":%d,\"used_memory_with_counts\":%d,\"bytes_per_like\":%.2f,\"bytes_per_like_with_counts\":%.2f,\"bytes_per_count_key\":%.1f,\"per_target_set_keys\":%d,\"bytes_per_like_per_target_set\":%.2f}\n", rec, keys, enc, base, likes, counts, per_like, per_like_counts, per_count_key, ptkeys, per_like_pt
}'
