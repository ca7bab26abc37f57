// ArticleService's lists: the published ones from their Redis indexes (rebuilt from SQL under
// a lock), the caller's own from SQL, and the change feed.
#include <spdlog/spdlog.h>

#include <charconv>
#include <map>

#include "domain/articles.hpp"
#include "domain/cursor.hpp"

namespace plaudit::domain {
namespace {

// The id of an own-list cursor, "o<id>" (id > 0), taken as sscanf("%c%lld") took it: spaces
// and a '+' may come before the digits, and anything after them is ignored. An id beyond
// int64 is refused (sscanf's result for it was undefined).
std::optional<int64_t> OwnCursorId(std::string_view raw) {
  if (raw.empty() || raw.front() != 'o') {
    return std::nullopt;
  }
  raw.remove_prefix(1);
  const size_t digits = raw.find_first_not_of(" \t\n\v\f\r");
  if (digits == std::string_view::npos) {
    return std::nullopt;
  }
  raw.remove_prefix(digits);
  if (raw.front() == '+') {
    raw.remove_prefix(1);
  }
  int64_t id = 0;
  if (std::from_chars(raw.data(), raw.data() + raw.size(), id).ec != std::errc() || id <= 0) {
    return std::nullopt;
  }
  return id;
}

}  // namespace

Awaitable<Result<bool>> ArticleService::RebuildLocked() {
  // Every step renews the lock and is refused once it is lost (a stall past the lease):
  // then another instance rebuilds, and this one's twins are never swapped in.
  auto lost = [this]() -> Result<bool> {
    spdlog::warn(
        "lost the list index rebuild lock (a stall past {} ms?); another instance "
        "rebuilds",
        redis::ArticleCache::kRebuildLeaseMs);
    return false;
  };
  PL_CO_TRY(auto begun, co_await cache_.BeginRebuild(instance_id_));
  if (!begun) {
    co_return lost();
  }
  int64_t after = 0;
  size_t total = 0;
  while (true) {
    PL_CO_TRY(auto chunk, co_await table_.PublishedAfter(after, 2000));
    if (chunk.empty()) {
      break;
    }
    std::vector<redis::ArticleCache::RebuildEntry> entries;
    entries.reserve(chunk.size());
    for (const auto& e : chunk) {
      const ArticleKind kind = ParseKind(e.kind).value_or(ArticleKind::kPost);
      entries.push_back({e.id, e.pinned, e.published_at_ms, e.ver, kind});
      after = e.id;
    }
    total += chunk.size();
    // Skips an article changed since this read: that change already put it in or out of
    // the twins (index_rebuild.lua).
    PL_CO_TRY(auto added, co_await cache_.RebuildAdd(instance_id_, entries));
    if (!added) {
      co_return lost();
    }
  }
  PL_CO_TRY(auto finished, co_await cache_.FinishRebuild(instance_id_));
  if (!finished) {
    co_return lost();
  }
  spdlog::info("rebuilt published list indexes from SQL ({} articles)", total);
  co_return true;
}

Awaitable<Status> ArticleService::RebuildIndexes() {
  std::function<Awaitable<Result<bool>>()> rebuild = [this]() -> Awaitable<Result<bool>> {
    PL_CO_TRY(auto locked, co_await cache_.TryLockRebuild(instance_id_));
    if (!locked) {
      co_return false;  // another instance is rebuilding
    }
    auto rebuilt = co_await RebuildLocked();
    if (!rebuilt || !*rebuilt) {
      // SQL (or Redis) failed halfway, or a step was refused: the lock goes now if it is
      // still this rebuild's (a step refused for twins a restored Redis lost renewed it), so
      // that the next read rebuilds rather than every list answering 503 until the lease ends
      // (the sql-restart fault). A lock another instance holds is left alone.
      auto aborted = co_await cache_.AbortRebuild(instance_id_);
      if (!aborted) {
        spdlog::warn("cannot release the list index rebuild lock ({}); it ends with its lease",
                     aborted.error().message);
      }
    }
    co_return rebuilt;
  };
  PL_CO_CHECK(co_await rebuilds_.Do(0, std::move(rebuild)));
  co_return Status{};
}

Awaitable<Result<std::vector<std::optional<Article>>>> ArticleService::CachedMany(
    const std::vector<int64_t>& ids) {
  PL_CO_TRY(auto cached, co_await cache_.GetMany(ids));
  PL_CO_CHECK(co_await FillMisses(ids, cached));
  co_return std::move(cached);
}

Awaitable<Result<std::vector<bool>>> ArticleService::FillMisses(
    const std::vector<int64_t>& ids, std::vector<std::optional<Article>>& found) {
  std::vector<bool> absent(ids.size(), false);
  std::vector<int64_t> missing;
  std::vector<size_t> at;  // position in ids
  for (size_t i = 0; i < ids.size(); ++i) {
    if (!found[i]) {
      missing.push_back(ids[i]);
      at.push_back(i);
    }
  }
  if (missing.empty()) {
    co_return absent;
  }
  // One SQL query for all (the bodies are filled on first full read), after the birth marks:
  // each fill is versioned and checked against its mark (FillFromSql), so a row read before a
  // change or a delete never replaces what that change cached.
  const uint64_t generation = cache_.Generation();
  PL_CO_TRY(auto tokens, co_await cache_.FillTokens(missing));
  PL_CO_TRY(auto rows, co_await table_.FindMany(missing));
  std::map<int64_t, sql::ArticleRow> by_id;
  for (auto& row : rows) {
    by_id.emplace(row.id, std::move(row));
  }
  for (size_t k = 0; k < missing.size(); ++k) {
    const int64_t id = missing[k];
    auto row = by_id.find(id);
    if (row == by_id.end()) {
      absent[at[k]] = true;  // never written, or deleted
      continue;
    }
    std::optional<PrefetchedRow> first;
    if (tokens[k]) {
      first = PrefetchedRow{std::move(*tokens[k]), std::move(row->second), generation};
    }
    PL_CO_TRY(auto filled, co_await FillFromSql(id, /*with_content=*/false, std::move(first)));
    if (filled) {
      found[at[k]] = std::move(*filled);
    }
  }
  co_return absent;
}

Awaitable<Result<std::vector<Article>>> ArticleService::Hydrate(const std::vector<int64_t>& ids) {
  PL_CO_TRY(auto cached, co_await CachedMany(ids));
  std::vector<Article> out;
  for (size_t i = 0; i < ids.size(); ++i) {
    std::optional<Article> a = std::move(cached[i]);
    // Only what the article itself says is published: an index entry a lost or late step
    // left behind never shows a draft (or a deleted article: no hash, no row). And it goes,
    // at the version the article has (a newer change's entry stays: index_update.lua).
    if (!a || !Listed(*a)) {
      const int64_t ver = a ? a->ver : redis::ArticleCache::kDeletedVersion;
      auto removed = co_await cache_.IndexRemove(ids[i], ver);
      if (!removed) {
        spdlog::warn("could not drop stale list entry {}", ids[i]);
      }
      continue;
    }
    a->content.reset();  // list items carry no body
    out.push_back(std::move(*a));
  }
  co_return out;
}

Awaitable<Result<std::vector<std::optional<Article>>>> ArticleService::ListedItems(
    const std::optional<Principal>& viewer, const std::vector<int64_t>& ids) {
  PL_CO_TRY(auto found, co_await CachedMany(ids));
  std::vector<Article> items;
  std::vector<size_t> at;
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i] && Listed(*found[i])) {
      found[i]->content.reset();  // list items carry no body
      items.push_back(std::move(*found[i]));
      at.push_back(i);
    }
    found[i].reset();
  }
  PL_CO_CHECK(co_await FillLikes(viewer ? viewer->id : 0, items));
  for (size_t j = 0; j < at.size(); ++j) {
    found[at[j]] = std::move(items[j]);
  }
  co_return std::move(found);
}

