// The comment store's reads: single rows, pages of an article's comments, and the checks the
// API asks before a write (a guest's name, an edit token, a first approval).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/decimal.hpp"
#include "sql/comment_standing.hpp"
#include "sql/comments.hpp"
#include "sql/dialect.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await (GCC 12).

using detail::FromRow;
using detail::kNameKeyHeld;
using detail::kSelect;

constexpr std::string_view kEditTokenHash =
    "SELECT edit_token_hash FROM comments WHERE id = $1 AND edit_token_hash IS NOT NULL";
constexpr std::string_view kHasApproved =
    "SELECT 1 FROM comments WHERE author_id = $1 AND status = 'approved' LIMIT 1";
// Also ids of comments deleted with their article (migration 015).
constexpr std::string_view kMaxId =
    "SELECT MAX(m) FROM (SELECT COALESCE(MAX(id), 0) AS m FROM comments UNION ALL "
    "SELECT last AS m FROM id_marks WHERE name = 'comment') s";

// A participant by what anyone can see: the article's author, or the writer of a live
// approved comment in it (a held or deleted one must not show through a mention's mark).
// username_key is the lower-cased username, and indexed.
constexpr std::string_view kParticipant =
    "SELECT 1 FROM users u WHERE u.username_key = $1 AND u.deleted_at IS NULL "
    "AND u.username NOT LIKE '@%' AND (EXISTS (SELECT 1 FROM comments c WHERE c.article_id = $2 "
    "AND c.author_id = u.id AND c.deleted = 0 AND c.status = 'approved') "
    "OR u.id = (SELECT author_id FROM articles WHERE id = $2))";
constexpr std::string_view kUnrendered =
    "SELECT id, body FROM comments WHERE id > $1 AND id <= $2 AND deleted = 0 AND html = '' "
    "AND body <> '' ORDER BY id LIMIT $3";
// How far start-up has rendered (plaudit_meta): every comment up to that id was looked at.
constexpr std::string_view kRenderedThrough =
    "SELECT value FROM plaudit_meta WHERE \"key\" = 'comment_html_through'";
constexpr std::string_view kRenderedThroughKey = "comment_html_through";
constexpr std::string_view kLastCommentId = "SELECT COALESCE(MAX(id), 0) FROM comments";
constexpr std::string_view kSetHtml =
    "UPDATE comments SET html = $2 WHERE id = $1 AND body = $3 AND html = ''";

}  // namespace

Result<std::vector<CommentTable::Unrendered>> CommentTable::FindUnrendered(Connection& c,
                                                                           int64_t after_id,
                                                                           int64_t up_to,
                                                                           int64_t limit) {
  return c.QueryRows(kUnrendered, {after_id, up_to, limit},
                     [](const Row& row) { return Unrendered{Int(row[0]), Text(row[1])}; });
}

Result<CommentTable::RenderState> CommentTable::ReadRenderState(Connection& c) {
  RenderState out;
  PL_TRY(auto through, c.Query(kRenderedThrough));
  if (!through.rows.empty()) {
    out.through = ParseIntOr(Text(through.rows[0][0]), 0);
  }
  PL_TRY(auto last, c.QueryInt(kLastCommentId));
  out.last_id = last.value_or(0);
  return out;
}

Status CommentTable::SetRenderedThrough(Connection& c, int64_t id) {
  // Two runs at once (two `plauditd flush`) may set it back to the lower of their ids:
  // harmless, the next start looks at those comments again.
  return SetMeta(c, kRenderedThroughKey, std::to_string(id));
}

Status CommentTable::SetHtml(Connection& c, int64_t id, const CommentText& text) {
  PL_CHECK(c.Query(kSetHtml, {id, text.html, text.body}));
  return {};
}

Awaitable<Result<std::vector<std::string>>> CommentTable::Participants(
    int64_t article_id, std::vector<std::string> names) {
  std::function<Result<std::vector<std::string>>(Connection&)> job =
      [article_id, names = std::move(names)](Connection& c) -> Result<std::vector<std::string>> {
    std::vector<std::string> out;
    for (const std::string& name : names) {
      PL_TRY(auto r, c.Query(kParticipant, {name, article_id}));
      if (!r.rows.empty()) {
        out.push_back(name);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  co_return co_await store_.Run<std::vector<std::string>>(std::move(job));
}

Awaitable<Result<bool>> CommentTable::NameKeyHeld(std::string name_key) {
  std::function<Result<bool>(Connection&)> job =
      [name_key = std::move(name_key)](Connection& c) -> Result<bool> {
    PL_TRY(auto r, c.Query(kNameKeyHeld, {name_key}));
    return !r.rows.empty();
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<std::optional<std::string>>> CommentTable::EditTokenHash(int64_t id) {
  std::function<Result<std::optional<std::string>>(Connection&)> job =
      [id](Connection& c) -> Result<std::optional<std::string>> {
    return c.QueryRow(kEditTokenHash, {id}, [](const Row& r) { return Text(r[0]); });
  };
  co_return co_await store_.Run<std::optional<std::string>>(std::move(job));
}

Awaitable<Result<bool>> CommentTable::HasApproved(int64_t author_id) {
  std::function<Result<bool>(Connection&)> job = [author_id](Connection& c) -> Result<bool> {
    PL_TRY(auto r, c.Query(kHasApproved, {author_id}));
    return !r.rows.empty();
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<std::optional<CommentRow>>> CommentTable::Find(int64_t id) {
  std::function<Result<std::optional<CommentRow>>(Connection&)> job =
      [id](Connection& c) -> Result<std::optional<CommentRow>> {
    return c.QueryRow(std::string(kSelect) + "WHERE c.id = $1", {id}, FromRow);
  };
  co_return co_await store_.Run<std::optional<CommentRow>>(std::move(job));
}

Awaitable<Result<std::vector<CommentRow>>> CommentTable::FindMany(std::vector<int64_t> ids) {
  std::function<Result<std::vector<CommentRow>>(Connection&)> job =
      [ids = std::move(ids)](Connection& c) -> Result<std::vector<CommentRow>> {
    if (ids.empty()) {
      return std::vector<CommentRow>{};
    }
    std::vector<Value> params;
    const std::string sql = std::string(kSelect) + "WHERE c.id IN " + InList(ids, params);
    return c.QueryRows(sql, params, FromRow);
  };
  co_return co_await store_.Run<std::vector<CommentRow>>(std::move(job));
}

Awaitable<Result<std::vector<CommentRow>>> CommentTable::ListForArticle(int64_t article_id,
                                                                        int64_t after_id,
                                                                        int64_t limit) {
  std::function<Result<std::vector<CommentRow>>(Connection&)> job =
      [article_id, after_id, limit](Connection& c) -> Result<std::vector<CommentRow>> {
    return c.QueryRows(
        std::string(kSelect) + "WHERE c.article_id = $1 AND c.id > $2 ORDER BY c.id LIMIT $3",
        {article_id, after_id, limit}, FromRow);
  };
  co_return co_await store_.Run<std::vector<CommentRow>>(std::move(job));
}

Awaitable<Result<int64_t>> CommentTable::MaxId() {
  PL_CO_TRY(auto max, co_await store_.QueryInt(kMaxId));
  co_return max.value_or(0);
}

}  // namespace plaudit::sql
