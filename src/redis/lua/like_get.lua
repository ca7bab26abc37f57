-- One user's like states, and with them the counts, of several targets of one shard (see
-- like_set.lua for the layout): a comment page's likes are one call.
-- KEYS per target: its small-mode set pl:lk:{s}:<t>:s. The user's big-mode bucket of the
-- target (pl:lk:{s}:<t>:<bucket>) and its count (pl:lc:{s}:<t>) are built here from it, as
-- like_set.lua builds them, so they carry the same hash tag: a script argument costs Redis
-- ~1,000 instructions, and three per target were most of a signed-in page's Redis time.
-- No big-mode mark: as in like_set.lua, a bucket holding 0 says the target is split and the
-- bucket loaded.
-- ARGV[1] user id ('0' for anonymous), ARGV[2] the user's bucket (user id >> 8), ARGV[3] '1'
-- to read the counts too, '0' for the states alone (a signed-in page's liked flags: its
-- counts are in the page already), ARGV[4] how many targets (on Redis Cluster a last key
-- follows theirs: the slot guard, cluster_slots.hpp).
-- Returns {state, count, state, count, ...}, or {state, state, ...} without counts: state -1
-- when the user's records are not loaded, count -2 when the count is not loaded.
-- One SMISMEMBER {0, uid} per set reads "loaded" and the state at once: one call in small
-- mode, two in big mode.
local uid, bucket, counts = ARGV[1], ARGV[2], ARGV[3] == '1'
local out = {}
for k = 1, tonumber(ARGV[4]) do
  local small = KEYS[k]
  local state = -1
  if uid == '0' then
    state = 0
  else
    local flags = redis.call('SMISMEMBER', small, '0', uid)
    if flags[1] ~= 1 then
      flags = redis.call('SMISMEMBER', string.sub(small, 1, -2) .. bucket, '0', uid)
    end
    if flags[1] == 1 then
      state = flags[2]
    end
  end
  out[#out + 1] = state
  if counts then
    local count = redis.call('GET', 'pl:lc:' .. string.sub(small, 7, -3))
    out[#out + 1] = count and tonumber(count) or -2
  end
end
return out
