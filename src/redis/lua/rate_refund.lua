-- Gives back one event that rate_limit.lua recorded (see src/redis/rate_limiter.hpp, Refund):
-- an attempt reserved before its outcome was known, which turned out not to count (a login
-- whose password was right). Touches KEYS[1] only, so it is cluster-safe.
--
-- KEYS[1]  the limiter's key
-- ARGV[1]  emission interval T = period / count, in ms (may be fractional)
-- ARGV[2]  period, in whole ms
-- Returns 1 when an event was given back, 0 when there was none to give (key gone or garbled).
local interval = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000

local stored = redis.call('GET', KEYS[1])
local tat = stored and tonumber(stored)
if not tat or tat ~= tat then
  return 0
end
local new_tat = tat - interval
if new_tat <= now then
  -- A full budget again: nothing worth keeping.
  redis.call('DEL', KEYS[1])
  return 1
end
local ttl = math.max(1, math.min(math.ceil(new_tat - now), period))
redis.call('SET', KEYS[1], string.format('%.17g', new_tat), 'PX', ttl)
return 1
