-- One page of a comment index (ZSET; members are 19-digit ids, so equal scores order by id).
-- KEYS[1] the article's pl:cmeta key, KEYS[2] the index.
-- ARGV[1] 'desc' (highest score first, ties newest first) or 'asc' (lowest first, ties
-- oldest first); ARGV[2] 'rank': ARGV[3] start, ARGV[4] count          (offset paging)
--                   ARGV[2] 'after': ARGV[3] score, ARGV[4] member, ARGV[5] count (cursor)
-- Returns false when the article's comment cache is not ready (the caller rebuilds it), else
-- {total, {member, score, ...}}.
-- A cursor continues right after its (score, member) position even if that member has since
-- moved or gone: the position is found by ZCOUNT and a binary search over the members with
-- that score, O(log² N); nothing uses LIMIT offset.
if redis.call('HGET', KEYS[1], 'state') ~= 'ready' then
  return false
end
local key = KEYS[2]
local desc = ARGV[1] == 'desc'
local total = redis.call('ZCARD', key)
local function range(start, stop)
  if desc then
    return redis.call('ZREVRANGE', key, start, stop, 'WITHSCORES')
  end
  return redis.call('ZRANGE', key, start, stop, 'WITHSCORES')
end
local start, count
if ARGV[2] == 'rank' then
  start, count = tonumber(ARGV[3]), tonumber(ARGV[4])
else
  local score, member = ARGV[3], ARGV[4]
  count = tonumber(ARGV[5])
  local before
  if desc then
    before = redis.call('ZCOUNT', key, '(' .. score, '+inf')
  else
    before = redis.call('ZCOUNT', key, '-inf', '(' .. score)
  end
  local lo, hi = before, before + redis.call('ZCOUNT', key, score, score)
  -- First rank in [lo, hi) whose member comes after the cursor's in this order.
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local x = range(mid, mid)[1]
    local after
    if desc then after = x < member else after = x > member end
    if after then hi = mid else lo = mid + 1 end
  end
  start = lo
end
if count <= 0 or start >= total then
  return {total, {}}
end
return {total, range(start, start + count - 1)}
