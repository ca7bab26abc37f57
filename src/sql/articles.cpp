#include "sql/articles.hpp"

#include <algorithm>

#include "sql/dialect.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await: GCC 12
// destroys such a temporary twice when its captures are not trivial.

constexpr std::string_view kInsert =
    "INSERT INTO articles (id, kind, author_id, title, summary, content, status, pinned, "
    "allow_comments, created_at, updated_at, published_at, cache_seq, moderation) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)";
constexpr std::string_view kUpdate =
    "UPDATE articles SET title = $2, summary = $3, content = $4, status = $5, pinned = $6, "
    "allow_comments = $7, updated_at = $8, published_at = $9, ver = $10, "
    "cache_seq = CASE WHEN cache_seq < $11 THEN $11 ELSE cache_seq END, moderation = $12 "
    "WHERE id = $1";
constexpr std::string_view kDelete = "DELETE FROM articles WHERE id = $1";
constexpr std::string_view kDeleteLikes =
    "DELETE FROM likes WHERE target_type = 'a' AND target_id = $1";
constexpr std::string_view kDeleteCommentLikes =
    "DELETE FROM likes WHERE target_type = 'c' AND target_id IN "
    "(SELECT id FROM comments WHERE article_id = $1)";
constexpr std::string_view kDeleteComments = "DELETE FROM comments WHERE article_id = $1";
constexpr std::string_view kCommentIds = "SELECT id FROM comments WHERE article_id = $1";
constexpr std::string_view kColumns =
    "SELECT a.id, a.kind, a.author_id, u.username, u.display_name, a.title, a.summary, "
    "a.status, a.pinned, a.allow_comments, a.created_at, a.updated_at, a.published_at, "
    "a.view_count, a.like_count, a.comment_count, a.comment_ver, a.ver, a.cache_seq, "
    "a.thread_seq, a.moderation";
constexpr std::string_view kFrom = " FROM articles a JOIN users u ON u.id = a.author_id ";
// Also ids of deleted articles (migration 015).
constexpr std::string_view kMaxId =
    "SELECT MAX(m) FROM (SELECT COALESCE(MAX(id), 0) AS m FROM articles UNION ALL "
    "SELECT last AS m FROM id_marks WHERE name = 'article') s";
constexpr std::string_view kWasDeleted =
    "SELECT COUNT(*) FROM article_changes WHERE article_id = $1 AND op = 'delete'";
constexpr std::string_view kMarkIds =
    "INSERT INTO id_marks (name, last) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET "
    "last = excluded.last WHERE id_marks.last < excluded.last";
constexpr std::string_view kMarkIdsMysql =
    "INSERT INTO id_marks (name, last) VALUES ($1, $2) "
    "ON DUPLICATE KEY UPDATE last = GREATEST(last, VALUES(last))";
// MariaDB has no FOR UPDATE OF: the article's row is locked on its own first.
constexpr std::string_view kLockMysql = "SELECT id FROM articles WHERE id = $1 FOR UPDATE";
constexpr std::string_view kPublishedAfter =
    "SELECT id, kind, pinned, published_at, ver FROM articles "
    "WHERE status = 'published' AND kind <> 'page' AND id > $1 ORDER BY id LIMIT $2";
constexpr std::string_view kSetViews =
    "UPDATE articles SET view_count = $2 WHERE id = $1 AND view_count < $2";
constexpr std::string_view kRaiseViewSeq =
    "UPDATE view_flushes SET seq = $1 WHERE id = 1 AND seq < $1";
constexpr std::string_view kViewSeq = "SELECT seq FROM view_flushes WHERE id = 1";

Value Bool(bool b) { return int64_t{b ? 1 : 0}; }

ArticleRow FromRow(const Row& r, bool with_content) {
  ArticleRow a;
  a.id = Int(r[0]);
  a.kind = model::ParseKind(Text(r[1])).value_or(model::ArticleKind::kPost);
  a.author_id = Int(r[2]);
  a.author_username = Text(r[3]);
  a.author_display_name = Text(r[4]);
  a.title = Text(r[5]);
  a.summary = Text(r[6]);
  a.status = model::ParseStatus(Text(r[7])).value_or(model::ArticleStatus::kDraft);
  a.pinned = Int(r[8]) != 0;
  a.allow_comments = Int(r[9]) != 0;
  a.created_at_ms = Int(r[10]);
  a.updated_at_ms = Int(r[11]);
  a.published_at_ms = OptionalInt(r[12]);
  a.view_count = Int(r[13]);
  a.like_count = Int(r[14]);
  a.comment_count = Int(r[15]);
  a.comment_ver = Int(r[16]);
  a.ver = Int(r[17]);
  a.cache_seq = Int(r[18]);
  a.thread_seq = Int(r[19]);
  a.moderation = IsNull(r[20]) ? std::string() : Text(r[20]);
  if (with_content) {
    a.content = Text(r[21]);
  }
  return a;
}

