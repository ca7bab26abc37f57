-- The highest seq SQL committed for each like shard, written in the flusher's transaction
-- with the rows. Redis hands out every seq before SQL commits it and its shard seq only
-- grows, so a Redis shard seq below this one means Redis lost writes SQL already holds (a
-- restore from an older snapshot, a failover to a lagging replica): its like sets, counts
-- and caches of that shard are older than SQL, and plauditd recovers the shard before it
-- serves a like from it (docs/architecture.md, "After Redis comes back older").
CREATE TABLE like_shards (
  shard INTEGER PRIMARY KEY,
  seq BIGINT NOT NULL
);
INSERT INTO like_shards (shard, seq)
  SELECT target_id % 256, MAX(seq) FROM likes GROUP BY target_id % 256;
