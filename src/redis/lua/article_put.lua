-- Writes an article's cached hash and body from SQL, versioned: every write carries the SQL
-- row's version (articles.ver, raised by each change), and a hash is never set back to an
-- older version, so cache writes may land in any order (two PATCHes' Redis steps, a fill
-- that read SQL before a write) and the newest one wins (issue 25, items 2 and 3).
--
-- KEYS[1] pl:art:{lN}:<id>, KEYS[2] its body pl:art:{lN}:<id>:body, KEYS[3] its version
-- floor pl:art:{lN}:<id>:floor, KEYS[4] the shard's birth mark pl:lbm:{lN}.
-- ARGV[1] the mode:
--   'fill'   after a miss, from a row read from SQL: creates the hash if absent;
--   'create' a new article (a fresh id): the same, without the birth-mark check;
--   'write'  after a committed change: updates the hash only if it is cached (an absent
--            one fills from SQL on its next read).
-- ARGV[2] the row version; ARGV[3] (fill) the birth mark's value read before the row was:
-- if it changed or is gone, the dataset was emptied since (FLUSHALL), and the row may be
-- older than a deletion whose mark went with it: nothing is written ('unchecked': the caller
-- checks, reads SQL again and fills again). ARGV[4] '1' with ARGV[5] the body, or '0' for
-- none; then field, value pairs, 'status' first (like_set.lua HGETs it on every article like,
-- and HGET scans a listpack hash from the front).
--
-- Counters are not the row's to overwrite: `views` (unflushed views live only here) and
-- `likes` are written only into an absent hash; `comments` only with a newer `comments_ver`.
-- The body's version is the floor's field `bv` (not the hash's: a list page reads every field
-- of 20 hashes, and two more fields each cost it 5-10%): a body is written with its row's
-- version, and one older than the hash is dropped (refilled on the next full read). A body
-- never exists without its hash.
--
-- The floor (a HASH) is what an absent hash remembers: a write that finds no hash leaves its
-- version there as `v`, a comment count that finds none its `comments_ver` as `c`
-- (article_comments.lua; 10 minutes, far longer than a fill's SQL read can lag its Redis
-- step), so a fill of a row read before either cannot create the hash ('stale': the caller
-- reads SQL again); a delete leaves v = 2^62 (ArticleCache::kDeletedVersion) for a day, and
-- then every write and fill is refused ('gone').
-- Every change it makes to the hash, or to the floor of an absent one (SQL's row changed,
-- and a list page of an uncached article is filled from it), raises the shard's list
-- version (lib_list_version.lua).
-- Returns 'unchecked', 'stale', 'gone', or the hash after the write (HGETALL; fill and
-- create), or 1/0 whether the fields were written (write).
--! include lib_list_version.lua
local mode, ver = ARGV[1], tonumber(ARGV[2])
if mode == 'fill' and redis.call('GET', KEYS[4]) ~= ARGV[3] then
  return 'unchecked'
end
local fl = redis.call('HMGET', KEYS[3], 'v', 'c', 'bv')
local floor, comments_floor = tonumber(fl[1] or '0'), tonumber(fl[2] or '0')
-- The floor key's fields outlive a use only by its TTL (10 minutes, never shortened): a lost
-- `bv` makes a current body look older, and costs at most one rewrite or refill of it.
local function keep_floor()
  if redis.call('PTTL', KEYS[3]) < 600000 then
    redis.call('PEXPIRE', KEYS[3], 600000)
  end
end
local function body_is(v)
  redis.call('HSET', KEYS[3], 'bv', v)
  keep_floor()
end
if floor >= 4611686018427387904 then
  return 'gone'
end
local body, first = nil, 5
if ARGV[4] == '1' then
  body, first = ARGV[5], 6
end
local function done(applied)
  if mode == 'write' then return applied end
  return redis.call('HGETALL', KEYS[1])
end
local comments, comments_ver
for i = first, #ARGV, 2 do
  if ARGV[i] == 'comments' then
    comments = ARGV[i + 1]
  elseif ARGV[i] == 'comments_ver' then
    comments_ver = ARGV[i + 1]
  end
end
local cur = redis.call('HMGET', KEYS[1], 'ver', 'comments_ver')
if not cur[1] and redis.call('EXISTS', KEYS[1]) == 0 then
  if mode == 'write' then
    redis.call('DEL', KEYS[2])
    if ver > floor then
      redis.call('HSET', KEYS[3], 'v', ARGV[2])
      keep_floor()
      bump_list_version(KEYS[1])
    end
    return 0
  end
  if ver < floor or tonumber(comments_ver or '0') < comments_floor then
    return 'stale'
  end
  redis.call('HSET', KEYS[1], unpack(ARGV, first))
  redis.call('HSET', KEYS[1], 'ver', ARGV[2])
  bump_list_version(KEYS[1])
  if body then
    redis.call('SET', KEYS[2], body)
    body_is(ARGV[2])
  else
    redis.call('DEL', KEYS[2])  -- of no known version
  end
  return done(1)
end
local have = tonumber(cur[1] or '0')
local body_ver = tonumber(fl[3] or '0')
local applied = 0
if ver > have then
  local set = {'ver', ARGV[2]}
  for i = first, #ARGV, 2 do
    local k = ARGV[i]
    if k ~= 'views' and k ~= 'likes' and k ~= 'comments' and k ~= 'comments_ver' then
      set[#set + 1] = k
      set[#set + 1] = ARGV[i + 1]
    end
  end
  redis.call('HSET', KEYS[1], unpack(set))
  applied = 1
  have = ver
end
-- The comment count has its own version (a comment write does not raise the row's).
local counted = comments and comments_ver and tonumber(comments_ver) > tonumber(cur[2] or '0')
if counted then
  redis.call('HSET', KEYS[1], 'comments', comments, 'comments_ver', comments_ver)
end
if applied == 1 or counted then
  bump_list_version(KEYS[1])
end
if body and ver == have and body_ver < ver then
  redis.call('SET', KEYS[2], body)
  body_is(ARGV[2])
elseif body_ver < have then
  redis.call('DEL', KEYS[2])
end
return done(applied)
