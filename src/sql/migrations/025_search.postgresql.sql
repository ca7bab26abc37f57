-- Search (API.md "Search", issue 48): published articles and posts by their words.
--
-- One row per article: the visible text the snippets are cut from, and a tsvector of its
-- terms (text/search_terms.hpp: ASCII tokens, CJK as overlapping pairs), the title's weighted
-- A and the text's B, with a GIN index. The terms are made by plauditd, not by a text search
-- configuration, so SQLite, PostgreSQL and MariaDB find the same articles. Written only by
-- the indexer (domain/search.hpp), which follows the change feed (article_changes); reads
-- join `articles` for the status, so a draft or a deleted article is never answered.
CREATE TABLE search_docs (
  article_id BIGINT PRIMARY KEY,
  body_text TEXT NOT NULL,
  terms TSVECTOR NOT NULL
);
CREATE INDEX search_docs_terms ON search_docs USING GIN (terms);
