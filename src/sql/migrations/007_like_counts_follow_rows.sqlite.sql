-- A target's like_count is kept equal to its valid rows by the database itself, in the same
-- transaction as the rows: a trigger per row change. Until now the flusher wrote the count it
-- read from Redis beside the rows it claimed, and for a target split into buckets a claim that
-- took only some of its buckets wrote a count that already included the changes of the others
-- (issue 23, defect 3): after a Redis loss the count reloaded too high. Now no writer can put a
-- count ahead of (or behind) its rows. like_seq is no longer read or written.
CREATE TRIGGER likes_article_insert AFTER INSERT ON likes
  WHEN NEW.target_type = 'a' AND NEW.valid = 1
BEGIN
  UPDATE articles SET like_count = like_count + 1 WHERE id = NEW.target_id;
END;
CREATE TRIGGER likes_article_update AFTER UPDATE OF valid ON likes
  WHEN NEW.target_type = 'a' AND NEW.valid <> OLD.valid
BEGIN
  UPDATE articles SET like_count = like_count + NEW.valid - OLD.valid WHERE id = NEW.target_id;
END;
CREATE TRIGGER likes_article_delete AFTER DELETE ON likes
  WHEN OLD.target_type = 'a' AND OLD.valid = 1
BEGIN
  UPDATE articles SET like_count = like_count - 1 WHERE id = OLD.target_id;
END;
CREATE TRIGGER likes_comment_insert AFTER INSERT ON likes
  WHEN NEW.target_type = 'c' AND NEW.valid = 1
BEGIN
  UPDATE comments SET like_count = like_count + 1 WHERE id = NEW.target_id;
END;
CREATE TRIGGER likes_comment_update AFTER UPDATE OF valid ON likes
  WHEN NEW.target_type = 'c' AND NEW.valid <> OLD.valid
BEGIN
  UPDATE comments SET like_count = like_count + NEW.valid - OLD.valid WHERE id = NEW.target_id;
END;
CREATE TRIGGER likes_comment_delete AFTER DELETE ON likes
  WHEN OLD.target_type = 'c' AND OLD.valid = 1
BEGIN
  UPDATE comments SET like_count = like_count - 1 WHERE id = OLD.target_id;
END;
-- Counts written ahead of their rows before this migration are repaired once.
UPDATE articles SET like_count = (SELECT COUNT(*) FROM likes l WHERE l.target_type = 'a'
  AND l.target_id = articles.id AND l.valid = 1);
UPDATE comments SET like_count = (SELECT COUNT(*) FROM likes l WHERE l.target_type = 'c'
  AND l.target_id = comments.id AND l.valid = 1);
