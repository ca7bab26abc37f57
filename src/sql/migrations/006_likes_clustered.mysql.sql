-- InnoDB already keeps a table in its primary key's order (006 is SQLite's WITHOUT ROWID
-- rebuild of the likes table); this file keeps the dialects' versions in step.
SELECT 1;
