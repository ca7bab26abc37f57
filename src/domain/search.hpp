#pragma once
// Search (API.md "Search"): published articles and posts by their words, best first, each
// with a snippet of its text where the words are.
//
// The index (sql/search.hpp) follows the change feed: Index() works through what changed
// since it last ran, a step (one transaction) at a time; the wiring runs it on a timer and
// at start-up, tests call it. What goes in is this service's rule (DocOf): published articles
// and posts, their title and visible text as text/search_terms.hpp cuts them. Results are
// read back through ArticleService as list items, with the caller's like state, so a result
// shows what the article list would.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/article.hpp"
#include "domain/articles.hpp"
#include "domain/user.hpp"
#include "sql/search.hpp"

namespace plaudit::domain {

struct SearchResult {
  Article article;      // as a list item (no content)
  std::string snippet;  // HTML: escaped text, matches in <mark>
};

class SearchService {
 public:
  SearchService(sql::SearchTable& table, ArticleService& articles)
      : table_(table), articles_(articles) {}

  // Visible text indexed per article at most (a longer text is found by its start).
  static constexpr size_t kMaxIndexedTextBytes = 100'000;
  // Terms indexed per article at most, title and text: a tsvector keeps positions up to
  // 16,383 only (a phrase past it would not be found on PostgreSQL), and every backend
  // indexes the same terms, so that all three find the same.
  static constexpr size_t kMaxTitleTerms = 300;
  static constexpr size_t kMaxBodyTerms = 16'000;

  // How deep the ranking may be paged: as far as it goes (the newest matches, see
  // sql::kMaxCandidates; `total` counts those).
  static constexpr int64_t kMaxDepth = sql::kMaxCandidates;

  // kInvalidArgument: a blank, too long or invalid `q`, a cursor it did not give. A query
  // with nothing to look for (one CJK character, punctuation) finds nothing. Pages by
  // `page` or by the `next_cursor` it gives (a place in the ranking).
  Awaitable<Result<PageResult<SearchResult>>> Search(const std::optional<Principal>& viewer,
                                                     std::string_view q,
                                                     std::optional<ArticleKind> kind,
                                                     PageRequest page);
  // Indexes what changed since the last run, up to `max_steps` steps of `batch`; the steps
  // that found something to do (0: it was caught up; `max_steps`: there may be more).
  // `batch` is small: a step reads and cuts that many articles' texts (up to 512 KiB each)
  // in one transaction, which on SQLite holds the database's write lock.
  Awaitable<Result<int64_t>> Index(int64_t max_steps = 1000, int64_t batch = 50);
  // Drops the index; the next Index() rebuilds it (plauditd rebuild-search).
  Awaitable<Status> Rebuild() { co_return co_await table_.Reset(); }

  // What the index keeps of an article: nothing unless it is a published article or post.
  static std::optional<sql::SearchDoc> DocOf(const sql::IndexedArticle& a);

 private:
  sql::SearchTable& table_;
  ArticleService& articles_;
};

}  // namespace plaudit::domain
