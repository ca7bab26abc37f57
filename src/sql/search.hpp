#pragma once
// The search index (migration 025; API.md "Search"): one doc per published article or post,
// kept by an indexer that follows the change feed (sql/article_changes.hpp).
//
// Why it misses nothing: the index's cursor (plaudit_meta `search_through`, a change id) moves
// in the same transaction as the docs of the changes it passes, and change ids become visible
// in order (article_changes.hpp), so every change after the cursor is still to be read. Each
// changed article is read again as it is now, so the order of changes to one article does not
// matter and a step done twice does no harm. An index never built, or a cursor the feed's
// retention has trimmed past (changes lost to it), starts a rebuild: every article, by id, a
// batch a step (plaudit_meta `search_rebuild`), then the changes since the rebuild began.
// Steps take a lock on the cursor's row first, so two instances never index at once.
// Why it serves no draft: reads join `articles` and keep published articles and posts only,
// whatever the index holds.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/store.hpp"

namespace plaudit::sql {

// What the indexer reads of an article.
struct IndexedArticle {
  int64_t id = 0;
  std::string kind;    // article, post, page
  std::string status;  // draft, published
  std::string title;
  std::string content;  // as stored (sanitised HTML)
};

// What the index keeps of an article: the terms of its title and text (space-separated
// tokens of [a-z0-9]), and the visible text snippets are cut from.
struct SearchDoc {
  std::string title_terms;
  std::string body_terms;
  std::string body_text;
};

// The services' rule: an article's doc, or nullopt when it is not to be found.
using MakeSearchDoc = std::function<std::optional<SearchDoc>(const IndexedArticle&)>;

struct SearchHit {
  int64_t article_id = 0;
  std::string snippet;  // what MakeSnippet made of its text
};
// The services' snippet of a hit's visible text; run on the store's thread with the query,
// so that cutting long texts into terms never holds the I/O thread.
using MakeSnippet = std::function<std::string(std::string_view body_text)>;
struct SearchHits {
  std::vector<SearchHit> hits;  // best first
  int64_t total = 0;            // every match, up to kMaxCandidates
};
// The matches a search ranks and counts at most: the newest (by article id) of them.
inline constexpr int64_t kMaxCandidates = 1000;

class SearchTable {
 public:
  explicit SearchTable(Store& store) : store_(store) {}

  // One step of the indexer, one transaction: up to `limit` changes after the cursor, or the
  // next `limit` articles of a rebuild. How much it did: 0 when the index is caught up.
  Awaitable<Result<int64_t>> Step(int64_t limit, MakeSearchDoc make);
  // Forgets the index: the next step starts a rebuild.
  Awaitable<Status> Reset();
  // Published articles (of `kind`, when given: article or post) whose terms hold every
  // phrase (each a run of tokens, in order), best first: `limit` from `offset`, each with
  // `snippet`'s cut of its text.
  Awaitable<Result<SearchHits>> Find(std::vector<std::vector<std::string>> phrases,
                                     std::optional<std::string> kind, int64_t offset, int64_t limit,
                                     MakeSnippet snippet);

 private:
  Store& store_;
};

}  // namespace plaudit::sql
