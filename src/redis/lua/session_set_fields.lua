-- Updates fields of a session only if it still exists (an expired one must not come back).
-- KEYS[1] pl:sess:<hash>; ARGV field, value pairs. Returns 1 when updated.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
