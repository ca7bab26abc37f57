#include "store/comments.hpp"

#include <map>

namespace plaudit::store {

CommentRepository::CommentRepository(sql::CommentTable& table, redis::CommentCache& cache)
    : table_(table), cache_(cache), rebuilder_(table, cache) {}

Awaitable<Result<std::optional<Comment>>> CommentRepository::Find(int64_t id) {
  const std::vector<int64_t> ids{id};
  PL_CO_TRY(std::vector<redis::CachedComment> cached, co_await cache_.GetMany(ids));
  if (cached.front()) {
    co_return std::move(cached.front());
  }
  PL_CO_TRY(const std::optional<sql::CommentRow> row, co_await table_.Find(id));
  if (!row) {
    co_return std::optional<Comment>{};
  }
  const std::vector<Comment> found{sql::ToComment(*row)};
  PL_CO_CHECK(co_await cache_.Put(row->article_id, found));
  co_return found.front();
}

Awaitable<Result<std::vector<std::optional<Comment>>>> CommentRepository::FillMisses(
    const std::vector<int64_t>& ids, std::vector<std::optional<Comment>> cached) {
  std::vector<int64_t> missing;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!cached[i]) {
      missing.push_back(ids[i]);
    }
  }
  if (missing.empty()) {
    co_return cached;
  }
  // Evicted or never cached: one SQL query for every miss, then back into Redis, one put per
  // article (a comment's cache entries live in its article's shard).
  PL_CO_TRY(const std::vector<sql::CommentRow> rows, co_await table_.FindMany(missing));
  std::map<int64_t, std::vector<Comment>> by_article;
  for (const auto& row : rows) {
    by_article[row.article_id].push_back(sql::ToComment(row));
  }
  for (const auto& [article_id, comments] : by_article) {
    PL_CO_CHECK(co_await cache_.Put(article_id, comments));
  }
  std::map<int64_t, const Comment*> loaded;
  for (const auto& [article_id, comments] : by_article) {
    for (const Comment& c : comments) {
      loaded.emplace(c.id, &c);
    }
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!cached[i]) {
      if (auto it = loaded.find(ids[i]); it != loaded.end()) {
        cached[i] = *it->second;
      }
    }
  }
  co_return cached;
}

}  // namespace plaudit::store
