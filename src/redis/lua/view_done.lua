-- After the SQL commit of claimed view counts: each id leaves the in-flight ZSET if it still
-- holds the seq the pass claimed it with. A later claim restamped it otherwise (a view
-- arrived meanwhile), and that claim's count is not in SQL yet.
-- KEYS[1] in-flight ZSET pl:vf:{views}; ARGV id, seq pairs.
for i = 1, #ARGV, 2 do
  local seq = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if seq and tonumber(seq) == tonumber(ARGV[i + 1]) then
    redis.call('ZREM', KEYS[1], ARGV[i])
  end
end
return 1
