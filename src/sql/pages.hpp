#pragma once
// The pages table (migration 017): a page of an embedding site, by its normalised URL, and
// the article (kind 'page') that holds its thread. SQL is the authority on which article that
// is; Redis only caches it (redis/page_map.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sql/articles.hpp"
#include "sql/store.hpp"

namespace plaudit::sql {

// The account every page thread is written by (migration 017): nobody can sign in as it.
struct PageAuthor {
  int64_t id = 0;
  std::string username;
  std::string display_name;
};

class PageTable {
 public:
  PageTable(Store& store, ArticleTable& articles) : store_(store), articles_(articles) {}

  // The article holding the page's thread, or nullopt when it has none.
  Awaitable<Result<std::optional<int64_t>>> Find(std::string url);
  // (url, article id) for each of `urls` that has a thread, in one query; any order.
  Awaitable<Result<std::vector<std::pair<std::string, int64_t>>>> FindMany(
      std::vector<std::string> urls);
  // Inserts `row` (a new article of kind page) and the page row naming it in one
  // transaction. When the URL is taken already (another request, on any instance, created
  // the thread first) the transaction rolls back and the existing thread's article id is
  // returned instead of row.id. kAlreadyExists: row.id itself is taken (a Redis sequence
  // behind SQL), nothing written, as ArticleTable::Insert.
  Awaitable<Result<int64_t>> Insert(ArticleRow row, std::string url, CacheStamp stamp);
  Awaitable<Result<PageAuthor>> Author();

 private:
  Store& store_;
  ArticleTable& articles_;
};

}  // namespace plaudit::sql