Awaitable<Result<redis::ListPage>> ArticleService::IndexPage(std::optional<ArticleKind> kind,
                                                             const PageRequest& req) {
  std::optional<std::pair<int64_t, int64_t>> after;  // (score, id)
  if (req.cursor) {
    after = DecodeScoreCursor(*req.cursor, 'p');
    if (!after) {
      co_return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
    }
  }
  if (!Checked()) {
    PL_CO_CHECK(co_await EnsureChecked());
  }
  Result<std::optional<redis::ListPage>> page = std::optional<redis::ListPage>{};
  for (int attempt = 0; attempt < 2; ++attempt) {
    // if/else, not ?: — GCC 12 destroys the temporaries of a co_await inside ?: twice.
    if (after) {
      page = co_await cache_.PageAfter(kind, after->first, after->second, req.size + 1);
    } else {
      page = co_await cache_.Page(kind, (req.page - 1) * req.size, req.size + 1);
    }
    PL_CO_CHECK(page);
    if (*page) {
      break;
    }
    PL_CO_CHECK(co_await RebuildIndexes());
  }
  if (!*page) {
    co_return Fail(ErrorCode::kUnavailable, "list index is being rebuilt; retry");
  }
  co_return std::move(**page);
}

Awaitable<Result<PageResult<Article>>> ArticleService::PageOf(redis::ListPage index,
                                                              const PageRequest& req) {
  auto& entries = index.entries;
  bool more = static_cast<int64_t>(entries.size()) > req.size;
  if (more) {
    entries.resize(static_cast<size_t>(req.size));
  }
  std::vector<int64_t> ids;
  ids.reserve(entries.size());
  for (const auto& e : entries) {
    ids.push_back(e.id);
  }
  auto items = co_await Hydrate(ids);
  PL_CO_CHECK(items);
  PageResult<Article> out;
  out.total = index.total;
  out.items = std::move(*items);
  if (more && !entries.empty()) {
    const auto& last = entries.back();
    out.next_cursor = EncodeScoreCursor('p', last.score, last.id);
  }
  co_return out;
}

