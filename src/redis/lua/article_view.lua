-- Reads an article's cached fields and counts a view of a published one, atomically, raising
-- its shard's views version pl:lvw:{lN} (built here).
-- KEYS[1] pl:art:{lN}:<id>; ARGV[1] '1' to count a view; ARGV[2..] the fields to return.
-- Returns nil when the article is not cached (the caller loads it from SQL).
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
if ARGV[1] == '1' and redis.call('HGET', KEYS[1], 'status') == 'published' then
  redis.call('HINCRBY', KEYS[1], 'views', 1)
  -- The shard's views version: list pages showing this count are served again only within
  -- --list-views-max-age-ms (render/article_lists.cpp).
  redis.call('INCR', 'pl:lvw:' .. string.match(KEYS[1], '{[^}]*}'))
end
return redis.call('HMGET', KEYS[1], unpack(ARGV, 2))
