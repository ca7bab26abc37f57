// The flusher's side of LikeStore: shard stats, the dirty and in-flight buckets, claiming
// them (and reading a claimed hash back as changes), and Done once they are in SQL.
#include <string>

#include "common/decimal.hpp"
#include "redis/keys.hpp"
#include "redis/like_store.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {

Awaitable<Result<std::vector<LikeShardStat>>> LikeStore::Stats(ShardSet shards) {
  const std::vector<int> list = shards.List();
  std::vector<LikeShardStat> out;
  if (list.empty()) {
    co_return out;
  }
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(3 * list.size());
  for (int s : list) {
    cmds.push_back({"ZCARD", keys::LikeDirty(s)});
    cmds.push_back({"SCARD", keys::LikeInFlightSet(s)});
    cmds.push_back({"ZRANGE", keys::LikeDirty(s), "0", "0", "WITHSCORES"});
  }
  PL_CO_TRY(auto r, co_await client_.Pipeline(std::move(cmds)));
  out.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const auto& zcard = r[3 * i];
    const auto& scard = r[3 * i + 1];
    const auto& oldest = r[3 * i + 2];
    if (zcard.is_error() || scard.is_error() || oldest.is_error()) {
      co_return Fail(ErrorCode::kInternal, "redis: like shard stats failed");
    }
    LikeShardStat st{list[i], zcard.integer, scard.integer, std::nullopt};
    if (oldest.elements.size() == 2) {
      st.oldest_ms = static_cast<int64_t>(std::stod(oldest.elements[1].str));
    }
    out.push_back(st);
  }
  co_return out;
}

Awaitable<Result<LikeStore::ShardMembers>> LikeStore::Members(int shard, int64_t max) {
  std::vector<std::vector<std::string>> cmds;
  cmds.push_back({"SRANDMEMBER", keys::LikeInFlightSet(shard), std::to_string(max)});
  cmds.push_back({"ZRANGE", keys::LikeDirty(shard), "0", std::to_string(max - 1)});
  auto r = co_await client_.Pipeline(std::move(cmds));
  PL_CO_CHECK(AllOk(r));
  ShardMembers out;
  for (auto& e : (*r)[0].elements) {
    out.in_flight.push_back(std::move(e.str));
  }
  for (auto& e : (*r)[1].elements) {
    out.dirty.push_back(std::move(e.str));
  }
  co_return out;
}

Awaitable<Result<std::vector<ClaimedBucket>>> LikeStore::Claim(
    int shard, const std::vector<std::string>& members) {
  std::vector<std::string> keys{keys::LikeDirty(shard), keys::LikeInFlightSet(shard),
                                keys::LikeSeq(shard)};
  for (const auto& m : members) {
    keys.push_back(keys::LikePending(shard, m));
    keys.push_back(keys::LikeInFlight(shard, m));
  }
  std::vector<std::string> args(members.begin(), members.end());
  auto r = co_await client_.Eval(GetScript("like_claim.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  std::vector<ClaimedBucket> out;
  for (auto& item : r->elements) {
    if (item.elements.size() != 2) {
      co_return Fail(ErrorCode::kInternal, "unexpected claim reply");
    }
    auto& kv = item.elements[1].elements;
    std::vector<std::pair<std::string, std::string>> fields;
    fields.reserve(kv.size() / 2);
    for (size_t i = 0; i + 1 < kv.size(); i += 2) {
      fields.emplace_back(std::move(kv[i].str), std::move(kv[i + 1].str));
    }
    PL_CO_TRY(auto bucket, DecodeClaim(std::move(item.elements[0].str), fields));
    out.push_back(std::move(bucket));
  }
  co_return out;
}

Result<ClaimedBucket> LikeStore::DecodeClaim(
    std::string member, const std::vector<std::pair<std::string, std::string>>& fields) {
  // "<type><id>:<bucket>", the bucket "s" for the small-mode set (keys::LikeBucket's names).
  const auto colon = member.rfind(':');
  if (colon == std::string::npos || colon < 2) {
    return Fail(ErrorCode::kInternal, "unexpected claimed bucket " + member);
  }
  ClaimedBucket b;
  b.type = member[0];
  b.target_id = ParseIntOr(std::string_view(member).substr(1, colon - 1), 0);
  b.small = std::string_view(member).substr(colon + 1) == "s";
  for (const auto& [field, value] : fields) {
    if (field == "#") {
      b.seq = ParseIntOr(value, 0);
      continue;
    }
    ClaimedChange ch;
    ch.user_id = ParseIntOr(field, 0);
    const auto sep = value.find(':');
    ch.liked = std::string_view(value).substr(0, sep) == "1";
    if (sep != std::string::npos) {
      ch.seq = ParseIntOr(std::string_view(value).substr(sep + 1), 0);
    }
    b.changes.push_back(ch);
  }
  b.member = std::move(member);
  return b;
}

Awaitable<Status> LikeStore::Done(int shard, const std::vector<ClaimedBucket>& claimed) {
  std::vector<std::string> keys{keys::LikeInFlightSet(shard), keys::LikeEpoch(shard)};
  std::vector<std::string> args;
  for (const auto& b : claimed) {
    keys.push_back(keys::LikeInFlight(shard, b.member));
    args.push_back(b.member);
    args.push_back(b.seq ? std::to_string(*b.seq) : std::string());
  }
  co_return ReplyOk(
      co_await client_.Eval(GetScript("like_done.lua"), std::move(keys), std::move(args)));
}

}  // namespace plaudit::redis
