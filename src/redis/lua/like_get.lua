-- One user's like states and the counts of several targets of one shard (see like_set.lua
-- for the layout): a comment page's likes are one call.
-- KEYS per target (4 each): small-mode set, big-mode mark, the user's big-mode bucket, count.
-- ARGV[1] user id ('0' for anonymous).
-- Returns {state, count, state, count, ...}: state -1 when the user's records are not
-- loaded, count -2 when the count is not loaded.
local uid = ARGV[1]
local out = {}
for k = 1, #KEYS, 4 do
  local state = -1
  if uid == '0' then
    state = 0
  elseif redis.call('EXISTS', KEYS[k]) == 1 then
    state = redis.call('SISMEMBER', KEYS[k], uid)
  elseif redis.call('EXISTS', KEYS[k + 1]) == 1 and
      redis.call('SISMEMBER', KEYS[k + 2], 0) == 1 then
    state = redis.call('SISMEMBER', KEYS[k + 2], uid)
  end
  local count = redis.call('GET', KEYS[k + 3])
  out[#out + 1] = state
  out[#out + 1] = count and tonumber(count) or -2
end
return out
