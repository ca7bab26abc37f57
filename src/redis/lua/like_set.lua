-- Sets users' likes on one target and keeps its count exact: the one atomic step of a like
-- or unlike (invariant 1). Several users' changes of the same target may come in one call,
-- applied in order as if one at a time (LikeStore queues a target's likes while a call for
-- it is in flight: a viral target's likes then share a call). All keys share the target's
-- shard hash tag.
--
-- Records: while a target has at most 256 likers they live in ONE set (small mode, about
-- 5 bytes a like); past that the set is split once into sets by user id >> 8 (big mode,
-- at most 256 likers each), so no key grows with popularity and every set stays an intset.
-- KEYS[1] pl:lk:{s}:<t>:s  small-mode SET of liker ids, member 0 = loaded from SQL. Every
--         other key of the target is built here from its tail "{s}:<t>", so it carries the
--         same hash tag (one slot, as on Redis Cluster; ClusterModeTest):
--         pl:lk:{s}:<t>:<bucket> big-mode SET of a user's bucket, member 0 = loaded
--         pl:lc:{s}:<t>          the like count
--         pl:lp:{s}:<t>:s        pending changes (small mode): uid -> state ('1' or '0')
--         pl:lp:{s}:<t>:<bucket> pending changes (big mode)
--         pl:ld:{s}              dirty index: member "<t>:s" or "<t>:<bucket>", score = ms
-- KEYS[2] (optional) with ARGV[3] = 'hot' or 'hotpub': a ZSET to move t in by the count (a
--         comment's hot order), ARGV[#ARGV] the member, and KEYS[3] the article's comment
--         cache meta pl:cmeta:{s}:<aid>, whose version 'v' a moved comment raises (a rendered
--         page under the older version is not served again: render/page_cache.hpp); 'hotpub'
--         also KEYS[4] the article's cache hash, which must say status 'published', and
--         KEYS[5] the comment's hash, which must say deleted '0' and status approved (a warm
--         comment like in one call; anything else is for the caller to check); 'hotpubr' is
--         'hotpub' for a reply, with KEYS[6] its top-level comment's hash, which must be
--         cached and not a live pending comment; with ARGV[3] = 'pub': the
--         article's cache hash, which must say status 'published' (everyone may like a
--         published article; anything else, or an article not cached, is for the caller to
--         check)
-- ARGV[1] the caller's clock in ms (the dirty index's score: when a bucket first changed),
-- ARGV[2] 'big' when the caller saw this target in big mode last time, else 's': only the
-- order of the two reads below (a wrong guess costs one call, never a wrong answer),
-- ARGV[3] '', 'hot' or 'pub'; then per like: user id, '1' like / '0' unlike, the user's
-- bucket (user id >> 8).
-- An article's count change also raises its shard's list version pl:lv:{s} (built here).
-- Returns, for one like, the integer state + 2*big + 4*count (big 1 in big mode) or the
-- string 'miss' when the user's records are not loaded; for several, a table of those.
-- 'miss' alone when the count is not loaded, 'unpublished' when ARGV[3] = 'pub' and the
-- article is not cached as published: for every like of the call. The caller loads what
-- missed from SQL and calls again: a miss never counts, and changes nothing.
--
-- Costs, from callgrind of redis-server 7.0 under likes: each redis.call is ~2,300
-- instructions besides its command (argument objects, command lookup, the reply turned back
-- into Lua); each script argument ~1,000 (parsed from the request, made an object, then a
-- Lua string in KEYS or ARGV, a table grown one element at a time), more than building a
-- key here from KEYS[1]'s tail (one concatenation), and a key is built only on the path that
-- uses it: 8 arguments for an article like where 13 passed every key cost ~0.6 us more per
-- call (redis-benchmark -P 16 of both shapes doing the same three reads, 2026-12-01); a
-- table returned ~5,500 (the reply conversion probes it for 'err', 'ok' and five more
-- fields), an integer almost nothing. Hence few calls (a like that changes nothing is 3:
-- HGET, SMISMEMBER, GET; one that does 7, or 6 when it replaces an unflushed change; the
-- HGET, the GET and the count's INCRBY are paid once per call), no argument that can be
-- derived here, and one integer back for one like.
local base = string.sub(KEYS[1], 7, -3)  -- "{s}:<t>"
local kind = ARGV[3]
if kind == 'pub' and redis.call('HGET', KEYS[2], 'status') ~= 'published' then
  return 'unpublished'
end
if kind == 'hotpub' or kind == 'hotpubr' then
  -- The comment live and approved (no status: a hash from before statuses); a reply's
  -- top-level comment (KEYS[6]) not a live pending one, which keeps its replies from readers.
  local c = redis.call('HMGET', KEYS[5], 'deleted', 'status')
  if redis.call('HGET', KEYS[4], 'status') ~= 'published' or c[1] ~= '0' or
      (c[2] and c[2] ~= 'approved') then
    return 'unpublished'
  end
  if kind == 'hotpubr' then
    local top = redis.call('HMGET', KEYS[6], 'deleted', 'status')
    if top[1] == false or (top[1] == '0' and top[2] == 'pending') then
      return 'unpublished'
    end
  end
  kind = 'hot'
end
local count_key = 'pl:lc:' .. base
local count = redis.call('GET', count_key)
if not count then
  return 'miss'
end
count = tonumber(count)
local start = count
-- Whether any user's state changed: a like and an unlike of one target in one call change
-- states but not the count.
local changed = false
local last = #ARGV
if kind == 'hot' then
  last = last - 1
end
local guess_big = ARGV[2] == 'big'
-- One like's answer, or a table of them: a table costs Redis ~5,500 instructions to return,
-- and a like of a target nobody else is liking right now is one like a call.
local many = last > 6
local out = many and {} or nil
local answer
for i = 4, last, 3 do
  local uid, bucket = ARGV[i], ARGV[i + 2]
  -- {member 0: the loaded mark, the user}; a small set always holds 0 while it exists, a
  -- bucket once it is loaded. The mark is the string '0': a Lua number would be formatted by
  -- Redis (%.17g) on every call. The two modes exclude each other: the small set exists only
  -- while the big-mode mark pl:lb:{s}:<t> does not, and buckets are only ever created
  -- together with the mark (the split below, like_load.lua; Redis must not evict single
  -- keys), so either read order finds the same one. Big mode needs no EXISTS of the mark: a
  -- bucket holding 0 implies it. A bucket's key is built only when it is read.
  local set = KEYS[1]
  if guess_big then
    set = 'pl:lk:' .. base .. ':' .. bucket
  end
  local flags = redis.call('SMISMEMBER', set, '0', uid)
  if flags[1] ~= 1 then
    if set == KEYS[1] then
      set = 'pl:lk:' .. base .. ':' .. bucket
    else
      set = KEYS[1]
    end
    flags = redis.call('SMISMEMBER', set, '0', uid)
  end
  if flags[1] ~= 1 then
    answer = 'miss'  -- neither loaded
  else
    local small = set == KEYS[1]
    local want = ARGV[i + 1] == '1' and 1 or 0  -- not tonumber: a strtod a like
    if want ~= flags[2] then
      changed = true
      if want == 1 then
        redis.call('SADD', set, uid)
        count = count + 1
      else
        redis.call('SREM', set, uid)
        count = count - 1
      end
      local tail = small and ':s' or ':' .. bucket  -- the bucket's name: "s" or the number
      -- The pending change is the state alone: its order among the target's changes is the
      -- order of the hashes (like_claim.lua gives each claimed hash a seq; like_load.lua
      -- replays them oldest first). A seq per change cost an INCR and a string.format on
      -- every change: ~8% of Redis's instructions a like (callgrind, 2026-12-01).
      -- HSET answers 0 when it replaced this user's earlier unflushed change: the pending
      -- hash existed, so its member is in the dirty index already (like_claim.lua renames a
      -- pending hash away and drops its member in one step; nothing else creates or removes
      -- either), and the ZADD is skipped. Under a hot target's like/unlike churn most
      -- changes are such repeats.
      if redis.call('HSET', 'pl:lp:' .. base .. tail, uid, ARGV[i + 1]) == 1 then
        -- The dirty index pl:ld:{s}, member "<t>:s" or "<t>:<bucket>".
        local close = string.find(base, '}', 1, true)
        redis.call('ZADD', 'pl:ld:' .. string.sub(base, 1, close), 'NX', ARGV[1],
                   string.sub(base, close + 2) .. tail)
      end
      if small and want == 1 and redis.call('SCARD', set) > 257 then
        -- Split once into big-mode buckets: bounded work (257 members). The bucket keys and
        -- the mark are built here from KEYS[1] ("pl:lk:{s}:<t>:s"); they share its hash
        -- tag, so this stays in one slot. Pending small-mode changes stay where they are:
        -- like_claim.lua claims them before (never after) the bucket hashes, which hold
        -- every newer change.
        local prefix = string.sub(KEYS[1], 1, -2)
        for _, member in ipairs(redis.call('SMEMBERS', set)) do
          if member ~= '0' then
            redis.call('SADD', prefix .. math.floor(tonumber(member) / 256), '0', member)
          end
        end
        redis.call('DEL', set)
        redis.call('SET', 'pl:lb:' .. base, 1)
        small = false
        guess_big = true
      end
    end
    answer = want + (small and 0 or 2) + 4 * count
  end
  if many then
    out[#out + 1] = answer
  end
end
if count ~= start then
  -- INCR/DECR for one change: INCRBY's increment is a Lua number, which Redis formats with
  -- %.17g on the way in.
  if count == start + 1 then
    redis.call('INCR', count_key)
  elseif count == start - 1 then
    redis.call('DECR', count_key)
  else
    redis.call('INCRBY', count_key, count - start)
  end
  if kind == 'hot' then
    -- XX: only moves a listed comment; an unlisted one or a cache being rebuilt (which
    -- reads this count) is left alone.
    redis.call('ZADD', KEYS[2], 'XX', count, ARGV[#ARGV])
  else
    -- An article's count shows in the published list: its shard's list version moves
    -- (render/article_lists.cpp). Comment targets ("c<id>") are in their thread's version below.
    local close = string.find(base, '}', 1, true)
    if string.byte(base, close + 2) == 97 then  -- 'a'
      redis.call('INCR', 'pl:lv:' .. string.sub(base, 1, close))
    end
  end
end
-- Whether or not the score moved (an index filled from SQL's count may already hold the new
-- one), what a page shows did: the count, or only who liked (a like and an unlike in one
-- call), which a signed-in reader's page shows and render::RenderedPage::readers keeps per
-- version. A new version, while the cache exists.
if changed and kind == 'hot' and redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('HINCRBY', KEYS[3], 'v', 1)
end
if many then
  return out
end
return answer
