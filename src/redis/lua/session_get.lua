-- Looks up a session and slides its expiry.
-- KEYS[1] pl:sess:<hash>; ARGV[1] ttl ms; ARGV[2] refresh when the remaining TTL is below this (ms).
-- Returns {uid, username, display, role} or nil. The TTL is refreshed at most once per
-- (ttl - refresh) so that reads do not each append an expiry to the AOF.
local v = redis.call('HMGET', KEYS[1], 'uid', 'username', 'display', 'role')
if not v[1] then
  return nil
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl >= 0 and ttl < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return v
