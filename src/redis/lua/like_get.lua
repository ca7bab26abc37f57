-- One user's like state and the count of one target (see like_set.lua for the layout).
-- KEYS[1] small-mode set, KEYS[2] big-mode mark, KEYS[3] the user's big-mode bucket,
-- KEYS[4] count; ARGV[1] user id ('0' for anonymous).
-- Returns {state or -1 when the user's records are not loaded, count or -2 when not loaded}.
local state = -1
if ARGV[1] == '0' then
  state = 0
elseif redis.call('EXISTS', KEYS[1]) == 1 then
  state = redis.call('SISMEMBER', KEYS[1], ARGV[1])
elseif redis.call('EXISTS', KEYS[2]) == 1 and redis.call('SISMEMBER', KEYS[3], 0) == 1 then
  state = redis.call('SISMEMBER', KEYS[3], ARGV[1])
end
local count = redis.call('GET', KEYS[4])
if not count then
  return {state, -2}
end
return {state, tonumber(count)}
