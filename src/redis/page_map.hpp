#pragma once
// Which article holds a page's thread, by the page's normalised URL (keys::PageMap): a cache
// of SQL's pages table (sql/pages.hpp), which alone decides. A URL → id pair never changes
// while the thread exists, so an entry is right or missing (FLUSHALL, a Redis restored from
// before the thread) or names a deleted thread; callers read SQL on a miss, and again when
// the article it names is gone, and never create a thread on a miss alone.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "redis/client/client.hpp"

namespace plaudit::redis {

class PageMap {
 public:
  explicit PageMap(Client& client) : client_(client) {}

  // The cached article id of each URL (nullopt: not cached), in one round trip.
  Awaitable<Result<std::vector<std::optional<int64_t>>>> GetMany(std::vector<std::string> urls);
  // Caches each (url, article id), in one round trip.
  Awaitable<Status> PutMany(std::vector<std::pair<std::string, int64_t>> entries);
  // Drops the URL's entry (its thread was deleted).
  Awaitable<Status> Forget(std::string url);

 private:
  Client& client_;
};

}  // namespace plaudit::redis
