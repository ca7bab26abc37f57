-- Sets fields of a cached hash only if it is cached (never creates a partial one).
-- KEYS[1] the hash; ARGV field, value pairs. Returns 1 when updated.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
