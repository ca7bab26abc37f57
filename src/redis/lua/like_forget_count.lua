-- Drops a target's cached count so it reloads from SQL (after reconcile repaired SQL's), and
-- bumps the shard's epoch: a load that read SQL before this must read again (like_load.lua).
-- KEYS[1] the count pl:lc:{s}:<t>, KEYS[2] the epoch pl:lep:{s}.
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
