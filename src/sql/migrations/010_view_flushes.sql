-- The highest views seq SQL committed: the seq view_stamp.lua hands a views flush after it
-- read its counts, written in that flush's transaction. Redis's views seq only grows, so a
-- Redis whose seq is below this one lost writes SQL holds (a restore from an older snapshot,
-- a failover to a lagging replica): its article hashes hold older view counts, and plauditd
-- recovers them before it counts a view (docs/architecture.md, "After Redis comes back
-- older"). Taken after the read, not at the claim: a snapshot taken between a claim and its
-- read would otherwise lack views SQL got from that read, and still pass for current.
CREATE TABLE view_flushes (
  id INTEGER PRIMARY KEY,
  seq BIGINT NOT NULL
);
INSERT INTO view_flushes (id, seq) VALUES (1, 0);
