-- Comment text (see 024_comment_html.sql). MySQL: a literal default on TEXT is refused, an
-- expression's is not; MEDIUMTEXT, as a 10,000-character body can render to more than
-- TEXT's 64 KiB (each newline a "<br />", each "<" a "&lt;").
ALTER TABLE comments ADD COLUMN html MEDIUMTEXT NOT NULL DEFAULT ('');
ALTER TABLE comments ADD COLUMN removed_html MEDIUMTEXT;
