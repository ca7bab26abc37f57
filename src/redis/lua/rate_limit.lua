-- GCRA rate limiter (see src/redis/rate_limiter.hpp). The key holds the theoretical arrival
-- time (TAT) of the next event in ms since the epoch; an event is allowed while it would put
-- the TAT no more than one period ahead of now, which permits bursts of up to `count`.
-- Touches KEYS[1] only, so it is cluster-safe.
--
-- KEYS[1]  the limiter's key
-- ARGV[1]  emission interval T = period / count, in ms (may be fractional)
-- ARGV[2]  period (the burst tolerance), in whole ms
-- ARGV[3]  '1': record the event when allowed; '0': only tell whether it would be allowed
-- Returns {allowed (1 or 0), retry_after_ms (0 when allowed)}.
local interval = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local consume = ARGV[3] == '1'

-- Redis' clock rather than the caller's, so several plauditd instances agree on `now`. TIME is
-- allowed before a write because Redis 7 replicates a script's effects, not the script.
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000

local stored = redis.call('GET', KEYS[1])
local tat = stored and tonumber(stored) or now
if tat ~= tat then  -- NaN: a garbled value starts afresh
  tat = now
end
tat = math.max(tat, now)
-- A TAT beyond now + period can only come from a longer period configured earlier (or from
-- garbage such as 'inf'): treat it as "budget used up" under the current limit rather than
-- making clients wait out the old one. Stored below, or every later call would clamp again.
local clamped = tat > now + period
if clamped then
  tat = now + period
end
local new_tat = tat + interval
local ahead = new_tat - now

-- Near 1.7e12 a double steps by 2^-12 ms, so summing fractional intervals drifts by ~1e-4 ms
-- per event; without slack the count-th event of a burst could be denied by rounding alone.
-- The slack stays below T, so it never lets a (count+1)-th event through.
local slack = math.min(interval / 2, 1)
if ahead > period + slack then
  if clamped then
    redis.call('SET', KEYS[1], string.format('%.17g', tat), 'PX', period)
  end
  -- The earliest moment at which the same call would be allowed (>= 1 ms).
  return {0, math.max(1, math.ceil(ahead - period - slack))}
end
if consume then
  -- The key is worthless once now passes the TAT: let it expire then (never later than one
  -- period), so idle limiters vanish by themselves. %.17g keeps the fraction exactly.
  local ttl = math.max(1, math.min(math.ceil(ahead), period))
  redis.call('SET', KEYS[1], string.format('%.17g', new_tat), 'PX', ttl)
end
return {1, 0}
