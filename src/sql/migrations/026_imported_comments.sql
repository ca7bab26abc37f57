-- import --from (issue 49, transfer/foreign_import.hpp): which comment each comment of an
-- imported file became, by the file (its system and SHA-256) and the comment's place in it,
-- written in the transaction of the comment itself. An import run again (after a failure part
-- way, or to be sure) writes only the comments not yet written, and finds the ids of those
-- that were, for their replies.
CREATE TABLE imported_comments (
  import_key TEXT NOT NULL,
  idx BIGINT NOT NULL,
  comment_id BIGINT NOT NULL,
  PRIMARY KEY (import_key, idx)
);
