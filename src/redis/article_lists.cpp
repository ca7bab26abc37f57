// ArticleCache's published lists: pages, the versioned list changes, and the rebuild from
// SQL under a lock (index_update.lua, index_rebuild.lua, list_page.lua).
#include <cstdio>

#include "redis/article_cache.hpp"
#include "redis/keys.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {

namespace {

// The published list of one kind (its KindName), or of both ("all").
std::string_view ListName(std::optional<model::ArticleKind> kind) {
  return kind ? model::KindName(*kind) : std::string_view("all");
}

// The sentinel member (id 0). Built on first use, not during static initialization, where a
// throw (it allocates) could not be caught.
const std::string& Sentinel() {
  static const std::string sentinel = ListMember(0);
  return sentinel;
}

Result<std::optional<ListPage>> ToPage(const Result<Reply>& r) {
  PL_CHECK(ReplyOk(r));
  if (r->is_nil() || r->elements.size() != 3) {
    return std::optional<ListPage>{};
  }
  ListPage page;
  page.total = r->elements[0].integer;
  page.version = r->elements[2].str;
  const auto& items = r->elements[1].elements;
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    ListEntry e;
    e.id = std::stoll(items[i].str);
    e.score = static_cast<int64_t>(std::stod(items[i + 1].str));
    page.entries.push_back(e);
  }
  return std::optional<ListPage>(std::move(page));
}

}  // namespace

std::string ListMember(int64_t id) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%019lld", static_cast<long long>(id));
  return buf;
}

int64_t ArticleCache::ListScore(bool pinned, int64_t published_at_ms) {
  return (pinned ? (int64_t{1} << 51) : 0) + published_at_ms;
}

Awaitable<Result<std::vector<bool>>> ArticleCache::InPublishedIndex(
    const std::vector<int64_t>& ids) {
  std::vector<bool> out;
  if (ids.empty()) {
    co_return out;
  }
  std::vector<std::string> cmd{"ZMSCORE", keys::PublishedList("all")};
  cmd.reserve(2 + ids.size());
  for (int64_t id : ids) {
    cmd.push_back(ListMember(id));
  }
  auto r = co_await client_.Command(std::move(cmd));
  PL_CO_CHECK(ReplyOk(r));
  out.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    out.push_back(i < r->elements.size() && !r->elements[i].is_nil());
  }
  co_return out;
}

Awaitable<Result<std::optional<ListPage>>> ArticleCache::Page(
    std::optional<model::ArticleKind> kind, int64_t start, int64_t count) {
  std::vector<std::string> keys{keys::PublishedList(ListName(kind)),
                                std::string(keys::kPublishedListsVersion)};
  std::vector<std::string> args{Sentinel(), "rank", std::to_string(start), std::to_string(count),
                                NewVersionBase()};
  co_return ToPage(
      co_await client_.Eval(GetScript("list_page.lua"), std::move(keys), std::move(args)));
}

Awaitable<Result<std::optional<ListPage>>> ArticleCache::PageAfter(
    std::optional<model::ArticleKind> kind, int64_t score, int64_t id, int64_t count) {
  std::vector<std::string> keys{keys::PublishedList(ListName(kind)),
                                std::string(keys::kPublishedListsVersion)};
  std::vector<std::string> args{
      Sentinel(),      "after", std::to_string(score), ListMember(id), std::to_string(count),
      NewVersionBase()};
  co_return ToPage(
      co_await client_.Eval(GetScript("list_page.lua"), std::move(keys), std::move(args)));
}

Awaitable<Result<bool>> ArticleCache::IndexChange(int64_t id, std::string_view kind, int64_t score,
                                                  int64_t ver) {
  std::vector<std::string> keys;
  keys.reserve(7);
  for (auto list : kLists) {
    keys.push_back(keys::PublishedList(list));
    keys.push_back(keys::PublishedListRebuild(list));
  }
  keys.push_back(keys::PublishedListVersion(id));
  std::vector<std::string> args{kind.empty() ? "rem" : "add", ListMember(id), std::to_string(score),
                                std::to_string(ver), std::string(kind)};
  auto r = co_await client_.Eval(GetScript("index_update.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  co_return r->integer == 1;
}

Awaitable<Result<bool>> ArticleCache::IndexAdd(const model::Article& a) {
  const int64_t score = ListScore(a.pinned, a.published_at_ms.value_or(0));
  co_return co_await IndexChange(a.id, model::KindName(a.kind), score, a.ver);
}

Awaitable<Result<bool>> ArticleCache::IndexRemove(int64_t id, int64_t ver) {
  co_return co_await IndexChange(id, "", 0, ver);
}

Awaitable<Result<bool>> ArticleCache::TryLockRebuild(const std::string& owner) {
  std::vector<std::string> cmd{"SET", std::string(keys::kPublishedListLock), owner, "NX",
                               "PX",  std::to_string(kRebuildLeaseMs)};
  auto r = co_await client_.Command(std::move(cmd));
  PL_CO_CHECK(ReplyOk(r));
  co_return !r->is_nil();
}

Awaitable<Result<bool>> ArticleCache::RebuildStep(std::string_view step, const std::string& owner,
                                                  std::vector<std::string> extra) {
  std::vector<std::string> keys{std::string(keys::kPublishedListLock)};
  for (auto list : kLists) {
    keys.push_back(keys::PublishedListRebuild(list));
  }
  for (auto list : kLists) {
    keys.push_back(keys::PublishedList(list));
  }
  std::vector<std::string> args{std::string(step), owner, std::to_string(kRebuildLeaseMs),
                                Sentinel()};
  args.insert(args.end(), std::make_move_iterator(extra.begin()),
              std::make_move_iterator(extra.end()));
  auto r = co_await client_.Eval(GetScript("index_rebuild.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  co_return r->integer == 1;
}

Awaitable<Result<bool>> ArticleCache::BeginRebuild(const std::string& owner) {
  std::vector<std::string> extra;
  co_return co_await RebuildStep("begin", owner, std::move(extra));
}

Awaitable<Result<bool>> ArticleCache::RebuildAdd(const std::string& owner,
                                                 const std::vector<RebuildEntry>& entries) {
  std::vector<std::string> extra;
  extra.reserve(5 * entries.size());
  for (const auto& e : entries) {
    extra.push_back(std::to_string(e.id));
    extra.push_back(std::to_string(ListScore(e.pinned, e.published_at_ms)));
    extra.push_back(std::to_string(e.ver));
    extra.emplace_back(model::KindName(e.kind));
    extra.push_back(ListMember(e.id));
  }
  co_return co_await RebuildStep("add", owner, std::move(extra));
}

Awaitable<Result<bool>> ArticleCache::AbortRebuild(const std::string& owner) {
  std::vector<std::string> extra;
  co_return co_await RebuildStep("abort", owner, std::move(extra));
}

Awaitable<Result<bool>> ArticleCache::FinishRebuild(const std::string& owner) {
  std::vector<std::string> extra;
  co_return co_await RebuildStep("finish", owner, std::move(extra));
}

}  // namespace plaudit::redis