// FromRow as a row reader: kColumns (with a.content after them).
ArticleRow WithoutContent(const Row& r) { return FromRow(r, /*with_content=*/false); }
ArticleRow WithContent(const Row& r) { return FromRow(r, /*with_content=*/true); }

Value Kind(const ArticleRow& a) { return std::string(model::KindName(a.kind)); }
Value StatusOf(model::ArticleStatus s) { return std::string(model::StatusName(s)); }
Value Content(const ArticleRow& a) { return a.content.value_or(std::string()); }
// NULL: the server's policy.
Value Moderation(const ArticleRow& a) {
  return a.moderation.empty() ? Value{nullptr} : Value{a.moderation};
}

}  // namespace

Status ArticleTable::InsertIn(Connection& tx, const ArticleRow& a, CacheStamp stamp,
                              ChangeRetention retention) {
  PL_CHECK(tx.Query(kInsert,
                    {a.id, Kind(a), a.author_id, a.title, a.summary, Content(a), StatusOf(a.status),
                     Bool(a.pinned), Bool(a.allow_comments), a.created_at_ms, a.updated_at_ms,
                     Nullable(a.published_at_ms), stamp.seq, Moderation(a)}));
  PL_CHECK(AppendChange(tx, a.id, "create", a.created_at_ms, retention));
  return RaiseCacheShard(tx, stamp);
}

Awaitable<Status> ArticleTable::Insert(ArticleRow a, CacheStamp stamp) {
  std::function<Result<bool>(Connection&)> job = [a = std::move(a), retention = retention_,
                                                  stamp](Connection& c) -> Result<bool> {
    auto st =
        c.Transaction([&](Connection& tx) -> Status { return InsertIn(tx, a, stamp, retention); });
    PL_CHECK(st);
    return true;
  };
  PL_CO_CHECK(co_await store_.Run<bool>(std::move(job)));
  co_return Status{};
}

Awaitable<Result<bool>> ArticleTable::Update(ArticleRow a) {
  const int64_t id = a.id;
  std::function<Status(ArticleRow&)> apply = [a = std::move(a)](ArticleRow& row) -> Status {
    row.title = a.title;
    row.summary = a.summary;
    row.content = a.content;
    row.status = a.status;
    row.pinned = a.pinned;
    row.allow_comments = a.allow_comments;
    row.moderation = a.moderation;
    row.updated_at_ms = a.updated_at_ms;
    row.published_at_ms = a.published_at_ms;
    return {};
  };
  PL_CO_TRY(auto patched, co_await Patch(id, std::move(apply)));
  co_return patched.has_value();
}

