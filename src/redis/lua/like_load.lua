-- Loads a target's like records and/or count from SQL's state, unless someone already did,
-- then replays changes not yet in SQL (pending and in flight, the newest per user) on top.
-- KEYS[1] small-mode set, KEYS[2] big-mode mark, KEYS[3] the user's big-mode bucket,
-- KEYS[4] count, KEYS[5] small pending, KEYS[6] small in-flight, KEYS[7] bucket pending,
-- KEYS[8] bucket in-flight, KEYS[9] the shard's epoch, KEYS[10] the shard's birth mark: without
-- it no check has compared this dataset with SQL since it was emptied (FLUSHALL), and nothing
-- is loaded ('unchecked': the caller checks, then loads again). Loaded only then, a snapshot
-- taken before that check holds no like state (like_set.lua misses without a loaded count), so
-- it is rightly taken for an emptied Redis (fault test, seed 307: a snapshot 0.2 s after a
-- FLUSHALL held loaded sets and pending likes, no marks, and passed for emptied).
-- ARGV[1] 'small' (ARGV[6..] are ALL of SQL's likers: at most 256), 'big' (ARGV[6..] are
-- SQL's likers in the user's bucket), or '' (count only); ARGV[2] the count or '': SQL's
-- count with every unflushed change of the target applied (the caller computed it from
-- like_unflushed.lua's list and SQL's rows of those users); ARGV[3], ARGV[4] the bucket's
-- user id range [lo, hi]; ARGV[5] the epoch like_unflushed.lua answered before SQL was read.
-- Returns 1, or 'retry' (changing nothing) when the epoch moved: since SQL was read, a flush
-- may have committed changes and deleted their last copy here (like_done.lua), or a count was
-- dropped; what SQL answered then no longer adds up with what is left to replay (issue 23,
-- defects 2 and 5). While the count is missing no like of the target can change anything
-- (like_set.lua answers 'miss'), so the caller's list of unflushed changes still holds when
-- the epoch has not moved.
-- If the target was split meanwhile, a 'small' list still fills the bucket (it holds every
-- liker); if it was loaded small meanwhile, a 'big' list is not needed.
if redis.call('EXISTS', KEYS[10]) == 0 then
  return 'unchecked'
end
if redis.call('GET', KEYS[9]) ~= ARGV[5] then
  return 'retry'
end
local lo, hi = tonumber(ARGV[3]), tonumber(ARGV[4])
-- Changes are replayed oldest hash first, so a later hash's change of a user wins: small-mode
-- in flight, small-mode pending, then the bucket's (the split ended small mode, so every
-- bucket change is newer). Values are the state ('1'/'0', or '1:<seq>' from before the seq
-- moved to the claim); field '#' is the claim's seq stamp.
local function replay(set, only_bucket)
  local newest = {}
  for _, key in ipairs({KEYS[6], KEYS[5], KEYS[8], KEYS[7]}) do
    local kv = redis.call('HGETALL', key)
    for i = 1, #kv, 2 do
      if kv[i] ~= '#' then
        local uid = tonumber(kv[i])
        if not only_bucket or (uid >= lo and uid <= hi) then
          newest[kv[i]] = string.sub(kv[i + 1], 1, 1)
        end
      end
    end
  end
  for uid, state in pairs(newest) do
    if state == '1' then
      redis.call('SADD', set, uid)
    else
      redis.call('SREM', set, uid)
    end
  end
end
local function fill_bucket()
  redis.call('SADD', KEYS[3], '0')
  for i = 6, #ARGV do
    local uid = tonumber(ARGV[i])
    if uid >= lo and uid <= hi then
      redis.call('SADD', KEYS[3], ARGV[i])
    end
  end
  replay(KEYS[3], true)
end
if ARGV[1] ~= '' and redis.call('EXISTS', KEYS[1]) == 0 then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    if redis.call('SISMEMBER', KEYS[3], 0) == 0 then
      fill_bucket()
    end
  elseif ARGV[1] == 'small' then
    redis.call('SADD', KEYS[1], '0')
    for i = 6, #ARGV do
      redis.call('SADD', KEYS[1], ARGV[i])
    end
    replay(KEYS[1], false)
  else
    redis.call('SET', KEYS[2], 1)
    fill_bucket()
  end
end
if ARGV[2] ~= '' then
  redis.call('SET', KEYS[4], ARGV[2], 'NX')
end
return 1
