#include "sql/comments.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await (GCC 12).

constexpr std::string_view kSelect =
    "SELECT c.id, c.article_id, c.parent_id, c.author_id, u.username, u.display_name, "
    "c.reply_to_user_id, r.username, r.display_name, c.body, c.created_at, c.updated_at, "
    "c.deleted, c.reply_count, c.like_count, c.ver FROM comments c "
    "JOIN users u ON u.id = c.author_id LEFT JOIN users r ON r.id = c.reply_to_user_id ";
constexpr std::string_view kParent =
    "SELECT article_id, parent_id, author_id, deleted FROM comments WHERE id = $1";
constexpr std::string_view kUserExists = "SELECT 1 FROM users WHERE id = $1";
constexpr std::string_view kIdTaken = "SELECT 1 FROM comments WHERE id = $1";
constexpr std::string_view kInsert =
    "INSERT INTO comments (id, article_id, parent_id, author_id, reply_to_user_id, body, "
    "created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)";
constexpr std::string_view kAddReplies =
    "UPDATE comments SET reply_count = reply_count + $2, ver = ver + 1 WHERE id = $1";
// Also raises the article's thread_seq to the write's cache stamp (migration 014).
constexpr std::string_view kAddToArticle =
    "UPDATE articles SET comment_count = comment_count + $2, comment_ver = comment_ver + 1, "
    "thread_seq = CASE WHEN thread_seq < $3 THEN $3 ELSE thread_seq END WHERE id = $1";
constexpr std::string_view kThreadSeq =
    "UPDATE articles SET thread_seq = CASE WHEN thread_seq < $2 THEN $2 ELSE thread_seq END "
    "WHERE id = $1";
constexpr std::string_view kArticleCount =
    "SELECT comment_count, comment_ver FROM articles WHERE id = $1";
constexpr std::string_view kEdit =
    "UPDATE comments SET body = $2, updated_at = $3, ver = ver + 1 WHERE id = $1 AND deleted = 0";
constexpr std::string_view kLive =
    "SELECT article_id, parent_id FROM comments WHERE id = $1 AND deleted = 0";
constexpr std::string_view kDelete =
    "UPDATE comments SET deleted = 1, body = '', updated_at = $2, ver = ver + 1 "
    "WHERE id = $1 AND deleted = 0";
// Also ids of comments deleted with their article (migration 015).
constexpr std::string_view kMaxId =
    "SELECT MAX(m) FROM (SELECT COALESCE(MAX(id), 0) AS m FROM comments UNION ALL "
    "SELECT last AS m FROM id_marks WHERE name = 'comment') s";

CommentRow FromRow(const Row& r) {
  CommentRow c;
  c.id = Int(r[0]);
  c.article_id = Int(r[1]);
  if (!IsNull(r[2])) c.parent_id = Int(r[2]);
  c.author_id = Int(r[3]);
  c.author_username = Text(r[4]);
  c.author_display_name = Text(r[5]);
  if (!IsNull(r[6])) {
    c.reply_to_id = Int(r[6]);
    c.reply_to_username = Text(r[7]);
    c.reply_to_display_name = Text(r[8]);
  }
  c.body = Text(r[9]);
  c.created_at_ms = Int(r[10]);
  c.updated_at_ms = Int(r[11]);
  c.deleted = Int(r[12]) != 0;
  c.reply_count = Int(r[13]);
  c.like_count = Int(r[14]);
  c.ver = Int(r[15]);
  return c;
}

Value OptionalId(const std::optional<int64_t>& id) { return id ? Value{*id} : Value{nullptr}; }

// Reads back what a write changed: `ids` in order, then the article's count.
Status ReadBack(Connection& tx, const std::vector<int64_t>& ids, int64_t article_id,
                CommentWrite& out) {
  for (int64_t id : ids) {
    auto r = tx.Query(std::string(kSelect) + "WHERE c.id = $1", {id});
    if (!r) return tl::unexpected(r.error());
    if (r->rows.empty()) return Fail(ErrorCode::kInternal, "comment vanished in its transaction");
    out.rows.push_back(FromRow(r->rows[0]));
  }
  auto a = tx.Query(kArticleCount, {article_id});
  if (!a) return tl::unexpected(a.error());
  if (a->rows.empty()) return Fail(ErrorCode::kNotFound, "no such article");
  out.article_comment_count = Int(a->rows[0][0]);
  out.article_comment_ver = Int(a->rows[0][1]);
  return {};
}

}  // namespace