Awaitable<Result<PageResult<Article>>> ArticleService::ListPublished(
    std::optional<ArticleKind> kind, PageRequest req) {
  PL_CO_TRY(auto index, co_await IndexPage(kind, req));
  co_return co_await PageOf(std::move(index), req);
}

Awaitable<Result<PageResult<Article>>> ArticleService::ListOwn(const Principal& who,
                                                               bool drafts_only,
                                                               std::optional<ArticleKind> kind,
                                                               PageRequest req) {
  sql::AuthorListQuery q;
  if (!HasRole(who.role, Role::kAdmin)) {
    q.author_id = who.id;
  }
  if (drafts_only) {
    q.status = "draft";
  }
  if (kind) {
    q.kind = std::string(KindName(*kind));
  }
  q.limit = req.size + 1;
  q.offset = (req.page - 1) * req.size;
  if (req.cursor) {
    auto raw = DecodeCursor(*req.cursor);
    const std::optional<int64_t> id = raw ? OwnCursorId(*raw) : std::nullopt;
    if (!id) {
      co_return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
    }
    q.before_id = id;
  }
  PL_CO_TRY(auto rows, co_await table_.ListForAuthor(q));
  PageResult<Article> out;
  out.total = rows.second;
  bool more = static_cast<int64_t>(rows.first.size()) > req.size;
  if (more) {
    rows.first.resize(static_cast<size_t>(req.size));
  }
  for (auto& r : rows.first) {
    out.items.push_back(std::move(r));
  }
  if (more && !out.items.empty()) {
    out.next_cursor = EncodeCursor("o" + std::to_string(out.items.back().id));
  }
  co_return out;
}

Awaitable<Result<ChangePage>> ArticleService::Changes(const Principal& who, std::string after,
                                                      int64_t limit) {
  if (!HasRole(who.role, Role::kAdmin)) {
    co_return Fail(ErrorCode::kPermissionDenied, "the change feed is for admins");
  }
  auto cursor = ParseChangeCursor(after);
  if (!cursor) {
    co_return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
  }
  Result<std::vector<sql::ChangeRow>> rows = std::vector<sql::ChangeRow>{};
  // if/else, not ?: around co_await (GCC 12).
  if (cursor->from_ms) {
    rows = co_await changes_.FromTime(*cursor->from_ms, limit);
  } else {
    rows = co_await changes_.After(*cursor->after_id, limit);
  }
  PL_CO_CHECK(rows);
  ChangePage page;
  for (auto& row : *rows) {
    page.items.push_back({std::to_string(row.id), row.article_id, std::move(row.op), row.at_ms});
  }
  if (!page.items.empty()) {
    page.next_cursor = page.items.back().cursor;
  } else if (cursor->from_ms) {
    page.next_cursor = after;  // nothing at or after that time yet: resume there again
  } else {
    page.next_cursor = std::to_string(*cursor->after_id);
  }
  co_return page;
}

}  // namespace plaudit::domain
