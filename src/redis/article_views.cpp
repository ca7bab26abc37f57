// ArticleCache's view counts: the write-behind's claim → commit → done (view_claim.lua), and
// the recovery after Redis came back older (view_check.lua, article_drop.lua).
#include <charconv>

#include "redis/article_cache.hpp"
#include "redis/client/scan.hpp"
#include "redis/keys.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {

Awaitable<Result<ArticleCache::ViewClaim>> ArticleCache::ClaimViews(int64_t max) {
  std::vector<std::string> keys{std::string(keys::kViewsDirty), std::string(keys::kViewsInFlight),
                                std::string(keys::kViewsSeq)};
  std::vector<std::string> args{std::to_string(max)};
  auto r = co_await client_.Eval(GetScript("view_claim.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  ViewClaim claim;
  std::vector<ClaimedView>& out = claim.views;
  const auto& items = r->elements;
  if (items.empty()) {
    co_return claim;
  }
  out.reserve(items.size() / 2);
  std::vector<std::vector<std::string>> reads;
  reads.reserve(items.size() / 2);
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    auto id = items[i].AsInt();
    if (!id || *id <= 0) {
      continue;  // not an id; it stays in flight, harmless
    }
    ClaimedView v;
    v.id = *id;
    v.seq = items[i + 1].str;
    reads.push_back({"HGET", keys::Article(v.id), "views"});
    out.push_back(std::move(v));
  }
  if (out.empty()) {
    co_return claim;
  }
  // Read after the claim: every view marked before it is in these counts. A failure here
  // leaves the ids in flight for the next pass.
  auto views = co_await client_.Pipeline(std::move(reads));
  PL_CO_CHECK(AllOk(views));
  for (size_t i = 0; i < out.size(); ++i) {
    if (auto n = (*views)[i].AsInt()) {
      out[i].views = n;
    }
  }
  // The stamp after the reads (the connection runs them in order): SQL gets it with these
  // counts, so a Redis restored from a snapshot taken before this point is seen as older.
  std::vector<std::string> seq_key{std::string(keys::kViewsSeq)};
  std::vector<std::string> no_args;
  auto stamp =
      co_await client_.Eval(GetScript("view_stamp.lua"), std::move(seq_key), std::move(no_args));
  PL_CO_CHECK(ReplyOk(stamp));
  auto n = stamp->AsInt();
  if (!n) {
    co_return Fail(ErrorCode::kInternal, "unexpected view_stamp.lua reply");
  }
  claim.stamp = *n;
  co_return claim;
}

Awaitable<Status> ArticleCache::ViewsDone(const std::vector<ClaimedView>& claimed) {
  if (claimed.empty()) {
    co_return Status{};
  }
  std::vector<std::string> keys{std::string(keys::kViewsInFlight)};
  std::vector<std::string> args;
  args.reserve(2 * claimed.size());
  for (const auto& v : claimed) {
    args.push_back(std::to_string(v.id));
    args.push_back(v.seq);
  }
  co_return ReplyOk(
      co_await client_.Eval(GetScript("view_done.lua"), std::move(keys), std::move(args)));
}

Awaitable<Result<int64_t>> ArticleCache::Pulse() {
  std::vector<std::string> cmd{"INCR", std::string(keys::kDatasetPulse)};
  auto r = co_await client_.Command(std::move(cmd));
  PL_CO_CHECK(ReplyOk(r));
  co_return r->integer;
}

Awaitable<Result<ArticleCache::ViewCheck>> ArticleCache::CheckViews(int64_t sql_seq, bool force,
                                                                    const std::string& owner,
                                                                    int64_t lease_ms) {
  std::vector<std::string> keys{std::string(keys::kViewsSeq), std::string(keys::kViewsBirthMark),
                                std::string(keys::kViewsRecoveryMark)};
  std::vector<std::string> args{std::to_string(sql_seq), owner, std::to_string(lease_ms),
                                force ? "1" : "0"};
  auto r = co_await client_.Eval(GetScript("view_check.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  switch (r->integer) {
    case 0:
      co_return ViewCheck::kConsistent;
    case 1:
      co_return ViewCheck::kRecover;
    case 2:
      co_return ViewCheck::kBusy;
    default:
      co_return Fail(ErrorCode::kInternal, "unexpected view_check.lua reply");
  }
}

Awaitable<Status> ArticleCache::DropArticles() {
  // Version floors stay: a fill that read its row before the write or delete that left one
  // may still land.
  std::function<bool(std::string_view)> article = [](std::string_view key) {
    return keys::IsArticleCache(key) && !key.ends_with(":floor");
  };
  if (auto st = co_await UnlinkMatching(client_, "pl:art:*", std::move(article)); !st) {
    co_return st;
  }
  // The lists may name articles in the state the older Redis had: rebuilt on the next read.
  // Their versions go too (one UNLINK per slot: Redis Cluster): born again with new values,
  // so no list page rendered from what was dropped is served again.
  std::vector<std::vector<std::string>> lists;
  for (auto list : kLists) {
    lists.push_back({"UNLINK", keys::PublishedList(list)});
  }
  lists.push_back({"UNLINK", std::string(keys::kPublishedListsVersion)});
  for (int s = 0; s < keys::kLikeShards; ++s) {
    lists.push_back({"UNLINK", keys::ListVersion(s), keys::ListViewsVersion(s)});
  }
  co_return AllOk(co_await client_.Pipeline(std::move(lists)));
}

Awaitable<Result<std::vector<int64_t>>> ArticleCache::CachedIds() {
  std::vector<int64_t> ids;
  std::function<Awaitable<Status>(std::vector<std::string>)> collect =
      [&ids](std::vector<std::string> keys) -> Awaitable<Status> {
    for (const std::string& k : keys) {
      // "pl:art:{lN}:<id>" exactly: not the body or floor beside it.
      const auto colon = k.rfind(':');
      if (colon == std::string::npos || !keys::IsArticleCache(k)) {
        continue;
      }
      int64_t id = 0;
      const char* first = k.data() + colon + 1;
      const char* last = k.data() + k.size();
      auto [end, ec] = std::from_chars(first, last, id);
      if (ec == std::errc{} && end == last && id > 0 && k == keys::Article(id)) {
        ids.push_back(id);
      }
    }
    co_return Status{};
  };
  PL_CO_CHECK(co_await ScanKeys(client_, "pl:art:{*}:*", std::move(collect)));
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());  // SCAN may repeat a key
  co_return ids;
}

Awaitable<Result<bool>> ArticleCache::DropIfFlushed(int64_t id, int64_t sql_views) {
  std::vector<std::string> keys{keys::Article(id), keys::ArticleBody(id)};
  std::vector<std::string> args{std::to_string(sql_views)};
  auto r = co_await client_.Eval(GetScript("article_drop.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  co_return r->integer == 1;
}

Awaitable<Result<bool>> ArticleCache::FinishViewRecovery(const std::string& owner) {
  std::vector<std::string> keys{std::string(keys::kViewsRecoveryMark)};
  std::vector<std::string> args{owner};
  auto r = co_await client_.Eval(GetScript("view_recovered.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  co_return r->integer == 1;
}

}  // namespace plaudit::redis
