-- Checks one like shard against SQL and, when Redis came back older than SQL, starts its
-- recovery, atomically. KEYS[1] the shard seq pl:lseq:{s}, KEYS[2] the dirty index, KEYS[3]
-- the in-flight set, KEYS[4] the epoch pl:lep:{s}, KEYS[5] the recovery mark pl:lrm:{s},
-- ARGV[1] the highest seq SQL committed for the shard.
-- Returns 1 while the shard must be recovered (the mark is set; LikeService then flushes
-- what is in flight, drops the shard's like sets, counts and caches, and clears the mark),
-- 0 when it is consistent.
--
-- Redis hands out a seq before SQL commits it, and the shard seq only grows, so a shard seq
-- below SQL's means Redis lost writes SQL holds: its sets and counts of the shard are older
-- than SQL, and its pending hashes hold changes made before the loss, some of which SQL has
-- since replaced. Those are moved in flight here with the odd stamp just above the shard
-- seq the restored Redis had: newer than every change claimed before the loss (their seqs
-- are at most that), older than every one claimed after it (even seqs above it), so SQL keeps
-- each such change only where nothing newer reached SQL. A pending hash merged into an
-- in-flight one of the same bucket keeps its stamp in each value ('state:seq'). Changes
-- acknowledged after this go to fresh pending hashes and are claimed above SQL's seq.
-- KEYS[6] the shard's birth mark pl:lbm:{s}, set here on every check: it tells an emptied
-- Redis from an older one when the shard has no seq. With no seq and no mark the data
-- was emptied (FLUSHALL) since the last check: nothing in it is older than SQL, and seqs
-- resume above SQL's. With the mark but no seq, the data is from before the shard's first
-- claim (a snapshot taken then), older than every seq SQL holds for the shard: it is
-- recovered like any older shard, its pending changes stamped 1.
local tag = string.sub(KEYS[2], 7)  -- "{s}"
local sql = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local function resume_seq()
  local seq = math.max(sql, now)
  redis.call('SET', KEYS[1], string.format('%d', seq + seq % 2))
end
local have = redis.call('GET', KEYS[1])
-- The mark's value is the time it was first set: a dataset emptied and marked again has
-- another, so a fill that read the mark before reading SQL knows (article_put.lua).
local born = redis.call('SET', KEYS[6], string.format('%d', now), 'NX') == false  -- false: it existed
if not have and (sql == 0 or not born) then
  if sql > 0 then
    resume_seq()
  end
  return redis.call('EXISTS', KEYS[5])
end
local seq = have and tonumber(have) or 0
if seq >= sql then
  return redis.call('EXISTS', KEYS[5])
end
local stamp = string.format('%d', seq + 1 + seq % 2)
for _, m in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  local pending, inflight = 'pl:lp:' .. tag .. ':' .. m, 'pl:lf:' .. tag .. ':' .. m
  if redis.call('EXISTS', pending) == 1 then
    if redis.call('EXISTS', inflight) == 1 then
      local kv = redis.call('HGETALL', pending)
      for i = 1, #kv, 2 do
        redis.call('HSET', inflight, kv[i], string.sub(kv[i + 1], 1, 1) .. ':' .. stamp)
      end
      redis.call('DEL', pending)
    else
      redis.call('RENAME', pending, inflight)
      redis.call('HSET', inflight, '#', stamp)
    end
    redis.call('SADD', KEYS[3], m)
  end
  redis.call('ZREM', KEYS[2], m)
end
resume_seq()
redis.call('SET', KEYS[5], '1')
-- The shard's counts are older than SQL's and will be dropped: no list page rendered from
-- them is served again (render/article_lists.cpp; their recovery's end moves it again).
redis.call('INCR', 'pl:lv:' .. tag)
if redis.call('EXISTS', KEYS[4]) == 1 then  -- loads that read SQL before this read again
  redis.call('INCR', KEYS[4])
else
  redis.call('SET', KEYS[4], string.format('%d', now))
end
return 1
