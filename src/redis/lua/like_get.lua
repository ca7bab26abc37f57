-- One user's like state and the count of one target.
-- KEYS[1] bucket set, KEYS[2] count; ARGV[1] user id ('0' for anonymous).
-- Returns {state or -1 when the bucket is not loaded, count or -2 when not loaded}.
local state = -1
if ARGV[1] == '0' then
  state = 0
elseif redis.call('SISMEMBER', KEYS[1], 0) == 1 then
  state = redis.call('SISMEMBER', KEYS[1], ARGV[1])
end
local count = redis.call('GET', KEYS[2])
if not count then
  return {state, -2}
end
return {state, tonumber(count)}
