-- The state of one article's comment cache, and the lease of whoever rebuilds it.
-- KEYS[1] pl:cmeta:{s}:<aid>; ARGV[1] 'begin' | 'renew' | 'finish', ARGV[2] owner,
-- ARGV[3] lease ms.
-- begin → 'ready' (nothing to do), 'busy' (another owner holds a live lease) or 'go' (the
-- caller now owns the rebuild); renew/finish → 'ok', or 'lost' when the lease went to
-- someone else (the caller's writes were versioned puts: harmless).
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
redis.call('HSET', KEYS[1], 'state', 'ready')
redis.call('HDEL', KEYS[1], 'owner', 'lease')
return 'ok'