model::Comment ToComment(const CommentRow& r) {
  model::Comment c;
  c.id = r.id;
  c.article_id = r.article_id;
  c.parent_id = r.parent_id;
  c.author = {r.author_id, r.author_username, r.author_display_name};
  if (r.reply_to_id) {
    c.reply_to = model::CommentUser{*r.reply_to_id, r.reply_to_username, r.reply_to_display_name};
  }
  c.body = r.body;
  c.created_at_ms = r.created_at_ms;
  c.updated_at_ms = r.updated_at_ms;
  c.deleted = r.deleted;
  c.reply_count = r.reply_count;
  c.like_count = r.like_count;
  c.ver = r.ver;
  return c;
}

std::vector<model::Comment> ToComments(const std::vector<CommentRow>& rows) {
  std::vector<model::Comment> out;
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(ToComment(r));
  return out;
}

Awaitable<Result<CommentWrite>> CommentTable::Insert(NewComment c, CacheStamp stamp) {
  std::function<Result<CommentWrite>(Connection&)> job =
      [c = std::move(c), stamp](Connection& conn) -> Result<CommentWrite> {
    CommentWrite out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      std::optional<int64_t> top;
      std::optional<int64_t> reply_to = c.reply_to_user_id;
      if (c.parent_id) {
        auto p = tx.Query(kParent, {*c.parent_id});
        if (!p) return tl::unexpected(p.error());
        if (p->rows.empty() || Int(p->rows[0][0]) != c.article_id || Int(p->rows[0][3]) != 0) {
          return Fail(ErrorCode::kInvalidArgument,
                      "parentId must be a live comment of this article");
        }
        const Row& parent = p->rows[0];
        if (IsNull(parent[1])) {
          top = *c.parent_id;
        } else {
          // A reply to a reply: placed under the same top-level comment, answering its author.
          top = Int(parent[1]);
          reply_to = Int(parent[2]);
        }
      }
      if (reply_to && reply_to != c.author_id) {
        auto u = tx.Query(kUserExists, {*reply_to});
        if (!u) return tl::unexpected(u.error());
        if (u->rows.empty())
          return Fail(ErrorCode::kInvalidArgument, "replyToUserId: no such user");
      }
      auto taken = tx.Query(kIdTaken, {c.id});
      if (!taken) return tl::unexpected(taken.error());
      if (!taken->rows.empty()) return Fail(ErrorCode::kAlreadyExists, "comment id taken");
      // The article's row first, then comment rows: the order an article delete and the like
      // flush lock them in, so none of them can deadlock with another on PostgreSQL.
      auto a = tx.Query(kAddToArticle, {c.article_id, int64_t{1}, stamp.seq});
      if (!a) return tl::unexpected(a.error());
      if (a->affected == 0) return Fail(ErrorCode::kNotFound, "no such article");
      auto ins = tx.Query(kInsert, {c.id, c.article_id, OptionalId(top), c.author_id,
                                    OptionalId(reply_to), c.body, c.now_ms});
      if (!ins) return tl::unexpected(ins.error());
      std::vector<int64_t> ids{c.id};
      if (top) {
        auto r = tx.Query(kAddReplies, {*top, int64_t{1}});
        if (!r) return tl::unexpected(r.error());
        ids.push_back(*top);
      }
      if (auto read = ReadBack(tx, ids, c.article_id, out); !read) return read;
      return RaiseCacheShard(tx, stamp);
    });
    if (!st) return tl::unexpected(st.error());
    return out;
  };
  co_return co_await store_.Run<CommentWrite>(std::move(job));
}

Awaitable<Result<CommentWrite>> CommentTable::Edit(int64_t id, std::string body, int64_t now_ms,
                                                   CacheStamp stamp) {
  std::function<Result<CommentWrite>(Connection&)> job =
      [id, body = std::move(body), now_ms, stamp](Connection& conn) -> Result<CommentWrite> {
    CommentWrite out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      auto live = tx.Query(kLive, {id});
      if (!live) return tl::unexpected(live.error());
      if (live->rows.empty()) return Fail(ErrorCode::kNotFound, "no such comment");
      // The article's row first (the lock order of Insert and Delete).
      auto t = tx.Query(kThreadSeq, {Int(live->rows[0][0]), stamp.seq});
      if (!t) return tl::unexpected(t.error());
      auto r = tx.Query(kEdit, {id, body, now_ms});
      if (!r) return tl::unexpected(r.error());
      if (r->affected == 0) return Fail(ErrorCode::kNotFound, "no such comment");
      const std::vector<int64_t> ids{id};
      if (auto read = ReadBack(tx, ids, Int(live->rows[0][0]), out); !read) return read;
      return RaiseCacheShard(tx, stamp);
    });
    if (!st) return tl::unexpected(st.error());
    return out;
  };
  co_return co_await store_.Run<CommentWrite>(std::move(job));
}

