-- Adds or removes one member in a list index and in its rebuild-in-progress twin, each only
-- if it exists (a missing index is rebuilt from SQL, which already has the change).
-- KEYS[1] the index, KEYS[2] its twin being rebuilt (same hash slot);
-- ARGV[1] 'add' or 'rem', ARGV[2] member, ARGV[3] score (for 'add').
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then
    if ARGV[1] == 'add' then
      redis.call('ZADD', key, ARGV[3], ARGV[2])
    else
      redis.call('ZREM', key, ARGV[2])
    end
  end
end
return 1
