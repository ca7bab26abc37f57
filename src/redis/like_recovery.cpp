// LikeStore's shard-wide marks and keyspace sweeps: the id frontier (birth marks, seqs, cache
// marks), the scan of cached counts for reconcile, and recovery after Redis came back older.
#include <functional>

#include "common/decimal.hpp"
#include "common/when_all.hpp"
#include "redis/client/scan.hpp"
#include "redis/keys.hpp"
#include "redis/like_store.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {

Awaitable<Result<IdFrontier>> LikeStore::ReadIdFrontier(IdKind kind,
                                                        const std::vector<int>& shards) {
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(1 + 3 * shards.size());
  cmds.push_back(
      {"GET", std::string(kind == IdKind::kComment ? keys::kCommentSeq : keys::kArticleSeq)});
  for (int shard : shards) {
    cmds.push_back({"GET", keys::LikeBirthMark(shard)});
    cmds.push_back({"GET", keys::LikeSeq(shard)});
    cmds.push_back({"ZCARD", keys::CacheMarks(shard)});
  }
  auto r = co_await client_.Pipeline(std::move(cmds));
  PL_CO_CHECK(AllOk(r));
  if (r->size() != 1 + 3 * shards.size()) {
    co_return Fail(ErrorCode::kInternal, "unexpected reply");
  }
  auto number = [](const Reply& x) -> std::optional<int64_t> {
    return x.is_nil() ? std::nullopt : x.AsInt();
  };
  IdFrontier out;
  out.seq = number((*r)[0]);
  out.shards.reserve(shards.size());
  for (size_t i = 0; i < shards.size(); ++i) {
    const Reply& marks = (*r)[3 + 3 * i];
    out.shards.push_back({number((*r)[1 + 3 * i]), number((*r)[2 + 3 * i]), marks.integer != 0});
  }
  co_return out;
}

Awaitable<Status> LikeStore::ScanCachedCounts(
    std::function<Awaitable<Status>(std::vector<model::Target>)> each) {
  // pl:lc:{l<shard>}:<type><id>
  std::function<Awaitable<Status>(std::vector<std::string>)> parse =
      [&each](std::vector<std::string> found) -> Awaitable<Status> {
    std::vector<model::Target> targets;
    for (const std::string& key : found) {
      const int shard = keys::CachedShardOf(key);
      const auto close = key.find("}:");
      if (shard < 0 || close == std::string::npos || close + 3 >= key.size()) {
        continue;
      }
      const char type = key[close + 2];
      const int64_t id = ParseIntOr(std::string_view(key).substr(close + 3), -1);
      if ((type != 'a' && type != 'c') || id < 0) {
        continue;
      }
      const model::Target t = type == 'c' ? model::Target::Comment(id) : model::Target::Article(id);
      if (TargetShard(t) == shard && keys::LikeCount(shard, TargetName(t)) == key) {
        targets.push_back(t);
      }
    }
    if (targets.empty()) {
      co_return Status{};
    }
    co_return co_await each(std::move(targets));
  };
  co_return co_await ScanKeys(client_, std::string(keys::kLikeCountPrefix) + "*", std::move(parse));
}

Awaitable<Result<std::vector<int>>> LikeStore::CheckShards(const std::vector<int64_t>& sql_seqs,
                                                           ShardSet shards) {
  const std::vector<int> list = shards.List();
  std::vector<Awaitable<Result<Reply>>> calls;
  calls.reserve(list.size());
  for (int s : list) {
    std::vector<std::string> keys{keys::LikeSeq(s),          keys::LikeDirty(s),
                                  keys::LikeInFlightSet(s),  keys::LikeEpoch(s),
                                  keys::LikeRecoveryMark(s), keys::LikeBirthMark(s)};
    const int64_t sql =
        static_cast<size_t>(s) < sql_seqs.size() ? sql_seqs[static_cast<size_t>(s)] : 0;
    std::vector<std::string> args{std::to_string(sql)};
    calls.push_back(client_.Eval(GetScript("like_recover.lua"), std::move(keys), std::move(args)));
  }
  auto replies = co_await WhenAll(std::move(calls));  // one round trip
  std::vector<int> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& r = replies[i];
    PL_CO_CHECK(ReplyOk(r));
    if (r->integer == 1) {
      out.push_back(list[i]);
    }
  }
  co_return out;
}

Awaitable<Status> LikeStore::FinishRecovery(const std::vector<int>& shards) {
  if (shards.empty()) {
    co_return Status{};
  }
  std::vector<bool> recovering(keys::kLikeShards, false);
  for (int s : shards) {
    recovering[static_cast<size_t>(s)] = true;
  }
  std::function<bool(std::string_view)> cached = [&recovering](std::string_view key) {
    const int s = keys::CachedShardOf(key);
    return s >= 0 && recovering[static_cast<size_t>(s)];
  };
  if (auto st = co_await UnlinkMatching(client_, "pl:*", std::move(cached)); !st) {
    co_return st;
  }
  // The published lists may name articles whose state the older Redis had: rebuilt on read.
  std::vector<std::vector<std::string>> lists;
  for (std::string_view list : {"all", "article", "post"}) {
    lists.push_back({"UNLINK", keys::PublishedList(list)});
  }
  // With their version (born again anew); the shards' own went with their caches above.
  lists.push_back({"UNLINK", std::string(keys::kPublishedListsVersion)});
  if (auto st = AllOk(co_await client_.Pipeline(std::move(lists))); !st) {
    co_return st;
  }
  std::vector<Awaitable<Result<Reply>>> clears;
  for (int s : shards) {
    std::vector<std::string> keys{keys::LikeRecoveryMark(s), keys::LikeEpoch(s)};
    std::vector<std::string> args;
    clears.push_back(client_.Eval(GetScript("like_forget.lua"), std::move(keys), std::move(args)));
  }
  auto cleared = co_await WhenAll(std::move(clears));
  for (const auto& r : cleared) {
    if (auto st = ReplyOk(r); !st) {
      co_return st;
    }
  }
  co_return Status{};
}

}  // namespace plaudit::redis
