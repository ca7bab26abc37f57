-- One page of a list index (a ZSET read highest score first, ties by member descending).
-- The index holds a sentinel member (score -inf) so that "empty" and "missing" differ:
-- returns false when the index is missing (the caller rebuilds it from SQL).
-- KEYS[1] the index, KEYS[2] the lists' version pl:lv:{pub}; ARGV[1] sentinel member;
--   ARGV[2] 'rank': ARGV[3] start, ARGV[4] count              (offset paging)
--   ARGV[2] 'after': ARGV[3] score, ARGV[4] member, ARGV[5] count  (cursor paging)
-- and last a random base in [2^40, 2^62) for an unborn version (list_version_born.lua).
-- Returns {total, {member, score, member, score, ...}, version}: the page as of that version
-- (render/article_lists.cpp). Both modes cost O(log N + count): ranks and score ranges, never
-- LIMIT offset.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local version = redis.call('GET', KEYS[2])
if not version or tonumber(version) < 1099511627776 then
  version = ARGV[#ARGV]
  redis.call('SET', KEYS[2], version)
end
local sentinel = ARGV[1]
local total = redis.call('ZCARD', KEYS[1]) - 1
local out = {}
if ARGV[2] == 'rank' then
  local start = tonumber(ARGV[3])
  local stop = math.min(start + tonumber(ARGV[4]) - 1, total - 1)
  if start <= stop then
    out = redis.call('ZREVRANGE', KEYS[1], start, stop, 'WITHSCORES')
  end
  return {total, out, version}
end
local score, member, count = ARGV[3], ARGV[4], tonumber(ARGV[5])
-- Equal scores first (members below the cursor's), then strictly lower scores.
local same = redis.call('ZREVRANGEBYSCORE', KEYS[1], score, score, 'WITHSCORES')
for i = 1, #same, 2 do
  if #out >= 2 * count then break end
  if same[i] < member and same[i] ~= sentinel then
    out[#out + 1] = same[i]
    out[#out + 1] = same[i + 1]
  end
end
if #out < 2 * count then
  local lower = redis.call('ZREVRANGEBYSCORE', KEYS[1], '(' .. score, '-inf', 'WITHSCORES',
                           'LIMIT', 0, count - #out / 2 + 1)
  for i = 1, #lower, 2 do
    if #out >= 2 * count then break end
    if lower[i] ~= sentinel then
      out[#out + 1] = lower[i]
      out[#out + 1] = lower[i + 1]
    end
  end
end
return {total, out, version}
