-- Hands out the next id of a sequence (or the next `count`), never one at or below `floor`.
-- KEYS[1] the sequence; ARGV[1] floor (the highest id in SQL), or -1 when not known;
-- ARGV[2] how many (absent: 1; an import reserves a block of ids in one call).
-- Returns the new id (the last of the block: the ids are it and the count-1 below it), or nil when the sequence is missing and the floor is unknown: the
-- caller then reads MAX(id) from SQL and calls again. This is how ids resume above SQL's
-- after Redis comes back empty, and how they never repeat if it comes back behind.
local cur = redis.call('GET', KEYS[1])
local floor = tonumber(ARGV[1])
if not cur then
  if floor < 0 then
    return false
  end
  redis.call('SET', KEYS[1], floor)
elseif floor >= 0 and tonumber(cur) < floor then
  redis.call('SET', KEYS[1], floor)
end
return redis.call('INCRBY', KEYS[1], tonumber(ARGV[2] or '1'))
