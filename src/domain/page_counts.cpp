// PageService::Counts: the counts of many pages (and articles) at once, for a site's index
// pages. Warm, two Redis round trips whatever the number of pages: the threads' access fields
// and counts (one pipeline of HMGETs), their like counts (one batch); the URL → thread entries
// come from this process's memo, else from Redis (one pipeline) and are memoised.
// URLs Redis does not know cost one SQL query together (and one round trip to cache them).
#include <map>

#include "domain/page_threads.hpp"

namespace plaudit::domain {

Awaitable<Result<std::vector<PageCounts>>> PageService::Counts(
    const std::optional<Principal>& viewer, const std::vector<PageUrl>& pages,
    const std::vector<int64_t>& article_ids) {
  if (pages.size() + article_ids.size() > kMaxPageCounts) {
    co_return Fail(ErrorCode::kInvalidArgument, "at most 100 urls and article ids in all");
  }
  // This process's memo first, then the Redis map for what it lacks.
  std::vector<std::optional<int64_t>> cached(pages.size());
  std::vector<std::string> urls;
  std::vector<size_t> urls_at;
  for (size_t i = 0; i < pages.size(); ++i) {
    cached[i] = memo_.Find(pages[i].url);
    if (!cached[i]) {
      urls.push_back(pages[i].url);
      urls_at.push_back(i);
    }
  }
  if (!urls.empty()) {
    PL_CO_TRY(auto mapped, co_await map_.GetMany(urls));
    for (size_t k = 0; k < urls_at.size(); ++k) {
      cached[urls_at[k]] = mapped[k];
      if (mapped[k]) {
        memo_.Put(urls[k], *mapped[k]);
      }
    }
  }
  std::vector<bool> from_cache(pages.size());
  for (size_t i = 0; i < pages.size(); ++i) {
    from_cache[i] = cached[i].has_value();
  }

  // Asks SQL (one query) for the thread of each page at `which`, and caches what it finds.
  auto from_sql = [&](std::vector<size_t> which) -> Awaitable<Status> {
    if (which.empty()) {
      co_return Status{};
    }
    std::vector<std::string> asked;
    asked.reserve(which.size());
    for (size_t i : which) {
      asked.push_back(pages[i].url);
    }
    PL_CO_TRY(auto rows, co_await table_.FindMany(std::move(asked)));
    std::map<std::string, int64_t> by_url(rows.begin(), rows.end());
    for (size_t i : which) {
      auto it = by_url.find(pages[i].url);
      cached[i] = it == by_url.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    co_await Remember(std::move(rows));
    co_return Status{};
  };
  std::vector<size_t> misses;
  for (size_t i = 0; i < pages.size(); ++i) {
    if (!cached[i]) {
      misses.push_back(i);
    }
  }
  PL_CO_CHECK(co_await from_sql(std::move(misses)));

  // Reads the threads and articles, keyed by id.
  std::map<int64_t, Article> read;
  auto read_ids = [&](std::vector<int64_t> ids) -> Awaitable<Status> {
    if (ids.empty()) {
      co_return Status{};
    }
    PL_CO_TRY(auto articles, co_await articles_.CountsMany(viewer, ids));
    for (size_t i = 0; i < ids.size(); ++i) {
      if (articles[i]) {
        read.insert_or_assign(ids[i], std::move(*articles[i]));
      }
    }
    co_return Status{};
  };
  std::vector<int64_t> ids;
  for (const auto& id : cached) {
    if (id) {
      ids.push_back(*id);
    }
  }
  for (int64_t id : article_ids) {
    ids.push_back(id);
  }
  PL_CO_CHECK(co_await read_ids(ids));

  // A cached entry whose article is gone named a deleted thread: SQL knows the page's
  // current one, if any (rare: one more query and read).
  std::vector<size_t> stale;
  for (size_t i = 0; i < pages.size(); ++i) {
    if (from_cache[i] && cached[i] && !read.contains(*cached[i])) {
      stale.push_back(i);
    }
  }
  if (!stale.empty()) {
    for (size_t i : stale) {
      co_await Forget(pages[i]);
    }
    PL_CO_CHECK(co_await from_sql(stale));
    std::vector<int64_t> again;
    for (size_t i : stale) {
      if (cached[i] && !read.contains(*cached[i])) {
        again.push_back(*cached[i]);
      }
    }
    PL_CO_CHECK(co_await read_ids(std::move(again)));
  }

  std::vector<PageCounts> out;
  out.reserve(pages.size() + article_ids.size());
  auto counts_of = [&](std::string url, std::optional<int64_t> id) {
    auto it = id ? read.find(*id) : read.end();
    if (it != read.end()) {
      out.push_back(CountsOf(std::move(url), it->second));
    } else {
      PageCounts none;  // no thread (or none the viewer may see)
      none.url = std::move(url);
      out.push_back(std::move(none));
    }
  };
  for (size_t i = 0; i < pages.size(); ++i) {
    counts_of(pages[i].url, cached[i]);
  }
  for (int64_t id : article_ids) {
    counts_of(std::string(), id);
  }
  co_return out;
}

}  // namespace plaudit::domain
