-- PostgreSQL keeps its heap and primary-key index (006 is SQLite's WITHOUT ROWID rebuild of
-- the likes table); this file keeps the two dialects' versions in step.
SELECT 1;
