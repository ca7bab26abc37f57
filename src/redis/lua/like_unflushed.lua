-- What a load from SQL must know first (like_load.lua checks it again): the shard's epoch,
-- and with ARGV[1] = '1' every user's newest change of the target not yet confirmed in SQL.
-- KEYS[1] the target's small-mode set pl:lk:{s}:<t>:s (the other keys of the target are
-- built from its tail, as in like_set.lua: one hash slot), KEYS[2] the dirty index
-- pl:ld:{s}, KEYS[3] the in-flight set pl:lfi:{s}, KEYS[4] the epoch pl:lep:{s}.
-- Returns {epoch, uid, state, uid, state, ...}; with ARGV[2] = '1' (reconcile: is the cached
-- count right?) {epoch, count or nil, uid, state, ...}, the count read in the same step as
-- the changes.
--
-- The epoch changes whenever unflushed changes leave Redis for SQL alone (like_done.lua) or
-- a count is dropped; a missing one (FLUSHALL) is created from the clock in µs, so it never
-- comes back to a value a load saw before. Listing the changes walks the shard's dirty index
-- and in-flight set: O(the shard's backlog), on the rare path of a count that must be loaded.
local epoch = redis.call('GET', KEYS[4])
if not epoch then
  local t = redis.call('TIME')
  epoch = string.format('%d', tonumber(t[1]) * 1000000 + tonumber(t[2]))
  redis.call('SET', KEYS[4], epoch)
end
local out = {epoch}
local base = string.sub(KEYS[1], 7, -3)  -- "{s}:<t>"
if ARGV[2] == '1' then
  out[2] = redis.call('GET', 'pl:lc:' .. base)  -- false (nil) when not cached
end
if ARGV[1] ~= '1' then
  return out
end
local close = string.find(base, '}', 1, true)
local prefix = string.sub(base, close + 2) .. ':'  -- "<t>:"
local buckets = {}
local function note(members)
  for _, m in ipairs(members) do
    if string.sub(m, 1, #prefix) == prefix and string.sub(m, #prefix + 1) ~= 's' then
      buckets[string.sub(m, #prefix + 1)] = true
    end
  end
end
note(redis.call('ZRANGE', KEYS[2], 0, -1))
note(redis.call('SMEMBERS', KEYS[3]))
-- Oldest first, so each user's newest change wins: small mode in flight, then pending, then
-- the buckets' (the split ended small mode, so every bucket change is newer; a user is in
-- one bucket only). Values are '1'/'0', or '1:<seq>' from before the seq moved to the claim.
local newest, order = {}, {}
local function replay(key)
  local kv = redis.call('HGETALL', key)
  for i = 1, #kv, 2 do
    if kv[i] ~= '#' then
      if not newest[kv[i]] then
        order[#order + 1] = kv[i]
      end
      newest[kv[i]] = string.sub(kv[i + 1], 1, 1)
    end
  end
end
replay('pl:lf:' .. base .. ':s')
replay('pl:lp:' .. base .. ':s')
for b in pairs(buckets) do
  replay('pl:lf:' .. base .. ':' .. b)
  replay('pl:lp:' .. base .. ':' .. b)
end
for _, uid in ipairs(order) do
  out[#out + 1] = uid
  out[#out + 1] = newest[uid]
end
return out
