#pragma once
// The comments table (migration 005). Every write is one transaction that also keeps the
// parent's reply_count and the article's comment_count exact, and returns the new state of
// every row it changed, so the cache can apply them (versioned) without reading SQL again.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/comment.hpp"
#include "sql/cache_shards.hpp"
#include "sql/store.hpp"

namespace plaudit::sql {

struct CommentRow {
  int64_t id = 0;
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;
  int64_t author_id = 0;
  std::string author_username;
  std::string author_display_name;
  std::optional<int64_t> reply_to_id;
  std::string reply_to_username;
  std::string reply_to_display_name;
  std::string body;
  int64_t created_at_ms = 0;
  int64_t updated_at_ms = 0;
  bool deleted = false;
  int64_t reply_count = 0;
  int64_t like_count = 0;
  int64_t ver = 0;
};

// The row as the comment it is (`liked` and `replies` are the reader's: left empty).
model::Comment ToComment(const CommentRow& row);
std::vector<model::Comment> ToComments(const std::vector<CommentRow>& rows);

struct NewComment {
  int64_t id = 0;
  int64_t article_id = 0;
  std::optional<int64_t> parent_id;  // as given: may name a reply
  std::optional<int64_t> reply_to_user_id;
  int64_t author_id = 0;
  std::string body;
  int64_t now_ms = 0;
};

// What a write changed: the rows (the written comment first, then its top-level comment when
// that changed too) and the article's new comment count with its version.
struct CommentWrite {
  std::vector<CommentRow> rows;
  int64_t article_comment_count = 0;
  int64_t article_comment_ver = 0;
};

class CommentTable {
 public:
  explicit CommentTable(Store& store) : store_(store) {}

  // kInvalidArgument for a parent that is not a live comment of the article or an unknown
  // replyTo user; kAlreadyExists when the id is taken (a Redis sequence behind SQL).
  // Each write raises its shard's committed cache seq with `stamp` (sql/cache_shards.hpp).
  Awaitable<Result<CommentWrite>> Insert(NewComment c, CacheStamp stamp = {});
  // kNotFound when there is no live comment with that id.
  Awaitable<Result<CommentWrite>> Edit(int64_t id, std::string body, int64_t now_ms,
                                       CacheStamp stamp = {});
  Awaitable<Result<CommentWrite>> Delete(int64_t id, int64_t now_ms, CacheStamp stamp = {});
  Awaitable<Result<std::optional<CommentRow>>> Find(int64_t id);
  Awaitable<Result<std::vector<CommentRow>>> FindMany(std::vector<int64_t> ids);
  // One article's comments with id > after_id, by id, at most `limit` (cache rebuilds).
  Awaitable<Result<std::vector<CommentRow>>> ListForArticle(int64_t article_id, int64_t after_id,
                                                            int64_t limit);
  Awaitable<Result<int64_t>> MaxId();

 private:
  Store& store_;
};

}  // namespace plaudit::sql
