-- Gives a list version (pl:lv:{pub}, pl:lv:{lN}, pl:lvw:{lN}) a random base when it is
-- unborn: missing, or below 2^40 (an INCR after a FLUSHALL restarted it low, where a value a
-- page was cached under could come round again). Its changes only INCR it, so a base drawn
-- from [2^40, 2^62) is never one seen before (but with a chance of 2^-62 a page).
-- KEYS[1] the version; ARGV[1] the base. Returns the version as it is now.
local v = redis.call('GET', KEYS[1])
if v and tonumber(v) >= 1099511627776 then
  return v
end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]
