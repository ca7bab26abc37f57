-- Sets an article's cached comment count if its version is newer than the cached one, the
-- one Redis step of a comment write for the article's hash. An absent hash remembers the
-- version in its floor (see article_put.lua), so a fill of a row read before this comment
-- write cannot cache the older count: it reads SQL again.
-- KEYS[1] pl:art:{lN}:<id>, KEYS[2] its floor pl:art:{lN}:<id>:floor;
-- ARGV[1] comments_ver, ARGV[2] the count. Returns 1 when the cached count was set.
-- Either change raises the shard's list version (lib_list_version.lua): the count shows in
-- list pages, and SQL's row, which a list page of an uncached article is filled from, has it.
--! include lib_list_version.lua
local ver = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 1 then
  if ver <= tonumber(redis.call('HGET', KEYS[1], 'comments_ver') or '0') then
    return 0
  end
  redis.call('HSET', KEYS[1], 'comments', ARGV[2], 'comments_ver', ARGV[1])
  bump_list_version(KEYS[1])
  return 1
end
if ver > tonumber(redis.call('HGET', KEYS[2], 'c') or '0') then
  bump_list_version(KEYS[1])
  redis.call('HSET', KEYS[2], 'c', ARGV[1])
  if redis.call('PTTL', KEYS[2]) < 600000 then  -- never shortens a deleted article's day
    redis.call('PEXPIRE', KEYS[2], 600000)
  end
end
return 0
