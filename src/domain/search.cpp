#include "domain/search.hpp"

#include <spdlog/spdlog.h>

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
  doc.title_terms = text::TermsText(text::SearchTerms(a.title));
  doc.body_terms = text::TermsText(text::SearchTerms(body));
  doc.body_text = std::move(body);
  return doc;
}

Awaitable<Result<PageResult<SearchResult>>> SearchService::Search(
    const std::optional<Principal>& viewer, std::string_view q, std::optional<ArticleKind> kind,
    PageRequest page) {
  if (page.cursor) {
    co_return Fail(ErrorCode::kInvalidArgument, "search pages by page, not cursor");
  }
  PL_CO_TRY(const text::SearchQuery query, text::ParseSearchQuery(q));
  PageResult<SearchResult> out;
  if (query.empty()) {
    co_return out;
  }
  std::optional<std::string> kind_name;
  if (kind) {
    kind_name = std::string(KindName(*kind));
  }
  PL_CO_TRY(sql::SearchHits hits, co_await table_.Find(query.phrases, std::move(kind_name),
                                                       (page.page - 1) * page.size, page.size));
  out.total = hits.total;
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
    out.items.push_back(
        SearchResult{std::move(*items[i]), text::SearchSnippet(hits.hits[i].body_text, query)});
  }
  co_return out;
}

Awaitable<Result<int64_t>> SearchService::Index(int64_t max_steps, int64_t batch) {
  int64_t done = 0;
  const sql::MakeSearchDoc make = &SearchService::DocOf;
  for (int64_t step = 0; step < max_steps; ++step) {
    PL_CO_TRY(const int64_t n, co_await table_.Step(batch, make));
    if (n == 0) {
      break;
    }
    done += n;
  }
  co_return done;
}

}  // namespace plaudit::domain
