-- PostgreSQL: like counts follow their rows once per statement, not once per row. Migration
-- 007's row trigger updated the target's row for every changed like row: a flush of N rows
-- of one article wrote N versions of that article row, and flushes ran ~3x slower than before
-- 007 (docs/benchmarks.md, "Flush"). Now each statement of the flusher's upsert sums the
-- changes per target from its transition tables and updates each target once, in the same
-- transaction as the rows, so counts still never run ahead of (or behind) their rows.
--
-- Lock order: every writer takes its targets' row locks in (kind, id) order: articles before
-- comments, ids ascending (likes_apply_deltas locks them with ORDER BY ... FOR UPDATE before
-- it updates). The flusher writes its rows in primary-key order, in pieces whose targets only
-- ascend, and two flushers never write the same like row (each change is claimed by one), so
-- two flushers wait for each other's targets in one order only, never in a cycle.
DROP TRIGGER likes_follow_count ON likes;
DROP FUNCTION likes_follow_count();

CREATE FUNCTION likes_apply_deltas(kinds text[], ids bigint[], deltas bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM articles
    WHERE id IN (SELECT u.i FROM unnest(kinds, ids) AS u(k, i) WHERE u.k = 'a')
    ORDER BY id FOR UPDATE;
  UPDATE articles a SET like_count = a.like_count + u.d
    FROM unnest(kinds, ids, deltas) AS u(k, i, d)
    WHERE u.k = 'a' AND a.id = u.i;
  PERFORM 1 FROM comments
    WHERE id IN (SELECT u.i FROM unnest(kinds, ids) AS u(k, i) WHERE u.k = 'c')
    ORDER BY id FOR UPDATE;
  UPDATE comments c SET like_count = c.like_count + u.d
    FROM unnest(kinds, ids, deltas) AS u(k, i, d)
    WHERE u.k = 'c' AND c.id = u.i;
END;
$$;

-- Each trigger sums its statement's changes per target (one row per target, so the UPDATE ...
-- FROM above matches each target once) and skips targets whose count does not move.
CREATE FUNCTION likes_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  k text[];
  i bigint[];
  d bigint[];
BEGIN
  SELECT array_agg(s.target_type), array_agg(s.target_id), array_agg(s.delta) INTO k, i, d
    FROM (SELECT target_type, target_id, SUM(valid) AS delta FROM new_rows
          GROUP BY target_type, target_id HAVING SUM(valid) <> 0) s;
  IF k IS NOT NULL THEN
    PERFORM likes_apply_deltas(k, i, d);
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION likes_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  k text[];
  i bigint[];
  d bigint[];
BEGIN
  SELECT array_agg(s.target_type), array_agg(s.target_id), array_agg(s.delta) INTO k, i, d
    FROM (SELECT target_type, target_id, SUM(delta) AS delta
          FROM (SELECT target_type, target_id, valid AS delta FROM new_rows
                UNION ALL
                SELECT target_type, target_id, -valid AS delta FROM old_rows) c
          GROUP BY target_type, target_id HAVING SUM(delta) <> 0) s;
  IF k IS NOT NULL THEN
    PERFORM likes_apply_deltas(k, i, d);
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION likes_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  k text[];
  i bigint[];
  d bigint[];
BEGIN
  SELECT array_agg(s.target_type), array_agg(s.target_id), array_agg(s.delta) INTO k, i, d
    FROM (SELECT target_type, target_id, -SUM(valid) AS delta FROM old_rows
          GROUP BY target_type, target_id HAVING SUM(valid) <> 0) s;
  IF k IS NOT NULL THEN
    PERFORM likes_apply_deltas(k, i, d);
  END IF;
  RETURN NULL;
END;
$$;

-- Transition tables rule out a column list (UPDATE OF valid): an update that leaves valid
-- alone sums to zero and is skipped.
CREATE TRIGGER likes_count_inserted AFTER INSERT ON likes
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION likes_count_inserted();
CREATE TRIGGER likes_count_updated AFTER UPDATE ON likes
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION likes_count_updated();
CREATE TRIGGER likes_count_deleted AFTER DELETE ON likes
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION likes_count_deleted();
