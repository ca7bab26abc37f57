#!/usr/bin/env bash
# Bytes per like record in Redis at 1,000,000 records, in Plaudit's real layout: the records
# are written by the real scripts (src/redis/lua/like_load.lua, then like_set.lua once per
# like), so this measures what plauditd stores, not an imitation:
#   pl:lk:{l<shard>}:a<target>:s         one SET of every liker while a target has ≤ 256
#   pl:lk:{l<shard>}:a<target>:<uid>>8>  after a target outgrew it: SETs by user-id bucket
#   pl:lc:{l<shard>}:a<target>           STRING, the like count
# shard = target % 256. 100,000 users × 10,000 targets, each target liked by 100 distinct
# random users (fixed seed) → 1,000,000 records. A private redis-server (no TCP, no
# persistence) is loaded with `redis-cli --pipe` from an awk generator. The pending-change
# hashes and dirty index that like_set.lua also writes are then deleted, as a flush would,
# and the figure is (used_memory after − before) / records. For comparison it also loads
# the same records as one plain SET per target (MEASURED.md's "intset, 5.3 B") and in
# the earlier layout (every target bucketed by user id >> 8 from its first like).
#
# Prints human lines on stderr and one JSON object on stdout. Env: LIKE_USERS (100000),
# LIKE_TARGETS (10000), LIKE_PER_TARGET (100), LIKE_SEED (1).
set -euo pipefail
cd "$(dirname "$0")/.."

USERS=${LIKE_USERS:-100000}
TARGETS=${LIKE_TARGETS:-10000}
PER_TARGET=${LIKE_PER_TARGET:-100}
SEED=${LIKE_SEED:-1}
RECORDS=$((TARGETS * PER_TARGET))
source bench/lib/common.sh  # private_redis_workdir, start_private_redis, rcli
private_redis_workdir likemem

start_private_redis "$DIR" --appendonly no

used_memory() {
  sleep 0.3  # let the server finish incremental rehashing before reading
  rcli INFO memory | tr -d '\r' | awk -F: '$1=="used_memory" {print $2}'
}

SET_SHA=$(rcli SCRIPT LOAD "$(cat src/redis/lua/like_set.lua)")
LOAD_SHA=$(rcli SCRIPT LOAD "$(cat src/redis/lua/like_load.lua)")
# What a check leaves in every shard before anything is loaded (flush::RedisCheck): the birth
# mark like_load.lua requires, and an epoch for it to compare (512 small keys, before the
# baseline).
rcli EVAL "for s = 0, 255 do
  redis.call('SET', 'pl:lbm:{l' .. s .. '}', '1')
  redis.call('SET', 'pl:lep:{l' .. s .. '}', '1')
end
return 1" 0 >/dev/null

