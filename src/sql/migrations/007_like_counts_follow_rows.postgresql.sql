-- A target's like_count is kept equal to its valid rows by the database itself, in the same
-- transaction as the rows (see the SQLite twin of this file for why). One row trigger: the
-- flusher's upsert (INSERT ... ON CONFLICT DO UPDATE) fires the INSERT trigger for a new row
-- and the UPDATE trigger for a changed one. The flusher writes rows in primary-key order, so
-- two flushers take row locks, and through this trigger the targets' row locks, in one order.
CREATE FUNCTION likes_follow_count() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta integer;
  kind text;
  target bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    delta := NEW.valid; kind := NEW.target_type; target := NEW.target_id;
  ELSIF TG_OP = 'UPDATE' THEN
    delta := NEW.valid - OLD.valid; kind := NEW.target_type; target := NEW.target_id;
  ELSE
    delta := -OLD.valid; kind := OLD.target_type; target := OLD.target_id;
  END IF;
  IF delta <> 0 THEN
    IF kind = 'a' THEN
      UPDATE articles SET like_count = like_count + delta WHERE id = target;
    ELSE
      UPDATE comments SET like_count = like_count + delta WHERE id = target;
    END IF;
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER likes_follow_count AFTER INSERT OR DELETE OR UPDATE OF valid ON likes
  FOR EACH ROW EXECUTE FUNCTION likes_follow_count();
-- Counts written ahead of their rows before this migration are repaired once.
UPDATE articles SET like_count = (SELECT COUNT(*) FROM likes l WHERE l.target_type = 'a'
  AND l.target_id = articles.id AND l.valid = 1);
UPDATE comments SET like_count = (SELECT COUNT(*) FROM likes l WHERE l.target_type = 'c'
  AND l.target_id = comments.id AND l.valid = 1);
