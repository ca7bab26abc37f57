-- Slides a session's expiry, only if it still exists (an expired session must not come back).
-- KEYS[1] pl:sess:<hash>; ARGV[1] ttl ms; ARGV[2] the next slide time (ms since the epoch).
-- Runs about once per ttl/30 per session: lookups themselves are one plain HMGET, which
-- costs Redis a fraction of a script call, and reads never each append an expiry to the AOF.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], 'ref', ARGV[2])
return 1
