-- Drops an article's cached hash and body so they refill from SQL (plauditd rebuild-cache),
-- unless the hash holds views SQL does not have yet: a view counted since the views flush
-- that preceded this (views live only in the hash until flushed) is never dropped with it.
-- KEYS[1] pl:art:{lN}:<id>, KEYS[2] its body; ARGV[1] SQL's view count, read after the flush.
-- Returns 1 when dropped (or not cached), 0 when kept (flush again, then ask again).
--! include lib_list_version.lua
local views = redis.call('HGET', KEYS[1], 'views')
if views and tonumber(views) > tonumber(ARGV[1]) then
  return 0
end
redis.call('UNLINK', KEYS[1], KEYS[2])
bump_list_version(KEYS[1])  -- refilled from SQL, which may differ
return 1
