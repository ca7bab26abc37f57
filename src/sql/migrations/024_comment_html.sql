-- Comment text (API.md "Comment text", issue 48): a comment's body is Markdown, rendered once
-- when it is written (text/markdown.hpp: cmark, then the sanitiser's allow-list) and kept
-- here, so that no read renders it. removed_html is html's twin of removed_body (019): what
-- a moderator's delete took, given back by `restore`.
-- Rows from before this migration have html = '': plauditd renders them once at start-up,
-- before it serves (domain/comment_text_backfill.hpp), and readers show `body` as text while
-- html is empty.
ALTER TABLE comments ADD COLUMN html TEXT NOT NULL DEFAULT '';
ALTER TABLE comments ADD COLUMN removed_html TEXT;
