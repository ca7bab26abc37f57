#include "domain/search.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string_view>
#include <utility>

#include "text/sanitizer.hpp"
#include "text/search_terms.hpp"

namespace plaudit::domain {
namespace {

// The first `max` bytes of `text`, not splitting a code point.
std::string_view CutUtf8(std::string_view text, size_t max) {
  if (text.size() <= max) {
    return text;
  }
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;
  }
  return text.substr(0, end);
}

constexpr std::string_view kCursorPrefix = "r";

// Where a page starts in the ranking: from its page number, or its cursor ("r" and the
// offset: a place in the ranking, which moves as articles come and go).
Result<int64_t> OffsetOf(const PageRequest& page) {
  if (!page.cursor) {
    return (page.page - 1) * page.size;
  }
  const std::string& c = *page.cursor;
  if (c.size() < 2 || c.size() > 8 || !c.starts_with(kCursorPrefix) ||
      !std::all_of(c.begin() + 1, c.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
    return Fail(ErrorCode::kInvalidArgument, "cursor is not one this search gave");
  }
  const int64_t offset = std::stoll(c.substr(1));
  if (offset > SearchService::kMaxDepth) {
    return Fail(ErrorCode::kInvalidArgument, "cursor is not one this search gave");
  }
  return offset;
}

}  // namespace

std::optional<sql::SearchDoc> SearchService::DocOf(const sql::IndexedArticle& a) {
  if (a.status != "published" || (a.kind != "article" && a.kind != "post")) {
    return std::nullopt;
  }
  // Stored content is sanitised already; this reads its visible text.
  auto clean = text::SanitizeHtml(a.content);
  std::string body;
  if (clean) {
    body = std::string(CutUtf8(clean->text, kMaxIndexedTextBytes));
  } else {
    spdlog::warn("search: article {} indexed by its title only: {}", a.id, clean.error().message);
  }
  sql::SearchDoc doc;
  std::vector<text::SearchTerm> title = text::SearchTerms(a.title);
  std::vector<text::SearchTerm> terms = text::SearchTerms(body);
  title.resize(std::min(title.size(), kMaxTitleTerms));
  terms.resize(std::min(terms.size(), kMaxBodyTerms));
  doc.title_terms = text::TermsText(title);
  doc.body_terms = text::TermsText(terms);
  doc.body_text = std::move(body);
  return doc;
}

Awaitable<Result<PageResult<SearchResult>>> SearchService::Search(
    const std::optional<Principal>& viewer, std::string_view q, std::optional<ArticleKind> kind,
    PageRequest page) {
  PL_CO_TRY(const int64_t offset, OffsetOf(page));
  PL_CO_TRY(const text::SearchQuery query, text::ParseSearchQuery(q));
  PageResult<SearchResult> out;
  if (query.empty()) {
    co_return out;
  }
  std::optional<std::string> kind_name;
  if (kind) {
    kind_name = std::string(KindName(*kind));
  }
  // Past the ranking's end: an empty page, with the total.
  const int64_t size = std::max<int64_t>(0, std::min(page.size, kMaxDepth - offset));
  sql::MakeSnippet snippet = [query](std::string_view text) {
    return text::SearchSnippet(text, query);
  };
  PL_CO_TRY(sql::SearchHits hits, co_await table_.Find(query.phrases, std::move(kind_name), offset,
                                                       size, std::move(snippet)));
  out.total = hits.total;
  if (offset + size < std::min(hits.total, kMaxDepth)) {
    out.next_cursor = std::string(kCursorPrefix) + std::to_string(offset + size);
  }
  std::vector<int64_t> ids;
  ids.reserve(hits.hits.size());
  for (const sql::SearchHit& h : hits.hits) {
    ids.push_back(h.article_id);
  }
  PL_CO_TRY(auto items, co_await articles_.ListedItems(viewer, ids));
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!items[i]) {
      continue;  // changed since the query read it (unpublished, deleted)
    }
    out.items.push_back(SearchResult{std::move(*items[i]), std::move(hits.hits[i].snippet)});
  }
  co_return out;
}

Awaitable<Result<int64_t>> SearchService::Index(int64_t max_steps, int64_t batch) {
  int64_t steps = 0;
  const sql::MakeSearchDoc make = &SearchService::DocOf;
  while (steps < max_steps) {
    PL_CO_TRY(const int64_t n, co_await table_.Step(batch, make));
    if (n == 0) {
      break;
    }
    ++steps;
  }
  co_return steps;
}

}  // namespace plaudit::domain
