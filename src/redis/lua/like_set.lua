-- Sets one user's like on one target and keeps its count exact: the one atomic step of a
-- like or unlike (invariant 1). All keys share the target's shard hash tag.
--
-- Records: while a target has at most 256 likers they live in ONE set (small mode, about
-- 5 bytes a like); past that the set is split once into sets by user id >> 8 (big mode,
-- at most 256 likers each), so no key grows with popularity and every set stays an intset.
-- KEYS[1] pl:lk:{s}:<t>:s  small-mode SET of liker ids, member 0 = loaded from SQL. Every
--         other key of the target is built here from its tail "{s}:<t>", so it carries the
--         same hash tag (one slot, as on Redis Cluster; ClusterModeTest):
--         pl:lk:{s}:<t>:<bucket> big-mode SET of the user's bucket, member 0 = loaded
--         pl:lc:{s}:<t>          the like count
--         pl:lp:{s}:<t>:s        pending changes (small mode): uid -> state ('1' or '0')
--         pl:lp:{s}:<t>:<bucket> pending changes (big mode)
--         pl:ld:{s}              dirty index: member "<t>:s" or "<t>:<bucket>", score = ms
-- KEYS[2] (optional) with ARGV[6] = 'hot': a ZSET to move t in by the count (a comment's hot
--         order), ARGV[7] the member; with ARGV[6] = 'pub': the article's cache hash, which
--         must say status 'published' (everyone may like a published article; anything
--         else, or an article not cached, is for the caller to check)
-- ARGV[1] user id, ARGV[2] '1' like / '0' unlike, ARGV[3] the caller's clock in ms (the
-- dirty index's score: when the bucket first changed), ARGV[4] the user's bucket (user id
-- >> 8), ARGV[5] 'big' when the caller saw this target in big mode last time, else 's':
-- only the order of the two reads below (a wrong guess costs one call, never a wrong answer).
-- Returns the integer state + 2*big + 4*count (big 1 in big mode), or the string 'miss' when
-- the user's records or the count are not loaded (the caller loads them from SQL and calls
-- again: a miss never counts), 'unpublished' when ARGV[6] = 'pub' and the article is not
-- cached as published. Every miss changes nothing.
--
-- Costs, from callgrind of redis-server 7.0 under likes: each redis.call is ~2,300
-- instructions besides its command (argument objects, command lookup, the reply turned back
-- into Lua); each script argument ~1,000 (parsed from the request, made an object, then a
-- Lua string in KEYS or ARGV, a table grown one element at a time), more than building a
-- key here from KEYS[1]'s tail (one concatenation), and a key is built only on the path that
-- uses it: 8 arguments for an article like where 13 passed every key cost ~0.6 us more per
-- call (redis-benchmark -P 16 of both shapes doing the same three reads, 2026-12-01); a
-- table returned ~5,500 (the reply conversion probes it for 'err', 'ok' and five more
-- fields), an integer almost nothing. Hence few calls (a like that changes nothing is 3:
-- HGET, SMISMEMBER, GET; one that does 7, or 6 when it replaces an unflushed change), no
-- argument that can be derived here, and one integer back.
local base = string.sub(KEYS[1], 7, -3)  -- "{s}:<t>"
if ARGV[6] == 'pub' and redis.call('HGET', KEYS[2], 'status') ~= 'published' then
  return 'unpublished'
end
-- {member 0: the loaded mark, the user}; a small set always holds 0 while it exists, a
-- bucket once it is loaded. The mark is the string '0': a Lua number would be formatted by
-- Redis (%.17g) on every call. The two modes exclude each other: the small set exists only
-- while the big-mode mark pl:lb:{s}:<t> does not, and buckets are only ever created together
-- with the mark (the split below, like_load.lua; Redis must not evict single keys), so
-- either read order finds the same one. Big mode needs no EXISTS of the mark: a bucket
-- holding 0 implies it.
-- The bucket's key is built only when it is read (in small mode, when the guess was wrong).
local set = KEYS[1]
if ARGV[5] == 'big' then
  set = 'pl:lk:' .. base .. ':' .. ARGV[4]
end
local flags = redis.call('SMISMEMBER', set, '0', ARGV[1])
if flags[1] ~= 1 then
  if set == KEYS[1] then
    set = 'pl:lk:' .. base .. ':' .. ARGV[4]
  else
    set = KEYS[1]
  end
  flags = redis.call('SMISMEMBER', set, '0', ARGV[1])
  if flags[1] ~= 1 then
    return 'miss'  -- neither loaded
  end
end
local small = set == KEYS[1]
local big = small and 0 or 1
local count_key = 'pl:lc:' .. base
local count = redis.call('GET', count_key)
if not count then
  return 'miss'
end
local want = tonumber(ARGV[2])
if want == flags[2] then
  return want + 2 * big + 4 * tonumber(count)
end
if want == 1 then
  redis.call('SADD', set, ARGV[1])
  count = redis.call('INCR', count_key)
else
  redis.call('SREM', set, ARGV[1])
  count = redis.call('DECR', count_key)
end
local tail = small and ':s' or ':' .. ARGV[4]  -- the bucket's name: "s" or the number
local pending = 'pl:lp:' .. base .. tail
-- The pending change is the state alone: its order among the target's changes is the
-- order of the hashes (like_claim.lua gives each claimed hash a seq; like_load.lua replays
-- them oldest first). A seq per change cost an INCR and a string.format on every change:
-- ~8% of Redis's instructions a like (callgrind, like_put_spread, 2026-12-01).
-- HSET answers 0 when it replaced this user's earlier unflushed change: the pending hash
-- existed, so its member is in the dirty index already (like_claim.lua renames a pending hash
-- away and drops its member in one step; nothing else creates or removes either), and the
-- ZADD is skipped. Under a hot target's like/unlike churn most changes are such repeats.
if redis.call('HSET', pending, ARGV[1], ARGV[2]) == 1 then
  -- The dirty index pl:ld:{s}, member "<t>:s" or "<t>:<bucket>".
  local close = string.find(base, '}', 1, true)
  redis.call('ZADD', 'pl:ld:' .. string.sub(base, 1, close), 'NX', ARGV[3],
             string.sub(base, close + 2) .. tail)
end
if ARGV[6] == 'hot' then
  -- XX: only moves a listed comment; an unlisted one or a cache being rebuilt (which
  -- reads this count) is left alone.
  redis.call('ZADD', KEYS[2], 'XX', count, ARGV[7])
end
if small and want == 1 and redis.call('SCARD', set) > 257 then
  -- Split once into big-mode buckets: bounded work (257 members). The bucket keys and the
  -- mark are built here from KEYS[1] ("pl:lk:{s}:<t>:s"); they share its hash tag, so this
  -- stays in one slot. Pending small-mode changes stay where they are: like_claim.lua
  -- claims them before (never after) the bucket hashes, which hold every newer change.
  local prefix = string.sub(KEYS[1], 1, -2)
  for _, uid in ipairs(redis.call('SMEMBERS', set)) do
    if uid ~= '0' then
      redis.call('SADD', prefix .. math.floor(tonumber(uid) / 256), '0', uid)
    end
  end
  redis.call('DEL', set)
  redis.call('SET', 'pl:lb:' .. base, 1)
  big = 1
end
return want + 2 * big + 4 * count
