-- Fills an article's cache from SQL without overwriting anything newer. A fill races with
-- views (the hash's `views` only grows in Redis until the flusher writes it to SQL), with
-- other fills (a list page and an article page after a FLUSHALL, or two instances) and with
-- writes, so a hash that exists is newer than the row the fill read: the hash is written
-- only while it is absent, the body only while it is absent (SET NX).
-- KEYS[1] pl:art:{lN}:<id>, KEYS[2] pl:art:{lN}:<id>:body, KEYS[3] the shard's birth mark
-- pl:lbm:{lN}: without it no check has compared this dataset with SQL since it was emptied
-- (FLUSHALL), and nothing is filled ('unchecked': the caller checks, then fills again).
-- Filled only then, a snapshot holds no cached article its check cannot date.
-- ARGV[1] '1' with ARGV[2] the body, or '0' for none; then field, value pairs with 'status'
-- first (like_set.lua HGETs it on every article like, and HGET scans a listpack hash from
-- the front); no pairs for a body-only fill.
-- Returns the hash as it is after the fill (HGETALL): the fields filled, or the ones that
-- were there; an empty array for a body-only fill.
if redis.call('EXISTS', KEYS[3]) == 0 then
  return 'unchecked'
end
local first = 2
if ARGV[1] == '1' then
  redis.call('SET', KEYS[2], ARGV[2], 'NX')
  first = 3
end
if #ARGV < first then
  return {}
end
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV, first))
end
return redis.call('HGETALL', KEYS[1])
