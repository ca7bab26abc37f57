-- The flusher takes a batch of dirty buckets of one shard. For each member "<t>:<bucket>":
-- an in-flight hash left by an earlier (crashed or concurrent) pass is taken again as it
-- is; otherwise the pending hash is renamed to in-flight, stamped with the next shard seq
-- (field '#'), and the member leaves the dirty index. New changes after this go to a fresh
-- pending hash, so nothing arriving while the batch is written to SQL is lost.
-- KEYS[1] dirty index pl:ld:{s}, KEYS[2] in-flight set, KEYS[3] shard seq,
-- then per member i: KEYS[3+3i-2] pending, KEYS[3+3i-1] in-flight, KEYS[3+3i] count
-- ARGV[i] the members. Returns {count seq, {member, count, {uid, state, ..., '#', seq}}, ...}.
--
-- Why a seq per claimed hash is enough (like_set.lua records a change as its state alone):
-- SQL keeps a row's or a count's value only from a newer seq, and a user's change in a
-- later hash of the same bucket is newer, and is claimed later, with a higher seq. A
-- retaken in-flight hash keeps the seq it was stamped with. Across hashes of one target,
-- every change in a bucket-mode hash is newer than any in its small-mode ones (the split
-- ends small mode for good), so a bucket is never stamped before the target's small-mode
-- pending hash: that one is claimed with it, first; and while the small-mode in-flight
-- hash exists (so its pending hash cannot be claimed), the bucket waits in the dirty index.
local tag = string.sub(KEYS[1], 7)  -- "{s}"
local function next_seq()
  -- Strictly increasing, and above every seq SQL holds: when the key is gone (FLUSHALL, a
  -- Redis that lost its data) it resumes from the clock in µs, which no seq has passed
  -- (one per claim, far fewer than one a µs).
  local seq = redis.call('INCR', KEYS[3])
  if seq < 1000000000000000 then
    local t = redis.call('TIME')
    seq = math.max(seq, tonumber(t[1]) * 1000000 + tonumber(t[2]))
    redis.call('SET', KEYS[3], string.format('%d', seq))
  end
  return seq
end
local out, seen = {}, {}
local function claim(m, pending, inflight, count)
  seen[m] = true
  if redis.call('EXISTS', inflight) == 0 then
    if redis.call('EXISTS', pending) == 1 then
      redis.call('RENAME', pending, inflight)
      redis.call('HSET', inflight, '#', string.format('%d', next_seq()))
      redis.call('SADD', KEYS[2], m)
    end
    redis.call('ZREM', KEYS[1], m)
  end
  if redis.call('EXISTS', inflight) == 1 then
    out[#out + 1] = {m, redis.call('GET', count) or '', redis.call('HGETALL', inflight)}
  else
    redis.call('SREM', KEYS[2], m)
  end
end
for i = 1, #ARGV do
  local m, pending, inflight, count = ARGV[i], KEYS[3 * i + 1], KEYS[3 * i + 2], KEYS[3 * i + 3]
  local go = not seen[m]
  if go and redis.call('EXISTS', inflight) == 0 then
    -- A bucket about to be stamped: its target's small-mode pending hash first (whether or
    -- not that member is in this batch: it may have been claimed above, or retaken).
    local colon = string.find(m, ':', 1, true)
    local small = string.sub(m, 1, colon) .. 's'  -- "<t>:s"
    if small ~= m then
      local small_pending = 'pl:lp:' .. tag .. ':' .. small
      if redis.call('EXISTS', small_pending) == 1 then
        local small_inflight = 'pl:lf:' .. tag .. ':' .. small
        if redis.call('EXISTS', small_inflight) == 1 then
          go = false  -- stays dirty until the small-mode in-flight hash is done
        else
          claim(small, small_pending, small_inflight, count)
        end
      end
    end
  end
  if go then
    claim(m, pending, inflight, count)
  end
end
return {string.format('%d', next_seq()), out}
