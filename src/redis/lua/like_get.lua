-- One user's like states and the counts of several targets of one shard (see like_set.lua
-- for the layout): a comment page's likes are one call.
-- KEYS per target (3 each): small-mode set, the user's big-mode bucket, count. No big-mode
-- mark: as in like_set.lua, a bucket holding 0 says the target is split and the bucket loaded.
-- ARGV[1] user id ('0' for anonymous).
-- Returns {state, count, state, count, ...}: state -1 when the user's records are not
-- loaded, count -2 when the count is not loaded.
-- One SMISMEMBER {0, uid} per set reads "loaded" and the state at once: one call in small
-- mode, two in big mode (it was EXISTS and SISMEMBER, four in big mode).
local uid = ARGV[1]
local out = {}
-- Complete triples only: on Redis Cluster a last key follows them (the slot guard,
-- cluster_slots.hpp).
for k = 1, #KEYS - 2, 3 do
  local state = -1
  if uid == '0' then
    state = 0
  else
    local flags = redis.call('SMISMEMBER', KEYS[k], '0', uid)
    if flags[1] ~= 1 then
      flags = redis.call('SMISMEMBER', KEYS[k + 1], '0', uid)
    end
    if flags[1] == 1 then
      state = flags[2]
    end
  end
  local count = redis.call('GET', KEYS[k + 2])
  out[#out + 1] = state
  out[#out + 1] = count and tonumber(count) or -2
end
return out
