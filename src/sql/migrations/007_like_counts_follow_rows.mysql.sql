-- A target's like_count is kept equal to its valid rows by the database itself, in the same
-- transaction as the rows (see the SQLite twin of this file for why). MySQL has row triggers
-- only (PostgreSQL's migration 012 moved to statement triggers; see 012's MySQL file). The
-- flusher's upsert (INSERT ... ON DUPLICATE KEY UPDATE) fires the INSERT trigger for a new
-- row and the UPDATE triggers for an existing one. The flusher writes rows in primary-key
-- order ('a' before 'c', ids ascending), so two flushers take the targets' row locks through
-- these triggers in one order.
CREATE TRIGGER likes_count_inserted AFTER INSERT ON likes FOR EACH ROW
BEGIN
  IF NEW.valid <> 0 THEN
    IF NEW.target_type = 'a' THEN
      UPDATE articles SET like_count = like_count + NEW.valid WHERE id = NEW.target_id;
    ELSE
      UPDATE comments SET like_count = like_count + NEW.valid WHERE id = NEW.target_id;
    END IF;
  END IF;
END;
CREATE TRIGGER likes_count_updated AFTER UPDATE ON likes FOR EACH ROW
BEGIN
  IF NEW.valid <> OLD.valid THEN
    IF NEW.target_type = 'a' THEN
      UPDATE articles SET like_count = like_count + NEW.valid - OLD.valid
        WHERE id = NEW.target_id;
    ELSE
      UPDATE comments SET like_count = like_count + NEW.valid - OLD.valid
        WHERE id = NEW.target_id;
    END IF;
  END IF;
END;
CREATE TRIGGER likes_count_deleted AFTER DELETE ON likes FOR EACH ROW
BEGIN
  IF OLD.valid <> 0 THEN
    IF OLD.target_type = 'a' THEN
      UPDATE articles SET like_count = like_count - OLD.valid WHERE id = OLD.target_id;
    ELSE
      UPDATE comments SET like_count = like_count - OLD.valid WHERE id = OLD.target_id;
    END IF;
  END IF;
END;
