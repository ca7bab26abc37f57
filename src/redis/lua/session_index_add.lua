-- Records a new session in its user's index and evicts the oldest beyond the cap.
-- KEYS[1] pl:usess:<uid>; ARGV[1] token hash; ARGV[2] now ms; ARGV[3] cap; ARGV[4] ttl ms.
-- Returns the evicted token hashes (the caller deletes their session keys).
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if excess > 0 then
  local evicted = redis.call('ZRANGE', KEYS[1], 0, excess - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, excess - 1)
  return evicted
end
return {}
