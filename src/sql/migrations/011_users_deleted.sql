-- A deleted account keeps its row, so its comments and articles still name an author and its
-- username stays taken (nobody can sign up as it). deleted_at: ms since the epoch, NULL while
-- the account exists. Sessions check it on every request (domain/user_directory.hpp).
ALTER TABLE users ADD COLUMN deleted_at BIGINT;
