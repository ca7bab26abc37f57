-- Deletes a key of a like shard that loads from SQL depend on, and moves the shard's epoch,
-- so that a load that read SQL before this reads again (like_load.lua): a target's count
-- after reconcile repaired SQL's, or a shard's recovery mark once its stale sets, counts and
-- caches are gone (like_recover.lua).
-- KEYS[1] the key (pl:lc:{s}:<t> or pl:lrm:{s}), KEYS[2] the epoch pl:lep:{s}.
-- A missing epoch (FLUSHALL) restarts from the clock in µs, never from a value seen before.
local function bump_epoch(key)
  if redis.call('EXISTS', key) == 0 then
    local t = redis.call('TIME')
    redis.call('SET', key, string.format('%d', tonumber(t[1]) * 1000000 + tonumber(t[2])))
  else
    redis.call('INCR', key)
  end
end
redis.call('DEL', KEYS[1])
bump_epoch(KEYS[2])
return 1
