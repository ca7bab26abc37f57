-- The flusher takes a batch of dirty buckets of one shard. For each member "<t>:<bucket>":
-- an in-flight hash left by an earlier (crashed or concurrent) pass is taken again as it
-- is; otherwise the pending hash is renamed to in-flight and the member leaves the dirty
-- index. New changes after this go to a fresh pending hash, so nothing arriving while the
-- batch is written to SQL is lost.
-- KEYS[1] dirty index, KEYS[2] in-flight set, KEYS[3] shard seq,
-- then per member i: KEYS[3+3i-2] pending, KEYS[3+3i-1] in-flight, KEYS[3+3i] count
-- ARGV[i] the members. Returns {seq, {member, count, {uid, "state:seq", ...}}, ...}.
local out = {}
local n = #ARGV
for i = 1, n do
  local m = ARGV[i]
  local pending, inflight, count = KEYS[3 * i + 1], KEYS[3 * i + 2], KEYS[3 * i + 3]
  if redis.call('EXISTS', inflight) == 0 then
    if redis.call('EXISTS', pending) == 1 then
      redis.call('RENAME', pending, inflight)
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
return {redis.call('GET', KEYS[3]) or '0', out}
