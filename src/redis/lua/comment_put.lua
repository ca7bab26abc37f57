-- Writes comment states into an article's comment cache: the one Redis step of a comment
-- write (the comment and its top-level comment together) and of a rebuild from SQL.
-- Every state carries its SQL row version; an older or equal one never replaces a newer one,
-- so writes and rebuilds may arrive in any order. The one exception: a hash without comment
-- html (no 'html' field, from a release before it: the reads take it for a miss; or an empty
-- one for a row start-up had not rendered yet) takes its own version again from SQL when
-- that brings the rendered text. Index entries follow the newest state:
-- a comment is listed while it is live and approved, or, at the top level, deleted or spam but
-- with listed replies (a placeholder).
-- They are kept only while the article's comment cache exists (meta present): otherwise
-- the next read rebuilds everything from SQL, which already holds these rows.
-- KEYS[1] pl:cmeta:{s}:<aid>; then per comment: hash, time index, likes index, like count.
-- ARGV[1] '1' to create hashes, '0' to create none while the article's cache does not exist
-- (an import's comments: only hashes already cached take the new states, the rest are read
-- from SQL when asked for, as after a Forget); then per comment: member (19-digit id), time
-- score (id), n, then n field/value pairs (they include 'ver', 'deleted', 'replies' and
-- 'likes', the SQL like count).
-- Returns how many states were newer than the cached ones.
-- While the cache exists, every call raises the thread's version (meta 'v', see
-- comment_meta.lua) in this same step: a rendered page cached under the version before
-- it is never served again (render/page_cache.hpp).
local live = redis.call('EXISTS', KEYS[1]) == 1
local create = live or ARGV[1] == '1'
local applied = 0
local a = 2
-- Complete quadruples only: on Redis Cluster a last key follows them (the slot guard,
-- cluster_slots.hpp).
for k = 2, #KEYS - 3, 4 do
  local hash, by_time, by_likes, like_count = KEYS[k], KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]
  local member, score, n = ARGV[a], ARGV[a + 1], tonumber(ARGV[a + 2])
  local first, last = a + 3, a + 2 + 2 * n
  a = last + 1
  local ver, html = 0, ''
  for i = first, last, 2 do
    if ARGV[i] == 'ver' then ver = tonumber(ARGV[i + 1]) end
    if ARGV[i] == 'html' then html = ARGV[i + 1] end
  end
  local cached = redis.call('HMGET', hash, 'ver', 'html')
  local cached_ver = tonumber(cached[1] or '0')
  -- At its own version, SQL's rendering fills a hash without one (none: an earlier release
  -- wrote it; empty: filled before start-up rendered the row).
  local fills_html = cached[2] == false or (cached[2] == '' and html ~= '')
  local exists = cached[1] ~= false
  if (create or exists) and (ver > cached_ver or (ver == cached_ver and fills_html)) then
    redis.call('HSET', hash, unpack(ARGV, first, last))
    applied = applied + 1
  end
  if live then
    -- Listed (model::Comment::Listed): live and approved; or a top-level comment deleted or
    -- marked spam that still has listed replies (a placeholder). A live pending one is not,
    -- and no reader reaches its replies. No status: a hash from before statuses (approved).
    local f = redis.call('HMGET', hash, 'deleted', 'replies', 'likes', 'status', 'parent')
    local approved = f[4] == false or f[4] == 'approved'
    local listed = f[1] == '0' and approved
    if not listed and (f[5] == false or f[5] == '') and tonumber(f[2] or '0') > 0 then
      listed = f[1] ~= '0' or f[4] == 'spam'
    end
    if listed then
      -- The live like count wins over SQL's (it may hold likes not yet flushed).
      local likes = redis.call('GET', like_count) or f[3] or '0'
      redis.call('ZADD', by_time, score, member)
      redis.call('ZADD', by_likes, likes, member)
    else
      redis.call('ZREM', by_time, member)
      redis.call('ZREM', by_likes, member)
    end
  end
end
if live then
  redis.call('HINCRBY', KEYS[1], 'v', 1)
end
return applied
