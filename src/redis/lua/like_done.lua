-- After the SQL commit of a claimed batch: forget the in-flight hashes that batch claimed.
-- KEYS[1] in-flight set, KEYS[2] the shard's epoch, KEYS[3..] the in-flight hashes;
-- ARGV per hash: the member and the stamp ('#') its claim read ('' for a hash without one).
-- Only a hash still carrying that stamp is deleted: a second flusher may have retaken it,
-- written and deleted it, and a later claim made a new in-flight hash of the same name,
-- whose changes may not be in SQL yet (issue 23, defect 4). Deleting unflushed changes'
-- last copy in Redis bumps the epoch, which tells a load that read SQL before this commit
-- to read again (like_load.lua).
--! include lib_clock.lua
local deleted = 0
-- Counted by ARGV (two per hash): on Redis Cluster a last key follows the hashes (the slot
-- guard, cluster_slots.hpp).
for i = 3, 2 + #ARGV / 2 do
  local m, stamp = ARGV[2 * i - 5], ARGV[2 * i - 4]
  local have = redis.call('HGET', KEYS[i], '#')
  if have == stamp or (not have and stamp == '' and redis.call('EXISTS', KEYS[i]) == 1) then
    redis.call('DEL', KEYS[i])
    redis.call('SREM', KEYS[1], m)
    deleted = deleted + 1
  elseif not have and redis.call('EXISTS', KEYS[i]) == 0 then
    redis.call('SREM', KEYS[1], m)  -- done by another flusher already
  end
end
if deleted > 0 then
  bump_epoch(KEYS[2])
end
return deleted
