-- The steps of a rebuild of the published list indexes from SQL, each only while the caller
-- still holds the rebuild lock (a rebuilder that stalled past its lease lost it to another,
-- and must not swap in what it built). The rebuild writes twins ("<list>:new") that live
-- changes also reach (index_update.lua), then renames them over the live indexes at once.
-- KEYS[1] the lock pl:arts:{pub}:lock; KEYS[2..4] the twins of all, article, post;
-- KEYS[5..7] the live indexes in the same order.
-- ARGV[1] 'begin' | 'add' | 'finish' | 'abort', ARGV[2] the owner, ARGV[3] the lease in ms,
-- ARGV[4] the sentinel member: 'begin' puts it in each twin, and 'add' and 'finish' refuse
-- twins without it (a Redis restarted from a snapshot taken between the lock and 'begin');
-- add: then per article id, score, version, kind ('article' or 'post'), member: added to
-- the twins of "all" and its kind unless a change newer than the version SQL gave has been
-- applied meanwhile (its pl:arts:{pub}:v:<id> says so: that change already put the article
-- in or out of the twins, as it is now). So a change that lands between the rebuild's SQL
-- read and this add is never undone (issue 25, item 4).
-- abort: the rebuild failed (SQL unreachable halfway): its twins and the lock go at once, so
-- the next read rebuilds instead of answering 503 until the lease ends (issue 50).
-- Each step renews the lease. Returns 1, or 0 when the lock is no longer the caller's.
--! include lib_list_version.lua
if redis.call('GET', KEYS[1]) ~= ARGV[2] then
  return 0
end
local step = ARGV[1]
if step == 'abort' then
  for i = 2, 4 do
    redis.call('DEL', KEYS[i])
  end
  redis.call('DEL', KEYS[1])
  return 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if step ~= 'begin' and not redis.call('ZSCORE', KEYS[2], ARGV[4]) then
  return 0
end
if step == 'begin' then
  for i = 2, 4 do
    redis.call('DEL', KEYS[i])
    redis.call('ZADD', KEYS[i], '-inf', ARGV[4])
  end
  return 1
end
if step == 'finish' then
  for i = 2, 4 do
    redis.call('RENAME', KEYS[i], KEYS[i + 3])
  end
  bump_list_version(KEYS[1])  -- pl:lv:{pub}: the lists are now SQL's
  redis.call('DEL', KEYS[1])
  return 1
end
local tag = string.match(KEYS[1], '^(pl:arts:{pub}:)')
for i = 5, #ARGV, 5 do
  local id, score, ver, kind, member = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3], ARGV[i + 4]
  local have = redis.call('GET', tag .. 'v:' .. id)
  if not have or tonumber(have) <= tonumber(ver) then
    redis.call('ZADD', KEYS[2], score, member)
    redis.call('ZADD', kind == 'article' and KEYS[3] or KEYS[4], score, member)
  end
end
return 1
