-- Several comments of one article in one call (one hash slot): their fields and, when asked,
-- the first reply ids of each. One script instead of a command per comment: a page's reads
-- cost Redis and plauditd one command to format, send and parse.
-- KEYS: the comment hashes, then (when ARGV[1] > 0) their reply-by-time indexes, same order.
-- ARGV[1] how many reply ids per comment (0: none), ARGV[2..] the field names.
-- Returns per comment {fields...} (HMGET), followed by {reply ids...} when asked.
local n = tonumber(ARGV[1])
local count = #KEYS
if n > 0 then count = #KEYS / 2 end
local out = {}
for i = 1, count do
  out[#out + 1] = redis.call('HMGET', KEYS[i], unpack(ARGV, 2))
  if n > 0 then
    out[#out + 1] = redis.call('ZRANGE', KEYS[count + i], 0, n - 1)
  end
end
return out