Awaitable<Result<CommentWrite>> CommentTable::Delete(int64_t id, int64_t now_ms, CacheStamp stamp) {
  std::function<Result<CommentWrite>(Connection&)> job =
      [id, now_ms, stamp](Connection& conn) -> Result<CommentWrite> {
    CommentWrite out;
    auto st = conn.Transaction([&](Connection& tx) -> Status {
      auto live = tx.Query(kLive, {id});
      if (!live) return tl::unexpected(live.error());
      if (live->rows.empty()) return Fail(ErrorCode::kNotFound, "no such comment");
      const int64_t article_id = Int(live->rows[0][0]);
      std::vector<int64_t> ids{id};
      // The article's row first (see Insert). Then the conditional UPDATE decides who deleted
      // the comment: a concurrent second delete fails here and rolls back, counting nothing.
      auto a = tx.Query(kAddToArticle, {article_id, int64_t{-1}, stamp.seq});
      if (!a) return tl::unexpected(a.error());
      auto r = tx.Query(kDelete, {id, now_ms});
      if (!r) return tl::unexpected(r.error());
      if (r->affected == 0) return Fail(ErrorCode::kNotFound, "no such comment");
      if (!IsNull(live->rows[0][1])) {
        const int64_t top = Int(live->rows[0][1]);
        auto p = tx.Query(kAddReplies, {top, int64_t{-1}});
        if (!p) return tl::unexpected(p.error());
        ids.push_back(top);
      }
      if (auto read = ReadBack(tx, ids, article_id, out); !read) return read;
      return RaiseCacheShard(tx, stamp);
    });
    if (!st) return tl::unexpected(st.error());
    return out;
  };
  co_return co_await store_.Run<CommentWrite>(std::move(job));
}

Awaitable<Result<std::optional<CommentRow>>> CommentTable::Find(int64_t id) {
  std::function<Result<std::optional<CommentRow>>(Connection&)> job =
      [id](Connection& c) -> Result<std::optional<CommentRow>> {
    auto r = c.Query(std::string(kSelect) + "WHERE c.id = $1", {id});
    if (!r) return tl::unexpected(r.error());
    if (r->rows.empty()) return std::optional<CommentRow>{};
    return std::optional<CommentRow>(FromRow(r->rows[0]));
  };
  co_return co_await store_.Run<std::optional<CommentRow>>(std::move(job));
}

Awaitable<Result<std::vector<CommentRow>>> CommentTable::FindMany(std::vector<int64_t> ids) {
  std::function<Result<std::vector<CommentRow>>(Connection&)> job =
      [ids = std::move(ids)](Connection& c) -> Result<std::vector<CommentRow>> {
    std::vector<CommentRow> out;
    if (ids.empty()) return out;
    std::vector<Value> params;
    const std::string sql = std::string(kSelect) + "WHERE c.id IN " + InList(ids, params);
    auto r = c.Query(sql, params);
    if (!r) return tl::unexpected(r.error());
    for (const auto& row : r->rows) out.push_back(FromRow(row));
    return out;
  };
  co_return co_await store_.Run<std::vector<CommentRow>>(std::move(job));
}

Awaitable<Result<std::vector<CommentRow>>> CommentTable::ListForArticle(int64_t article_id,
                                                                        int64_t after_id,
                                                                        int64_t limit) {
  std::function<Result<std::vector<CommentRow>>(Connection&)> job =
      [article_id, after_id, limit](Connection& c) -> Result<std::vector<CommentRow>> {
    auto r = c.Query(
        std::string(kSelect) + "WHERE c.article_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3",
        {article_id, after_id, limit});
    if (!r) return tl::unexpected(r.error());
    std::vector<CommentRow> out;
    for (const auto& row : r->rows) out.push_back(FromRow(row));
    return out;
  };
  co_return co_await store_.Run<std::vector<CommentRow>>(std::move(job));
}

Awaitable<Result<int64_t>> CommentTable::MaxId() {
  PL_CO_TRY(auto max, co_await store_.QueryInt(kMaxId));
  co_return max.value_or(0);
}

}  // namespace plaudit::sql
