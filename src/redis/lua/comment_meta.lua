-- The state of one article's comment cache, and the lease of whoever rebuilds it.
-- KEYS[1] pl:cmeta:{s}:<aid>; ARGV[1] 'begin' | 'renew' | 'finish', ARGV[2] owner,
-- ARGV[3] lease ms, ARGV[4] (finish) the new thread version's birth.
-- begin → 'ready' (nothing to do), 'busy' (another owner holds a live lease) or 'go' (the
-- caller now owns the rebuild); renew/finish → 'ok', or 'lost' when the lease went to
-- someone else (the caller's writes were versioned puts: harmless).
-- finish also starts the thread's version (redis/comment_cache.hpp ThreadVersion): 'b' a
-- random id the caller made for this rebuild (so a cache rebuilt after a FLUSHALL or an
-- Invalidate never repeats a version an earlier one had), 'v' 0; comment_put.lua and
-- like_set.lua raise 'v'.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local m = redis.call('HMGET', KEYS[1], 'state', 'owner', 'lease')
if ARGV[1] == 'begin' then
  if m[1] == 'ready' then return 'ready' end
  if m[1] == 'building' and m[2] ~= ARGV[2] and tonumber(m[3] or '0') > now then
    return 'busy'
  end
  redis.call('HSET', KEYS[1], 'state', 'building', 'owner', ARGV[2], 'lease',
             now + tonumber(ARGV[3]))
  return 'go'
end
if m[1] ~= 'building' or m[2] ~= ARGV[2] then return 'lost' end
if ARGV[1] == 'renew' then
  redis.call('HSET', KEYS[1], 'lease', now + tonumber(ARGV[3]))
  return 'ok'
end
redis.call('HSET', KEYS[1], 'state', 'ready', 'b', ARGV[4], 'v', 0)
redis.call('HDEL', KEYS[1], 'owner', 'lease')
return 'ok'