# gen MODE → RESP commands on stdout. MODE: scripts | pertarget | bucketed
gen() {
  awk -v mode="$1" -v users="$USERS" -v targets="$TARGETS" -v per="$PER_TARGET" \
    -v seed="$SEED" -v set_sha="$SET_SHA" -v load_sha="$LOAD_SHA" '
  function bulk(s) { s = s ""; return "$" length(s) "\r\n" s "\r\n" }
  function cmd(n, a,   i, out) {
    out = "*" n "\r\n"
    for (i = 1; i <= n; i++) out = out bulk(a[i])
    printf "%s", out
  }
  BEGIN {
    srand(seed)
    for (t = 1; t <= targets; t++) {
      tag = "{l" (t % 256) "}"
      name = "a" t
      if (mode == "scripts") {
        # like_load.lua: SQL has no likers yet (small mode), count 0.
        split("", a)
        a[1] = "EVALSHA"; a[2] = load_sha; a[3] = 10
        a[4] = "pl:lk:" tag ":" name ":s"; a[5] = "pl:lb:" tag ":" name
        a[6] = "pl:lk:" tag ":" name ":0"; a[7] = "pl:lc:" tag ":" name
        a[8] = "pl:lp:" tag ":" name ":s"; a[9] = "pl:lf:" tag ":" name ":s"
        a[10] = "pl:lp:" tag ":" name ":0"; a[11] = "pl:lf:" tag ":" name ":0"
        a[12] = "pl:lep:" tag; a[13] = "pl:lbm:" tag
        a[14] = "small"; a[15] = 0; a[16] = 0; a[17] = 255; a[18] = 1
        cmd(18, a)
      }
      split("", seen)
      n = 0
      while (n < per) {
        uid = 1 + int(rand() * users)
        if (uid > users || (uid in seen)) continue
        seen[uid] = 1
        n++
        b = int(uid / 256)
        split("", a)
        if (mode == "scripts") {
          # KEYS[1] the small set (the script builds every other key of the target from it)
          a[1] = "EVALSHA"; a[2] = set_sha; a[3] = 1
          a[4] = "pl:lk:" tag ":" name ":s"
          a[5] = 1796000000000  # ARGV[1]: the clock in ms, the dirty index score
          a[6] = "s"            # ARGV[2]: the mode guess (small; a wrong one only costs a read)
          a[7] = ""             # ARGV[3]: the kind (no published check, no hot order)
          a[8] = uid; a[9] = 1; a[10] = b  # one like: user, like, the bucket of the user
          cmd(10, a)
        } else {
          a[1] = "SADD"; a[3] = 0; a[4] = uid
          a[2] = (mode == "bucketed") ? "pl:lk:" tag ":" name ":" b : "pl:lk:" tag ":" name
          cmd(4, a)
        }
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

del_matching() {  # PATTERN → deletes those keys server-side (SCAN, bounded batches)
  rcli EVAL "local c = '0'
repeat
  local r = redis.call('SCAN', c, 'MATCH', ARGV[1], 'COUNT', 10000)
  c = r[1]
  for _, k in ipairs(r[2]) do redis.call('DEL', k) end
until c == '0'
return 1" 0 "$1" >/dev/null
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

count_keys() {  # PATTERN → how many keys match
  rcli EVAL "local c, n = '0', 0
repeat
  local r = redis.call('SCAN', c, 'MATCH', ARGV[1], 'COUNT', 10000)
  c = r[1]
  n = n + #r[2]
until c == '0'
return n" 0 "$1"
}

base=$(used_memory)
t0=$(date +%s.%N)
load scripts
t1=$(date +%s.%N)
# What a flush leaves: no pending changes, no dirty index.
del_matching 'pl:lp:*'
del_matching 'pl:ld:*'
after_counts=$(used_memory)
like_keys=$(count_keys 'pl:lk:*')
records=$(records_loaded)
# Every like must have landed: a script whose arguments no longer match (its layout changed)
# answers "miss" to every call without an error, which would measure an empty Redis.
expected=$((TARGETS * PER_TARGET))
if [ "$records" != "$expected" ]; then
  echo "like_memory: $records like records in Redis, expected $expected" >&2
  exit 1
fi
encodings=$(rcli OBJECT ENCODING "$(rcli --scan --pattern 'pl:lk:*' | head -1)")
del_matching 'pl:lc:*'
after_likes=$(used_memory)

rcli FLUSHALL SYNC >/dev/null
base2=$(used_memory)
load pertarget
after_pertarget=$(used_memory)
pertarget_keys=$(rcli DBSIZE)

rcli FLUSHALL SYNC >/dev/null
base3=$(used_memory)
load bucketed
after_bucketed=$(used_memory)

awk -v base="$base" -v likes="$after_likes" -v counts="$after_counts" -v rec="$records" \
  -v keys="$like_keys" -v targets="$TARGETS" -v base2="$base2" -v pt="$after_pertarget" \
  -v base3="$base3" -v bk="$after_bucketed" \
  -v ptkeys="$pertarget_keys" -v enc="$encodings" -v secs="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')" '
BEGIN {
  per_like = (likes - base) / rec
  per_like_counts = (counts - base) / rec
  per_count_key = (counts - likes) / targets
  per_like_pt = (pt - base2) / rec
  per_like_bk = (bk - base3) / rec
  printf "like records: %d in %d SET keys (%s, %.1f records/key), written by like_set.lua in %s s\n", rec, keys, enc, rec / keys, secs > "/dev/stderr"
  printf "  Plaudit layout (one set per target up to 256 likers): %.1f bytes/like; with the %d count keys: %.1f bytes/like (%.0f bytes per count key)\n", per_like, targets, per_like_counts, per_count_key > "/dev/stderr"
  printf "  for comparison, one plain SET per target (%d keys): %.1f bytes/like; bucketed by user id >> 8 from the first like: %.1f bytes/like\n", ptkeys, per_like_pt, per_like_bk > "/dev/stderr"
  printf "{\"records\":%d,\"like_keys\":%d,\"encoding\":\"%s\",\"used_memory_before\":%d,\"used_memory_likes\":%d,\"used_memory_with_counts\":%d,\"bytes_per_like\":%.2f,\"bytes_per_like_with_counts\":%.2f,\"bytes_per_count_key\":%.1f,\"per_target_set_keys\":%d,\"bytes_per_like_per_target_set\":%.2f,\"bytes_per_like_bucketed_from_first_like\":%.2f}\n", rec, keys, enc, base, likes, counts, per_like, per_like_counts, per_count_key, ptkeys, per_like_pt, per_like_bk
}'
