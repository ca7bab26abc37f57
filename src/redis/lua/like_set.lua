-- Sets one user's like on one target and keeps its count exact: the one atomic step of a
-- like or unlike (invariant 1). All keys share the target's shard hash tag.
--
-- Records: while a target has at most 256 likers they live in ONE set (small mode, about
-- 5 bytes a like); past that the set is split once into sets by user id >> 8 (big mode,
-- at most 256 likers each), so no key grows with popularity and every set stays an intset.
-- KEYS[1] pl:lk:{s}:<t>:s        small-mode SET of liker ids, member 0 = loaded from SQL
-- KEYS[2] pl:lk:{s}:<t>:<bucket> big-mode SET of the user's bucket, member 0 = loaded
-- KEYS[3] pl:lc:{s}:<t>          the like count
-- KEYS[4] pl:lp:{s}:<t>:s        pending changes (small mode): uid → "state:seq"
-- KEYS[5] pl:lp:{s}:<t>:<bucket> pending changes (big mode)
-- KEYS[6] pl:ld:{s}              dirty index: member "<t>:s" or "<t>:<bucket>", score = ms
-- KEYS[7] pl:lseq:{s}            last change seq of the shard
-- KEYS[8] (optional) with ARGV[5] = 'hot': a ZSET to move t in by the count (a comment's hot
--         order), ARGV[6] the member; with ARGV[5] = 'pub': the article's cache hash, which
--         must say status 'published' (everyone may like a published article; anything
--         else, or an article not cached, is for the caller to check)
-- ARGV[1] user id, ARGV[2] '1' like / '0' unlike, ARGV[3] the caller's clock in ms (the
-- dirty index's score: when the bucket first changed), ARGV[4] 'big' when the caller saw
-- this target in big mode last time, else 's': only the order of the two reads below (a
-- wrong guess costs one call, never a wrong answer).
-- Returns the integer state + 2·big + 4·count (big 1 in big mode), or the string 'miss' when
-- the user's records or the count are not loaded (the caller loads them from SQL and calls
-- again: a miss never counts), 'unpublished' when ARGV[5] = 'pub' and the article is not
-- cached as published. Every miss changes nothing.
--
-- Costs, from callgrind of redis-server 7.0 under likes: each redis.call is ~2,300
-- instructions besides its command (argument objects, command lookup, the reply turned back
-- into Lua); each script argument ~1,000 (KEYS and ARGV are Lua tables grown one element at
-- a time); a table returned ~5,500 (the reply conversion probes it for 'err', 'ok' and five
-- more fields), an integer almost nothing. Hence few calls (a like that changes nothing is 3:
-- HGET, SMISMEMBER, GET; one that does 8, or 7 when it replaces an unflushed change), no
-- argument that can be derived here (the dirty index members, the big-mode mark), and one
-- integer back.
if ARGV[5] == 'pub' and redis.call('HGET', KEYS[8], 'status') ~= 'published' then
  return 'unpublished'
end
-- {member 0: the loaded mark, the user}; a small set always holds 0 while it exists, a
-- bucket once it is loaded. The mark is the string '0': a Lua number would be formatted by
-- Redis (%.17g) on every call. The two modes exclude each other: the small set exists only
-- while the big-mode mark pl:lb:{s}:<t> does not, and buckets are only ever created together
-- with the mark (the split below, like_load.lua; Redis must not evict single keys), so
-- either read order finds the same one. Big mode needs no EXISTS of the mark: a bucket
-- holding 0 implies it.
local first, second = KEYS[1], KEYS[2]
if ARGV[4] == 'big' then
  first, second = KEYS[2], KEYS[1]
end
local flags = redis.call('SMISMEMBER', first, '0', ARGV[1])
local set = first
if flags[1] ~= 1 then
  flags = redis.call('SMISMEMBER', second, '0', ARGV[1])
  if flags[1] ~= 1 then
    return 'miss'  -- neither loaded
  end
  set = second
end
local small = set == KEYS[1]
local big = small and 0 or 1
local count = redis.call('GET', KEYS[3])
if not count then
  return 'miss'
end
local want = tonumber(ARGV[2])
if want == flags[2] then
  return want + 2 * big + 4 * tonumber(count)
end
if want == 1 then
  redis.call('SADD', set, ARGV[1])
  count = redis.call('INCR', KEYS[3])
else
  redis.call('SREM', set, ARGV[1])
  count = redis.call('DECR', KEYS[3])
end
-- A shard-wide, strictly increasing seq, kept at or below the clock in µs: INCR adds 1 per
-- change, and a shard cannot take a change per µs (Redis runs one script at a time, each
-- several µs), so it never passes the time. When the key is gone (FLUSHALL, a Redis that
-- lost its data) INCR answers 1 and the seq resumes from the clock, above every seq SQL
-- holds, which were all at or below the clock when written.
local seq = redis.call('INCR', KEYS[7])
if seq < 1000000000000000 then
  local t = redis.call('TIME')
  seq = math.max(seq, tonumber(t[1]) * 1000000 + tonumber(t[2]))
  redis.call('SET', KEYS[7], string.format('%d', seq))
end
local pending = small and KEYS[4] or KEYS[5]
-- HSET answers 0 when it replaced this user's earlier unflushed change: the pending hash
-- existed, so its member is in the dirty index already (like_claim.lua renames a pending hash
-- away and drops its member in one step; nothing else creates or removes either), and the
-- ZADD is skipped. Under a hot target's like/unlike churn most changes are such repeats.
if redis.call('HSET', pending, ARGV[1], string.format('%d:%d', want, seq)) == 1 then
  -- The dirty index member is the set key's tail: "pl:lk:{s}:" + "<t>:s" or "<t>:<bucket>".
  local member = string.sub(set, string.find(set, '}:', 1, true) + 2)
  redis.call('ZADD', KEYS[6], 'NX', ARGV[3], member)
end
if ARGV[5] == 'hot' then
  -- XX: only moves a listed comment; an unlisted one or a cache being rebuilt (which
  -- reads this count) is left alone.
  redis.call('ZADD', KEYS[8], 'XX', count, ARGV[6])
end
if small and want == 1 and redis.call('SCARD', set) > 257 then
  -- Split once into big-mode buckets: bounded work (257 members). The bucket keys and the
  -- mark are built here from KEYS[1] ("pl:lk:{s}:<t>:s"); they share its hash tag, so this
  -- stays in one slot. Pending small-mode changes stay where they are: the flusher writes
  -- them as usual.
  local prefix = string.sub(KEYS[1], 1, -2)
  for _, uid in ipairs(redis.call('SMEMBERS', set)) do
    if uid ~= '0' then
      redis.call('SADD', prefix .. math.floor(tonumber(uid) / 256), '0', uid)
    end
  end
  redis.call('DEL', set)
  redis.call('SET', 'pl:lb:' .. string.sub(KEYS[1], 7, -3), 1)
  big = 1
end
return want + 2 * big + 4 * count
