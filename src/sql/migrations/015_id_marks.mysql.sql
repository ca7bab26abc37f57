-- See 015_id_marks.sql. MySQL: the key column needs a length.
CREATE TABLE id_marks (
  name VARCHAR(32) PRIMARY KEY,
  last BIGINT NOT NULL
);
