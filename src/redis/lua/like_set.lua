-- Sets one user's like on one target and keeps its count exact: the one atomic step of a
-- like or unlike (invariant 1). All keys share the target's shard hash tag.
-- KEYS[1] pl:lk:{s}:<t>:<bucket>  SET of user ids liking t in this bucket; member 0 marks
--                                 the bucket as loaded from SQL
-- KEYS[2] pl:lc:{s}:<t>           the like count
-- KEYS[3] pl:lp:{s}:<t>:<bucket>  pending changes for the flusher: uid → "state:seq"
-- KEYS[4] pl:ld:{s}               dirty index: member "<t>:<bucket>", score = first change ms
-- KEYS[5] pl:lseq:{s}             last change seq of the shard
-- KEYS[6] (optional) a ZSET to move t in by the count (a comment's hot order)
-- ARGV[1] user id, ARGV[2] '1' like / '0' unlike, ARGV[3] the dirty member,
-- ARGV[4] (with KEYS[6]) the ZSET member
-- Returns {state, count}, or {-1, 0} when the bucket is not loaded, {-2, 0} when the count
-- is not loaded: the caller loads them from SQL and calls again (a miss never counts).
if redis.call('SISMEMBER', KEYS[1], 0) == 0 then
  return {-1, 0}
end
local count = redis.call('GET', KEYS[2])
if not count then
  return {-2, 0}
end
count = tonumber(count)
local want = tonumber(ARGV[2])
local has = redis.call('SISMEMBER', KEYS[1], ARGV[1])
if want ~= has then
  if want == 1 then
    redis.call('SADD', KEYS[1], ARGV[1])
    count = redis.call('INCR', KEYS[2])
  else
    redis.call('SREM', KEYS[1], ARGV[1])
    count = redis.call('DECR', KEYS[2])
  end
  -- A shard-wide, strictly increasing seq: microseconds, never below the last one, so it
  -- keeps increasing across a Redis restart too.
  local t = redis.call('TIME')
  local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local last = tonumber(redis.call('GET', KEYS[5]) or '0')
  local seq = string.format('%.0f', math.max(now_us, last + 1))
  redis.call('SET', KEYS[5], seq)
  redis.call('HSET', KEYS[3], ARGV[1], want .. ':' .. seq)
  redis.call('ZADD', KEYS[4], 'NX', math.floor(now_us / 1000), ARGV[3])
  if KEYS[6] then
    -- XX: only moves a listed comment; an unlisted one or a cache being rebuilt (which
    -- reads this count) is left alone.
    redis.call('ZADD', KEYS[6], 'XX', count, ARGV[4])
  end
end
return {want, count}
