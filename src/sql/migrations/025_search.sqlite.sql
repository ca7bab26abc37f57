-- Search (API.md "Search", issue 48): published articles and posts by their words.
--
-- One FTS5 row per article (rowid = the article's id): its title's and text's terms
-- (text/search_terms.hpp: ASCII tokens, CJK as overlapping pairs, so the plain `ascii`
-- tokenizer is all FTS5 needs) and the visible text the snippets are cut from. Written only
-- by the indexer (domain/search.hpp), which follows the change feed (article_changes) and
-- re-reads each changed article; reads join `articles` for the status, so a draft or a
-- deleted article is never answered even before the indexer has seen its change.
CREATE VIRTUAL TABLE search_index USING fts5(
  title_terms, body_terms, body_text UNINDEXED, tokenize = 'ascii'
);
