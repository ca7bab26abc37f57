-- Sets fields of a cached HASH only if it exists and the given version is newer than the one
-- it holds: versioned writes may arrive in any order and the newest one wins.
-- KEYS[1] the hash; ARGV[1] the version field, ARGV[2] the version, ARGV[3..] field, value...
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= cur then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2], unpack(ARGV, 3))
return 1
