-- Not a script: the clock helpers that scripts splice in with a `--! include lib_clock.lua`
-- line (redis/script.cpp), so each rule is written once.
--
-- Redis' clock in µs: every plauditd instance, and a Redis restored from an older snapshot,
-- agree on it.
local function now_us()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
-- The next seq of `key`, as a string: max(INCR, the clock in µs). Strictly increasing, and
-- never handed out twice even when the key is gone (FLUSHALL) or older (a Redis restored from
-- an older snapshot), since the clock has passed every earlier seq. So a pass that still
-- holds a seq from before never matches, and confirms, a new claim.
local function next_seq(key)
  local seq = redis.call('INCR', key)
  local now = now_us()
  if now > seq then
    seq = now
    redis.call('SET', key, string.format('%d', seq))
  end
  return string.format('%d', seq)
end
-- Moves a like shard's epoch (like_load.lua reads again when it moved). A missing epoch
-- (FLUSHALL) restarts from the clock in µs, never from a value seen before.
local function bump_epoch(key)
  if redis.call('EXISTS', key) == 0 then
    redis.call('SET', key, string.format('%d', now_us()))
  else
    redis.call('INCR', key)
  end
end
