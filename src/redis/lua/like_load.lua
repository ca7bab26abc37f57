-- Loads a like bucket and/or count from SQL's state, unless someone already did, then
-- replays changes not yet in SQL (in flight, then pending) on top.
-- KEYS[1] bucket set, KEYS[2] count, KEYS[3] pending hash, KEYS[4] in-flight hash
-- ARGV[1] '1' to load the bucket, ARGV[2] the SQL count or '' (not loading it),
-- ARGV[3..] the user ids SQL has as liking in this bucket.
if ARGV[1] == '1' and redis.call('SISMEMBER', KEYS[1], 0) == 0 then
  redis.call('SADD', KEYS[1], 0)
  for i = 3, #ARGV do
    redis.call('SADD', KEYS[1], ARGV[i])
  end
  for _, key in ipairs({KEYS[4], KEYS[3]}) do
    local changes = redis.call('HGETALL', key)
    for i = 1, #changes, 2 do
      if string.sub(changes[i + 1], 1, 1) == '1' then
        redis.call('SADD', KEYS[1], changes[i])
      else
        redis.call('SREM', KEYS[1], changes[i])
      end
    end
  end
end
if ARGV[2] ~= '' then
  redis.call('SET', KEYS[2], ARGV[2], 'NX')
end
return 1
