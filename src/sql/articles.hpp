#pragma once
// The articles table (migration 003). Queries are named constants in articles.cpp.
// Every create, update and delete also appends its change to the outbox (migration 009,
// sql/article_changes.hpp) in the same transaction.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/article.hpp"
#include "sql/article_changes.hpp"
#include "sql/cache_shards.hpp"
#include "sql/store.hpp"

namespace plaudit::sql {

// The article as stored: the model's fields (the author's names joined from users; content
// only when asked for) and the row's cache bookkeeping.
struct ArticleRow : model::Article {
  int64_t cache_seq = 0;   // the newest cache write committed for it (migration 014)
  int64_t thread_seq = 0;  // the same for its comment thread
};

// A member of the published list: what its Redis index needs.
struct PublishedEntry {
  int64_t id = 0;
  std::string kind;
  bool pinned = false;
  int64_t published_at_ms = 0;
  int64_t ver = 0;  // the row's version: a list entry applies only over an older one
};

struct AuthorListQuery {
  std::optional<int64_t> author_id;   // nullopt: every author (admins)
  std::optional<std::string> status;  // "draft", or nullopt for all statuses
  std::optional<std::string> kind;
  int64_t offset = 0;
  int64_t limit = 20;
  std::optional<int64_t> before_id;  // cursor: ids below this one
};

class ArticleTable {
 public:
  explicit ArticleTable(Store& store, ChangeRetention retention = {})
      : store_(store), retention_(retention) {}

  // Records a "create" change at the row's created_at. kAlreadyExists when the id is taken
  // (a Redis sequence behind SQL); then nothing is written.
  // Every write takes the cache stamp its Redis step will clear (redis/cache_marks.hpp) and
  // raises the shard's committed cache seq with it (none: tools and tests).
  Awaitable<Status> Insert(ArticleRow row, CacheStamp stamp = {});
  // Insert's statements inside a caller's transaction `tx` (a page thread inserts its page
  // row in the same one: sql/pages.hpp).
  static Status InsertIn(Connection& tx, const ArticleRow& row, CacheStamp stamp,
                         ChangeRetention retention);
  ChangeRetention retention() const { return retention_; }
  // Writes every editable column of `row` (by id) and records the change at its updated_at:
  // "publish"/"unpublish" when the status differs from the committed one it replaces, else
  // "update". Returns false (and records nothing) when there is no such row. A Patch that
  // copies the columns: for tests and tools; the service patches only what a request sent.
  Awaitable<Result<bool>> Update(ArticleRow row);
  // A read-modify-write of one row in one transaction, under the row's write lock: `apply`
  // gets the row as committed (with its content) and changes it; the changed columns are
  // written back with the change-feed entry. Concurrent patches of one article serialize, so
  // none is lost (issue 25, item 1). An error from `apply` is returned as it is, with nothing
  // written. nullopt: no such article. `apply` runs on a SQL pool thread.
  struct Patched {
    ArticleRow row;                                                  // as committed
    model::ArticleStatus old_status = model::ArticleStatus::kDraft;  // the status it replaced
  };
  Awaitable<Result<std::optional<Patched>>> Patch(int64_t id,
                                                  std::function<Status(ArticleRow&)> apply,
                                                  CacheStamp stamp = {});
  // Deletes the article and what hangs off it, and records a "delete" change at `at_ms`.
  // The article's row goes first, so on PostgreSQL a comment insert racing the delete either
  // commits before it (and its row is deleted with the others) or finds no article and rolls
  // back: no comment outlives its article. Returns the ids of the comments deleted with it
  // (their cached hashes go too), or nullopt (recording nothing) when there was no such row.
  Awaitable<Result<std::optional<std::vector<int64_t>>>> Delete(int64_t id, int64_t at_ms,
                                                                CacheStamp stamp = {});
  Awaitable<Result<std::optional<ArticleRow>>> Find(int64_t id, bool with_content);
  // Rows for `ids` (any order; missing ids are absent), without content.
  Awaitable<Result<std::vector<ArticleRow>>> FindMany(std::vector<int64_t> ids);
  Awaitable<Result<int64_t>> MaxId();
  // Whether the change feed records a delete of the article (within its retention): an
  // absent row is then a deleted article, not one whose create has not committed yet.
  Awaitable<Result<bool>> WasDeleted(int64_t id);
  // Published articles after `after_id`, by id, at most `limit` (to rebuild list indexes).
  Awaitable<Result<std::vector<PublishedEntry>>> PublishedAfter(int64_t after_id, int64_t limit);
  // Lists by author/status from SQL (the caller's drafts: low traffic), newest id first;
  // with the total count.
  Awaitable<Result<std::pair<std::vector<ArticleRow>, int64_t>>> ListForAuthor(AuthorListQuery q);
  // Sets absolute view counts (never lowers one: a replayed older value is harmless).
  // Raises each count (never lowers one) and the highest views seq committed to `stamp`, in
  // one transaction (view_flushes, migration 010).
  Awaitable<Status> SetViewCounts(std::vector<std::pair<int64_t, int64_t>> id_views, int64_t stamp);
  Awaitable<Result<int64_t>> ViewSeq();

 private:
  Store& store_;
  ChangeRetention retention_;
};

}  // namespace plaudit::sql