Awaitable<Result<std::optional<ArticleTable::Patched>>> ArticleTable::Patch(
    int64_t id, std::function<Status(ArticleRow&)> apply, CacheStamp stamp) {
  std::function<Result<std::optional<Patched>>(Connection&)> job =
      [id, apply = std::move(apply), retention = retention_,
       stamp](Connection& c) -> Result<std::optional<Patched>> {
    std::optional<Patched> out;
    auto st = c.Transaction([&](Connection& tx) -> Status {
      // The row as committed, read in the transaction: PostgreSQL locks the article's row
      // (not the author's); SQLite's BEGIN IMMEDIATE already holds the database's write lock.
      // So the change applies to the latest row, and the recorded op follows the committed
      // status, not what the caller read before (two concurrent publishes of one draft: one
      // "publish", one "update").
      if (tx.dialect() == Dialect::kMysql) {
        PL_CHECK(tx.Query(kLockMysql, {id}));
      }
      const std::string sql = std::string(kColumns) + ", a.content" + std::string(kFrom) +
                              "WHERE a.id = $1" +
                              (tx.dialect() == Dialect::kPostgres ? " FOR UPDATE OF a" : "");
      PL_TRY(auto row, tx.QueryRow(sql, {id}, WithContent));
      if (!row) {
        return {};
      }
      Patched p;
      p.row = std::move(*row);
      p.old_status = p.row.status;
      const int64_t ver = p.row.ver + 1;
      if (auto applied = apply(p.row); !applied) {
        return applied;
      }
      p.row.ver = ver;
      const ArticleRow& a = p.row;
      PL_CHECK(tx.Query(kUpdate, {a.id, a.title, a.summary, Content(a), StatusOf(a.status),
                                  Bool(a.pinned), Bool(a.allow_comments), a.updated_at_ms,
                                  Nullable(a.published_at_ms), ver, stamp.seq, Moderation(a)}));
      PL_CHECK(AppendChange(tx, a.id,
                            UpdateOp(model::StatusName(p.old_status), model::StatusName(a.status)),
                            a.updated_at_ms, retention));
      out = std::move(p);
      return RaiseCacheShard(tx, stamp);
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.Run<std::optional<Patched>>(std::move(job));
}

Awaitable<Result<std::optional<std::vector<int64_t>>>> ArticleTable::Delete(int64_t id,
                                                                            int64_t at_ms,
                                                                            CacheStamp stamp) {
  using Out = std::optional<std::vector<int64_t>>;
  std::function<Result<Out>(Connection&)> job = [id, at_ms, retention = retention_,
                                                 stamp](Connection& c) -> Result<Out> {
    Out out;
    auto st = c.Transaction([&](Connection& tx) -> Status {
      // The article's row first: on PostgreSQL it waits for a comment insert that already
      // counted itself on the row (and then sees that comment below), and a later insert's
      // count update finds no row and rolls back (sql/comments.cpp).
      PL_TRY(auto r, tx.Query(kDelete, {id}));
      if (r.affected == 0) {
        return {};
      }
      PL_TRY(auto comment_ids, tx.QueryInts(kCommentIds, {id}));
      // Their ids leave MAX(id): keep them as the sequences' floors (migration 015).
      const std::string_view mark = tx.dialect() == Dialect::kMysql ? kMarkIdsMysql : kMarkIds;
      PL_CHECK(tx.Query(mark, {std::string("article"), id}));
      if (!comment_ids.empty()) {
        const int64_t top = *std::max_element(comment_ids.begin(), comment_ids.end());
        PL_CHECK(tx.Query(mark, {std::string("comment"), top}));
      }
      // Rows that hang off the article (its likes, its comments and their likes) go in the
      // same transaction.
      if (tx.dialect() == Dialect::kMysql) {
        // MySQL refuses a statement whose trigger writes a table the statement reads (1442):
        // the comments' likes go by their ids, not through a subquery of comments.
        PL_CHECK(tx.Query(kDeleteLikes, {id}));
        PL_CHECK(DeleteLikesOf(tx, 'c', comment_ids));
        PL_CHECK(tx.Query(kDeleteComments, {id}));
      } else {
        for (auto sql : {kDeleteLikes, kDeleteCommentLikes, kDeleteComments}) {
          PL_CHECK(tx.Query(sql, {id}));
        }
      }
      PL_CHECK(AppendChange(tx, id, "delete", at_ms, retention));
      out = std::move(comment_ids);
      return RaiseCacheShard(tx, stamp);
    });
    PL_CHECK(st);
    return out;
  };
  co_return co_await store_.Run<Out>(std::move(job));
}

Awaitable<Result<std::optional<ArticleRow>>> ArticleTable::Find(int64_t id, bool with_content) {
  std::function<Result<std::optional<ArticleRow>>(Connection&)> job =
      [id, with_content](Connection& c) -> Result<std::optional<ArticleRow>> {
    std::string sql = std::string(kColumns) + (with_content ? ", a.content" : "") +
                      std::string(kFrom) + "WHERE a.id = $1";
    return c.QueryRow(sql, {id}, with_content ? WithContent : WithoutContent);
  };
  co_return co_await store_.Run<std::optional<ArticleRow>>(std::move(job));
}

Awaitable<Result<std::vector<ArticleRow>>> ArticleTable::FindMany(std::vector<int64_t> ids) {
  std::function<Result<std::vector<ArticleRow>>(Connection&)> job =
      [ids = std::move(ids)](Connection& c) -> Result<std::vector<ArticleRow>> {
    if (ids.empty()) {
      return std::vector<ArticleRow>{};
    }
    std::vector<Value> params;
    const std::string sql =
        std::string(kColumns) + std::string(kFrom) + "WHERE a.id IN " + InList(ids, params);
    return c.QueryRows(sql, params, WithoutContent);
  };
  co_return co_await store_.Run<std::vector<ArticleRow>>(std::move(job));
}

Awaitable<Result<int64_t>> ArticleTable::MaxId() {
  PL_CO_TRY(auto max, co_await store_.QueryInt(kMaxId));
  co_return max.value_or(0);
}

Awaitable<Result<bool>> ArticleTable::WasDeleted(int64_t id) {
  std::vector<Value> params{id};
  PL_CO_TRY(auto deletes, co_await store_.QueryInt(kWasDeleted, std::move(params)));
  co_return deletes.value_or(0) > 0;
}

Awaitable<Result<std::vector<PublishedEntry>>> ArticleTable::PublishedAfter(int64_t after_id,
                                                                            int64_t limit) {
  std::function<Result<std::vector<PublishedEntry>>(Connection&)> job =
      [after_id, limit](Connection& c) -> Result<std::vector<PublishedEntry>> {
    return c.QueryRows(kPublishedAfter, {after_id, limit}, [](const Row& row) {
      return PublishedEntry{Int(row[0]), Text(row[1]), Int(row[2]) != 0, Int(row[3]), Int(row[4])};
    });
  };
  co_return co_await store_.Run<std::vector<PublishedEntry>>(std::move(job));
}

Awaitable<Result<std::pair<std::vector<ArticleRow>, int64_t>>> ArticleTable::ListForAuthor(
    AuthorListQuery q) {
  using Out = std::pair<std::vector<ArticleRow>, int64_t>;
  std::function<Result<Out>(Connection&)> job = [q = std::move(q)](Connection& c) -> Result<Out> {
    // Only fixed fragments are appended; every value is a bound parameter.
    std::string where = "WHERE a.kind <> 'page'";  // page threads are never listed
    std::vector<Value> params;
    auto add = [&](std::string_view column, Value v) {
      params.push_back(std::move(v));
      where += " AND " + std::string(column) + " = $" + std::to_string(params.size());
    };
    if (q.author_id) {
      add("a.author_id", *q.author_id);
    }
    if (q.status) {
      add("a.status", *q.status);
    }
    if (q.kind) {
      add("a.kind", *q.kind);
    }
    PL_TRY(auto count, c.QueryInt("SELECT COUNT(*) FROM articles a " + where, params));
    std::string page_where = where;
    std::vector<Value> page_params = params;
    if (q.before_id) {
      page_params.push_back(*q.before_id);
      page_where += " AND a.id < $" + std::to_string(page_params.size());
    }
    page_params.push_back(q.limit);
    std::string sql = std::string(kColumns) + std::string(kFrom) + page_where +
                      " ORDER BY a.id DESC LIMIT $" + std::to_string(page_params.size());
    if (!q.before_id) {
      page_params.push_back(q.offset);
      sql += " OFFSET $" + std::to_string(page_params.size());
    }
    PL_TRY(auto rows, c.QueryRows(sql, page_params, WithoutContent));
    return Out(std::move(rows), count.value_or(0));
  };
  co_return co_await store_.Run<Out>(std::move(job));
}

Awaitable<Status> ArticleTable::SetViewCounts(std::vector<std::pair<int64_t, int64_t>> views,
                                              int64_t stamp) {
  // In id order: two flush passes (two instances) may write overlapping batches at once,
  // and rows locked in one order cannot deadlock on PostgreSQL.
  std::sort(views.begin(), views.end());
  std::function<Result<bool>(Connection&)> job = [views = std::move(views),
                                                  stamp](Connection& c) -> Result<bool> {
    auto st = c.Transaction([&](Connection& tx) -> Status {
      for (const auto& [id, n] : views) {
        PL_CHECK(tx.Query(kSetViews, {id, n}));
      }
      // Last: the one row every views flush writes is held for the shortest time.
      PL_CHECK(tx.Query(kRaiseViewSeq, {stamp}));
      return {};
    });
    PL_CHECK(st);
    return true;
  };
  PL_CO_CHECK(co_await store_.Run<bool>(std::move(job)));
  co_return Status{};
}

Awaitable<Result<int64_t>> ArticleTable::ViewSeq() {
  PL_CO_TRY(auto seq, co_await store_.QueryInt(kViewSeq));
  co_return seq.value_or(0);
}

}  // namespace plaudit::sql
