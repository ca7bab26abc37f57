-- Stamps an article or comment write before its SQL transaction (redis/cache_marks.hpp):
-- takes the shard's next seq, as a like claim does (max(INCRBY 2, the clock in µs), even), and
-- leaves a mark naming the write that its Redis step removes once it landed.
-- KEYS[1] the shard seq pl:lseq:{lN}, KEYS[2] the marks pl:cpend:{lN}, KEYS[3] the shard's
-- birth mark pl:lbm:{lN}, KEYS[4] its recovery mark pl:lrm:{lN}; ARGV[1] the target
-- ('a<article id>' or 'c<article id>', a thread).
-- Returns the seq, or 'unchecked' (nothing changed) while no check has seen this dataset
-- since it was emptied or the shard is being recovered: a seq taken then would raise the
-- shard above SQL's and hide that this Redis is older (the caller checks, then asks again).
-- The mark is '<target>:<seq>' scored by the seq: one per write, so two writes of one target
-- never remove each other's.
if redis.call('EXISTS', KEYS[3]) == 0 or redis.call('EXISTS', KEYS[4]) == 1 or
    tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(ARGV[2]) then
  return 'unchecked'
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
now = now + now % 2
local seq = redis.call('INCRBY', KEYS[1], 2)
if seq < now or seq % 2 == 1 then
  seq = math.max(seq + seq % 2, now)
  redis.call('SET', KEYS[1], string.format('%d', seq))
end
local s = string.format('%d', seq)
redis.call('ZADD', KEYS[2], s, ARGV[1] .. ':' .. s)
return seq
