-- Checks Redis's view counts against SQL and, when Redis came back older, starts their
-- recovery under a lease, atomically. KEYS[1] the views seq pl:vseq:{views}, KEYS[2] the
-- birth mark pl:vbm:{views}, KEYS[3] the recovery mark pl:vrm:{views}; ARGV[1] the highest
-- views seq SQL committed, ARGV[2] the caller's owner token, ARGV[3] the lease in ms,
-- ARGV[4] '1' to recover even if the seq is current (the like shards found Redis older).
-- Returns 0: consistent; 1: the caller owns the recovery now (it flushes the views the older
-- Redis holds, drops every article hash, which refill from SQL, then clears the mark with
-- view_recovered.lua); 2: another process is recovering (ask again shortly).
--
-- Unlike like states, a view count lives only in the article's hash, so the hashes may be
-- dropped only while no process counts views: every process waits for the mark to clear
-- before it counts one, and only one drops (the mark's owner; another takes over when the
-- lease ran out, which a recoverer that died leaves behind). The mark has no TTL: a dropped
-- recovery must be finished, not forgotten.
local sql = tonumber(ARGV[1])
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local function own()
  redis.call('SET', KEYS[3], ARGV[2] .. ' ' .. string.format('%d', now_ms + tonumber(ARGV[3])))
  return 1
end
local mark = redis.call('GET', KEYS[3])
if mark then
  local owner, until_ms = string.match(mark, '^(%S+) (%d+)$')
  if owner == ARGV[2] or not until_ms or tonumber(until_ms) < now_ms then
    return own()
  end
  return 2
end
local function resume_seq()
  local seq = math.max(sql, now)
  redis.call('SET', KEYS[1], string.format('%d', seq))
end
local have = redis.call('GET', KEYS[1])
local born = redis.call('SET', KEYS[2], '1', 'NX') == false  -- false: it existed
if not have and (sql == 0 or not born) then
  -- Emptied since the last check (FLUSHALL), or never flushed: nothing older than SQL.
  if sql > 0 then resume_seq() end
  if ARGV[4] == '1' then return own() end
  return 0
end
if tonumber(have or '0') >= sql and ARGV[4] ~= '1' then
  return 0
end
if tonumber(have or '0') < sql then resume_seq() end
return own()
