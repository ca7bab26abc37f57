// Loading a target's likes from SQL into Redis and forgetting its count: what a load reads
// first (ReadUnflushed, ReadCachedCount), the install (Load), and DropCount.
#include "redis/keys.hpp"
#include "redis/like_store.hpp"
#include "redis/like_store_detail.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {

Awaitable<Result<LikeStore::Unflushed>> LikeStore::ReadUnflushed(const model::Target& t,
                                                                 bool changes) {
  const int s = TargetShard(t);
  std::vector<std::string> keys{keys::LikeBucket(s, detail::SmallMember(t)), keys::LikeDirty(s),
                                keys::LikeInFlightSet(s), keys::LikeEpoch(s)};
  std::vector<std::string> args{changes ? "1" : "0"};
  auto r = co_await client_.Eval(GetScript("like_unflushed.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  const auto& e = r->elements;
  if (e.empty() || e.size() % 2 != 1) {
    co_return Fail(ErrorCode::kInternal, "unexpected like reply");
  }
  Unflushed out;
  out.epoch = e[0].str;
  for (size_t i = 1; i + 1 < e.size(); i += 2) {
    auto uid = e[i].AsInt();
    if (!uid) {
      co_return Fail(ErrorCode::kInternal, "corrupt pending like");
    }
    out.changes.emplace_back(*uid, e[i + 1].str == "1");
  }
  co_return out;
}

Awaitable<Result<LikeStore::CachedCount>> LikeStore::ReadCachedCount(const model::Target& t) {
  const int s = TargetShard(t);
  std::vector<std::string> keys{keys::LikeBucket(s, detail::SmallMember(t)), keys::LikeDirty(s),
                                keys::LikeInFlightSet(s), keys::LikeEpoch(s)};
  std::vector<std::string> args{"1", "1"};
  auto r = co_await client_.Eval(GetScript("like_unflushed.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  const auto& e = r->elements;
  if (e.size() < 2 || e.size() % 2 != 0) {
    co_return Fail(ErrorCode::kInternal, "unexpected like reply");
  }
  CachedCount out;
  out.unflushed.epoch = e[0].str;
  if (!e[1].is_nil()) {
    out.count = e[1].AsInt();
    if (!out.count) {
      co_return Fail(ErrorCode::kInternal, "corrupt like count");
    }
  }
  for (size_t i = 2; i + 1 < e.size(); i += 2) {
    auto uid = e[i].AsInt();
    if (!uid) {
      co_return Fail(ErrorCode::kInternal, "corrupt pending like");
    }
    out.unflushed.changes.emplace_back(*uid, e[i + 1].str == "1");
  }
  co_return out;
}

Awaitable<Result<LikeStore::LoadOutcome>> LikeStore::Load(const model::Target& t, int64_t user_id,
                                                          const std::optional<LikerLoad>& likers,
                                                          std::optional<int64_t> count,
                                                          const std::string& epoch) {
  const int s = TargetShard(t);
  const std::string small = detail::SmallMember(t);
  const int64_t b = LikeBucketOf(user_id);
  const std::string bucket = detail::Member(t, b);
  std::vector<std::string> keys{keys::LikeBucket(s, small),   keys::LikeBig(s, TargetName(t)),
                                keys::LikeBucket(s, bucket),  keys::LikeCount(s, TargetName(t)),
                                keys::LikePending(s, small),  keys::LikeInFlight(s, small),
                                keys::LikePending(s, bucket), keys::LikeInFlight(s, bucket),
                                keys::LikeEpoch(s),           keys::LikeBirthMark(s)};
  std::string mode;
  if (likers) {
    mode = likers->all ? "small" : "big";
  }
  std::vector<std::string> args{mode, count ? std::to_string(*count) : "",
                                std::to_string(b << keys::kLikeBucketShift),
                                std::to_string(((b + 1) << keys::kLikeBucketShift) - 1), epoch};
  if (likers) {
    for (int64_t uid : likers->user_ids) {
      args.push_back(std::to_string(uid));
    }
  }
  auto r = co_await client_.Eval(GetScript("like_load.lua"), std::move(keys), std::move(args));
  PL_CO_CHECK(ReplyOk(r));
  if (r->str == "retry") {
    co_return LoadOutcome::kRetry;
  }
  if (r->str == "unchecked") {
    co_return LoadOutcome::kUnchecked;
  }
  co_return LoadOutcome::kInstalled;
}

Awaitable<Status> LikeStore::DropCount(const model::Target& t) {
  std::vector<std::string> keys{keys::LikeCount(TargetShard(t), TargetName(t)),
                                keys::LikeEpoch(TargetShard(t))};
  std::vector<std::string> args;  // named: no braced list inside co_await (GCC 12)
  co_return ReplyOk(
      co_await client_.Eval(GetScript("like_forget.lua"), std::move(keys), std::move(args)));
}

}  // namespace plaudit::redis
