#include "sql/pages.hpp"

#include "sql/dialect.hpp"

namespace plaudit::sql {
namespace {

// Jobs are named std::function variables, never lambda temporaries inside co_await (GCC 12).

constexpr std::string_view kFind = "SELECT article_id FROM pages WHERE url = $1";
// DO NOTHING, not an error: on PostgreSQL a second inserter of the same URL waits for the
// first one's transaction and then inserts nothing (affected = 0) instead of failing.
constexpr std::string_view kInsertPage =
    "INSERT INTO pages (url, article_id, created_at) VALUES ($1, $2, $3) "
    "ON CONFLICT (url) DO NOTHING";
constexpr std::string_view kAuthor =
    "SELECT id, username, display_name FROM users WHERE username_key = '@pages'";

}  // namespace

Awaitable<Result<std::optional<int64_t>>> PageTable::Find(std::string url) {
  std::vector<Value> params{std::move(url)};
  co_return co_await store_.QueryInt(kFind, std::move(params));
}

Awaitable<Result<std::vector<std::pair<std::string, int64_t>>>> PageTable::FindMany(
    std::vector<std::string> urls) {
  using Out = std::vector<std::pair<std::string, int64_t>>;
  std::function<Result<Out>(Connection&)> job =
      [urls = std::move(urls)](Connection& c) -> Result<Out> {
    if (urls.empty()) {
      return Out{};
    }
    // The IN list is padded (repeating the last URL) to a power of two, so SQLite's statement
    // cache sees 8 shapes, not one per count (docs/architecture.md, "SQL store").
    size_t n = 1;
    while (n < urls.size()) {
      n *= 2;
    }
    std::vector<Value> params;
    std::string sql = "SELECT url, article_id FROM pages WHERE url IN (";
    for (size_t i = 0; i < n; ++i) {
      params.emplace_back(urls[std::min(i, urls.size() - 1)]);
      if (i) {
        sql += ", ";
      }
      sql += "$" + std::to_string(i + 1);
    }
    sql += ")";
    return c.QueryRows(sql, params,
                       [](const Row& row) { return std::pair(Text(row[0]), Int(row[1])); });
  };
  co_return co_await store_.Run<Out>(std::move(job));
}

Awaitable<Result<int64_t>> PageTable::Insert(ArticleRow row, std::string url, CacheStamp stamp) {
  std::function<Result<int64_t>(Connection&)> job =
      [row = std::move(row), url = std::move(url), stamp,
       retention = articles_.retention()](Connection& c) -> Result<int64_t> {
    bool taken = false;
    auto st = c.Transaction([&](Connection& tx) -> Status {
      if (auto a = ArticleTable::InsertIn(tx, row, stamp, retention); !a) {
        return a;
      }
      PL_TRY(auto p, InsertOrNothing(tx, kInsertPage, {url, row.id, row.created_at_ms}));
      if (p.affected == 0) {
        taken = true;
        return Fail(ErrorCode::kInternal, "page url taken");  // rolls the article back
      }
      return {};
    });
    if (st) {
      return row.id;
    }
    if (!taken) {
      return tl::unexpected(st.error());
    }
    // Rolled back; the winner has committed (PostgreSQL waited for it; SQLite serialises).
    PL_TRY(auto winner, c.QueryInt(kFind, {url}));
    if (!winner) {
      return Fail(ErrorCode::kUnavailable, "page thread vanished; retry");
    }
    return *winner;
  };
  co_return co_await store_.Run<int64_t>(std::move(job));
}

Awaitable<Result<PageAuthor>> PageTable::Author() {
  std::function<Result<PageAuthor>(Connection&)> job = [](Connection& c) -> Result<PageAuthor> {
    PL_TRY(auto r, c.Query(kAuthor));
    if (r.rows.empty()) {
      return Fail(ErrorCode::kInternal, "the page author is missing");
    }
    return PageAuthor{Int(r.rows[0][0]), Text(r.rows[0][1]), Text(r.rows[0][2])};
  };
  co_return co_await store_.Run<PageAuthor>(std::move(job));
}

}  // namespace plaudit::sql
