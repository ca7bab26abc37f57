-- The flusher claims a batch of view counts to write to SQL (claim → commit → done, as for
-- likes). Ids left in flight by an earlier pass (crashed, or still running) are taken again
-- first, with the seq of their claim; the rest of the batch moves from the dirty set to
-- the in-flight ZSET, stamped with a new seq. The caller then reads the counts (the article
-- hashes live in other slots, so not here), commits them to SQL and calls view_done.lua,
-- which drops an id only if it still holds that seq.
-- KEYS[1] dirty SET pl:vd:{views}, KEYS[2] in-flight ZSET pl:vf:{views} (score = seq),
-- KEYS[3] seq pl:vseq:{views}; ARGV[1] the most ids to return.
-- Returns {id, seq, id, seq, ...}.
--
-- Why nothing is lost: a view increments the hash, then adds the id to the dirty set. An id
-- claimed with seq s is read after that claim, so the commit holds every view marked before
-- it; a view marked after it waits in the dirty set. Taking such an id again while it is in
-- flight restamps it (s'), so a pass that holds s and commits an older count cannot confirm
-- it: the id stays in flight until a pass holding s' commits a count read after s'.
--! include lib_clock.lua
local n = tonumber(ARGV[1])
local out, at = {}, {}
local inflight = redis.call('ZRANGE', KEYS[2], 0, n - 1, 'WITHSCORES')
for i = 1, #inflight, 2 do
  out[#out + 1] = inflight[i]
  out[#out + 1] = string.format('%d', tonumber(inflight[i + 1]))
  at[inflight[i]] = #out
end
local room = n - #out / 2
if room > 0 then
  local ids = redis.call('SPOP', KEYS[1], room)
  if #ids > 0 then
    local seq = next_seq(KEYS[3])  -- lib_clock.lua: max(INCR, the clock in µs)
    local zadd = {}
    for _, id in ipairs(ids) do
      zadd[#zadd + 1] = seq
      zadd[#zadd + 1] = id
      if at[id] then
        out[at[id]] = seq
      else
        out[#out + 1] = id
        out[#out + 1] = seq
      end
    end
    redis.call('ZADD', KEYS[2], unpack(zadd))
  end
end
return out
