-- Sets one user's like on one target and keeps its count exact: the one atomic step of a
-- like or unlike (invariant 1). All keys share the target's shard hash tag.
--
-- Records: while a target has at most 256 likers they live in ONE set (small mode, about
-- 5 bytes a like); past that the set is split once into sets by user id >> 8 (big mode,
-- at most 256 likers each), so no key grows with popularity and every set stays an intset.
-- KEYS[1] pl:lk:{s}:<t>:s        small-mode SET of liker ids, member 0 = loaded from SQL
-- KEYS[2] pl:lb:{s}:<t>          big-mode mark (exists once the target was split; set here,
--                                 not read: a bucket holding 0 implies it)
-- KEYS[3] pl:lk:{s}:<t>:<bucket> big-mode SET of the user's bucket, member 0 = loaded
-- KEYS[4] pl:lc:{s}:<t>          the like count
-- KEYS[5] pl:lp:{s}:<t>:s        pending changes (small mode): uid → "state:seq"
-- KEYS[6] pl:lp:{s}:<t>:<bucket> pending changes (big mode)
-- KEYS[7] pl:ld:{s}              dirty index: member "<t>:s" or "<t>:<bucket>", score = ms
-- KEYS[8] pl:lseq:{s}            last change seq of the shard
-- KEYS[9] (optional) with ARGV[6] = 'hot': a ZSET to move t in by the count (a comment's hot
--         order), ARGV[7] the member; with ARGV[6] = 'pub': the article's cache hash, which
--         must say status 'published' (everyone may like a published article; anything
--         else, or an article not cached, is for the caller to check: it answers -3)
-- ARGV[1] user id, ARGV[2] '1' like / '0' unlike, ARGV[3] "<t>:s", ARGV[4] "<t>:<bucket>",
-- ARGV[5] the caller's clock in ms (the dirty index's score: when the bucket first changed)
-- Returns {state, count}, or {-1, 0} when the user's records are not loaded, {-2, 0} when
-- the count is not loaded: the caller loads them from SQL and calls again (a miss never
-- counts); {-3, 0} when ARGV[6] = 'pub' and the article is not cached as published.
-- Every miss changes nothing.
--
-- Each redis.call costs a command lookup and argument objects, so the common path is kept
-- to few calls: a like that changes nothing is 3 (HGET, SMISMEMBER, GET), one that does 9;
-- in big mode (past 256 likers) one more SMISMEMBER each.
if ARGV[6] == 'pub' and redis.call('HGET', KEYS[9], 'status') ~= 'published' then
  return {-3, 0}
end
local set, pending, member
-- {member 0: the loaded mark, the user}; a small set always holds 0 while it exists. The
-- mark is the string '0': a Lua number would be formatted by Redis (%.17g) on every call.
local flags = redis.call('SMISMEMBER', KEYS[1], '0', ARGV[1])
local small = flags[1] == 1
if small then
  set, pending, member = KEYS[1], KEYS[5], ARGV[3]
else
  -- Big mode needs no EXISTS of the mark KEYS[2]: a bucket is only ever created together
  -- with the mark (the split below, like_load.lua), so a bucket holding 0 implies it. Not
  -- loaded, or small mode not loaded, is a miss either way.
  flags = redis.call('SMISMEMBER', KEYS[3], '0', ARGV[1])
  if flags[1] ~= 1 then
    return {-1, 0}
  end
  set, pending, member = KEYS[3], KEYS[6], ARGV[4]
end
local count = redis.call('GET', KEYS[4])
if not count then
  return {-2, 0}
end
local want = tonumber(ARGV[2])
if want == flags[2] then
  return {want, tonumber(count)}
end
if want == 1 then
  redis.call('SADD', set, ARGV[1])
  count = redis.call('INCR', KEYS[4])
else
  redis.call('SREM', set, ARGV[1])
  count = redis.call('DECR', KEYS[4])
end
-- A shard-wide, strictly increasing seq, kept at or below the clock in µs: INCR adds 1 per
-- change, and a shard cannot take a change per µs (Redis runs one script at a time, each
-- several µs), so it never passes the time. When the key is gone (FLUSHALL, a Redis that
-- lost its data) INCR answers 1 and the seq resumes from the clock, above every seq SQL
-- holds, which were all at or below the clock when written.
local seq = redis.call('INCR', KEYS[8])
if seq < 1000000000000000 then
  local t = redis.call('TIME')
  seq = math.max(seq, tonumber(t[1]) * 1000000 + tonumber(t[2]))
  redis.call('SET', KEYS[8], string.format('%d', seq))
end
redis.call('HSET', pending, ARGV[1], string.format('%d:%d', want, seq))
redis.call('ZADD', KEYS[7], 'NX', ARGV[5], member)
if ARGV[6] == 'hot' then
  -- XX: only moves a listed comment; an unlisted one or a cache being rebuilt (which
  -- reads this count) is left alone.
  redis.call('ZADD', KEYS[9], 'XX', count, ARGV[7])
end
if small and want == 1 and redis.call('SCARD', set) > 257 then
  -- Split once into big-mode buckets: bounded work (257 members). The bucket keys are
  -- built here from KEYS[1]'s prefix; they share its hash tag, so this stays in one slot.
  -- Pending small-mode changes stay where they are: the flusher writes them as usual.
  local prefix = string.sub(KEYS[1], 1, -2)
  for _, uid in ipairs(redis.call('SMEMBERS', set)) do
    if uid ~= '0' then
      redis.call('SADD', prefix .. math.floor(tonumber(uid) / 256), '0', uid)
    end
  end
  redis.call('DEL', set)
  redis.call('SET', KEYS[2], 1)
end
return {want, count}
