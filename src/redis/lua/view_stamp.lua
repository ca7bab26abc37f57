-- A views flush's stamp, taken after it read its counts: the next views seq (max(INCR, the
-- clock in µs), as view_claim.lua takes it). The flush commits it to SQL with the counts
-- (view_flushes), so a Redis whose seq is below SQL's is older than some count SQL holds.
-- KEYS[1] the seq pl:vseq:{views}. Returns the seq as a string.
--! include lib_clock.lua
return next_seq(KEYS[1])
