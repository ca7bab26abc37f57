-- The highest seq SQL committed per shard for a write of the article and comment caches
-- (articles and comment threads). Each such write takes a seq from its shard in Redis
-- (pl:lseq:{lN}, as a like claim does, cache_mark.lua) before its transaction, and raises
-- this row in that transaction. The check of Redis against SQL compares the shard's Redis seq
-- with the higher of this and like_shards: a Redis behind either lost writes SQL holds (a
-- restore from an older snapshot, an AOF everysec crash, a lagging replica), and its caches
-- of the shard are recovered (issue 25, item 5). A table of its own, not like_shards: article
-- and comment writes never wait on the flusher's row.
CREATE TABLE cache_shards (
  shard INTEGER PRIMARY KEY,
  seq BIGINT NOT NULL
);
-- The seq of the newest cache write committed for each article's row (cache_seq: the article
-- itself) and its comment thread (thread_seq): a cache mark whose seq is at or below it
-- belongs to a committed write, so a check may repair its cache from SQL at once; one above
-- it is a write still in progress (or rolled back), left to its writer.
ALTER TABLE articles ADD COLUMN cache_seq BIGINT NOT NULL DEFAULT 0;
ALTER TABLE articles ADD COLUMN thread_seq BIGINT NOT NULL DEFAULT 0;
