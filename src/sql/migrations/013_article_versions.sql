-- Every article row carries a version, raised by each change of its row (ArticleTable::Patch):
-- Redis applies an article's fields, body and list entries only when they come with a newer
-- version than the one it holds, so cache writes may arrive in any order, and a fill that
-- read SQL before a change can never overwrite what that change wrote (issue 25).
-- Rows written before this migration start at 1; their cached hashes have no version (0).
ALTER TABLE articles ADD COLUMN ver BIGINT NOT NULL DEFAULT 1;
