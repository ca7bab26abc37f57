-- The highest id each sequence ever handed out to a row that is gone: articles are deleted
-- outright, and their comments with them, so MAX(id) alone can fall below an id that was in
-- use. A Redis that comes back older than SQL resumes its sequences above the higher of the
-- two (domain services' ReseedIds), so no id is ever handed out twice (issue 25, found by the
-- content fault test). name: 'article' or 'comment'; written by ArticleTable::Delete.
CREATE TABLE id_marks (
  name TEXT PRIMARY KEY,
  last BIGINT NOT NULL
);
