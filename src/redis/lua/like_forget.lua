-- Deletes a key of a like shard that loads from SQL depend on, and moves the shard's epoch,
-- so that a load that read SQL before this reads again (like_load.lua): a target's count
-- after reconcile repaired SQL's, or a shard's recovery mark once its stale sets, counts and
-- caches are gone (like_recover.lua).
-- KEYS[1] the key (pl:lc:{s}:<t> or pl:lrm:{s}), KEYS[2] the epoch pl:lep:{s}.
--! include lib_clock.lua
--! include lib_list_version.lua
redis.call('DEL', KEYS[1])
bump_epoch(KEYS[2])
-- A dropped count reloads from SQL, maybe another: list pages showing it are not served again.
bump_list_version(KEYS[2])
return 1
