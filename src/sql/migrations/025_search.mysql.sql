-- Search (API.md "Search", issue 48): published articles and posts by their words.
--
-- One row per article: its title's and text's terms (text/search_terms.hpp: ASCII tokens of
-- three characters or more, CJK as the hex of overlapping pairs, prefixed so that none is an
-- InnoDB stopword) with InnoDB FULLTEXT indexes (both columns, for matching; the title's, for
-- weighing it), and the visible text the snippets are cut from. Written only by the indexer
-- (domain/search.hpp), which follows the change feed (article_changes); reads join
-- `articles` for the status, so a draft or a deleted article is never answered.
CREATE TABLE search_docs (
  article_id BIGINT PRIMARY KEY,
  title_terms TEXT NOT NULL,
  body_terms MEDIUMTEXT NOT NULL,
  body_text MEDIUMTEXT NOT NULL,
  FULLTEXT KEY search_docs_terms (title_terms, body_terms),
  FULLTEXT KEY search_docs_title (title_terms)
) ENGINE = InnoDB;
