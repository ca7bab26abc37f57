-- The flusher takes a batch of dirty buckets of one shard. For each member "<t>:<bucket>":
-- an in-flight hash left by an earlier (crashed or concurrent) pass is taken again as it
-- is; otherwise the pending hash is renamed to in-flight, stamped with the next shard seq
-- (field '#'), and the member leaves the dirty index. New changes after this go to a fresh
-- pending hash, so nothing arriving while the batch is written to SQL is lost.
-- KEYS[1] dirty index pl:ld:{s}, KEYS[2] in-flight set, KEYS[3] shard seq,
-- then per member i: KEYS[3+2i-1] pending, KEYS[3+2i] in-flight
-- ARGV[i] the members. Returns {{member, {uid, state, ..., '#', seq}}, ...}. No counts: SQL
-- keeps each target's count equal to its rows itself (migration 007).
--
-- Why a seq per claimed hash is enough (like_set.lua records a change as its state alone):
-- SQL keeps a row's value only from a newer seq, and a user's change in a later hash of the
-- same bucket is newer, and is claimed later, with a higher seq. A retaken in-flight hash
-- keeps the seq it was stamped with. Across hashes of one target, every change in a
-- bucket-mode hash is newer than any in its small-mode ones (the split ends small mode for
-- good), so a bucket is never stamped before the target's small-mode pending hash: that one
-- is claimed with it, first; and while the small-mode in-flight hash exists (so its pending
-- hash cannot be claimed), the bucket waits in the dirty index.
local tag = string.sub(KEYS[1], 7)  -- "{s}"
-- Seqs strictly increase and never fall below the clock in µs (Redis TIME): max(INCR, now).
-- So a Redis that comes back without recent writes (an AOF everysec crash, a failover to a
-- lagging replica, a restore from an older snapshot, FLUSHALL) still hands out seqs above
-- every one SQL holds, because those were taken earlier on the clock, one per claim (far
-- fewer than one a µs). If the clock steps back, INCR keeps the seqs increasing; only a clock
-- step back together with a loss of this key could hand out a seq SQL already holds, and
-- the changes so stamped would then lose to older SQL rows until the clock caught up.
-- Claims take even seqs only: an odd one, just above the shard's seq, is left for changes
-- that a recovery finds in Redis after a rollback (like_recover.lua), which must order after
-- every change claimed before the rollback and before every one claimed after it.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
now = now + now % 2
local function next_seq()
  local seq = redis.call('INCRBY', KEYS[3], 2)
  if seq < now or seq % 2 == 1 then  -- odd: a shard seq written before seqs were even
    seq = math.max(seq + seq % 2, now)
    redis.call('SET', KEYS[3], string.format('%d', seq))
  end
  now = seq + 2  -- several claims in one call: each one above the last
  return seq
end
local out, seen = {}, {}
local function claim(m, pending, inflight)
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
    out[#out + 1] = {m, redis.call('HGETALL', inflight)}
  else
    redis.call('SREM', KEYS[2], m)
  end
end
for i = 1, #ARGV do
  local m, pending, inflight = ARGV[i], KEYS[2 * i + 2], KEYS[2 * i + 3]
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
          claim(small, small_pending, small_inflight)
        end
      end
    end
  end
  if go then
    claim(m, pending, inflight)
  end
end
return out
