-- Puts one article in or out of the published list indexes: an 'add' into "all" and its
-- kind's, a 'rem' out of all three (an article's kind never changes; a retried delete's
-- repair no longer knows it). Each index and its rebuild-in-progress twin only if it exists
-- (a missing index is rebuilt from SQL, which already has the change). Versioned like the
-- article's hash: the article's row version is kept in KEYS[7] for 10 minutes (far longer
-- than a write's Redis step can lag its commit), and a change as old as or older than the one
-- applied is dropped, so two writes' steps landing out of order leave the newest state, and a
-- rebuild adding what it read from SQL skips an article changed since (index_rebuild.lua).
-- KEYS[1..6] pl:arts:{pub}:all, its twin, :article, its twin, :post, its twin;
-- KEYS[7] pl:arts:{pub}:v:<id>; ARGV[1] 'add' or 'rem', ARGV[2] member, ARGV[3] score and
-- ARGV[5] kind ('article' or 'post') for 'add', ARGV[4] the row version (a deletion's is
-- above every row's). Returns 1 when applied, 0 when a newer change was; applied, it raises
-- the lists' version pl:lv:{pub} (lib_list_version.lua).
--! include lib_list_version.lua
local have = redis.call('GET', KEYS[7])
if have and tonumber(have) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('SET', KEYS[7], ARGV[4], 'PX', 600000)
bump_list_version(KEYS[7])  -- pl:lv:{pub}
local targets = {1, 2, 3, 4, 5, 6}
if ARGV[1] == 'add' then
  targets = ARGV[5] == 'article' and {1, 2, 3, 4} or {1, 2, 5, 6}
end
for _, i in ipairs(targets) do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    if ARGV[1] == 'add' then
      redis.call('ZADD', KEYS[i], ARGV[3], ARGV[2])
    else
      redis.call('ZREM', KEYS[i], ARGV[2])
    end
  end
end
return 1
