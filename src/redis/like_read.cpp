// LikeStore's reads of like states and counts (Get, GetMany): one round trip however many
// targets, shaped by whether they share a shard and whether the reader is signed in.
#include <algorithm>

#include "redis/keys.hpp"
#include "redis/like_store.hpp"
#include "redis/like_store_detail.hpp"
#include "redis/script.hpp"

namespace plaudit::redis {

Awaitable<Result<LikeReading>> LikeStore::Get(const model::Target& t, int64_t user_id) {
  const std::vector<model::Target> one{t};
  PL_CO_TRY(auto r, co_await GetMany(one, user_id));
  co_return r.front();
}

Awaitable<Result<std::vector<LikeReading>>> LikeStore::GetMany(
    const std::vector<model::Target>& targets, int64_t user_id, bool counts) {
  const int first_shard = targets.empty() ? 0 : TargetShard(targets.front());
  const bool one_shard = targets.size() > 1 &&
                         std::all_of(targets.begin(), targets.end(), [&](const model::Target& t) {
                           return TargetShard(t) == first_shard;
                         });
  if (user_id == 0 && !counts) {
    co_return std::vector<LikeReading>(targets.size(), LikeReading{LikeOf::kNo, std::nullopt});
  }
  if (user_id == 0) {
    // Anonymous: only the counts. One shard (a comment page, whose comments share their
    // article's shard): one MGET, where like_get.lua took four keys per comment (320 for a
    // 20 × 3 page) to read the same counts. Across shards (an article list): a plain GET
    // each in one pipeline, since MGET must stay in one hash slot (a script call per shard
    // cost Redis several times more, and plauditd a request each).
    std::vector<LikeReading> out(targets.size());
    if (targets.empty()) {
      co_return out;
    }
    std::vector<Reply> counts;
    if (one_shard) {
      std::vector<std::string> mget;
      mget.reserve(1 + targets.size());
      mget.push_back("MGET");
      for (const model::Target& t : targets) {
        mget.push_back(keys::LikeCount(first_shard, TargetName(t)));
      }
      auto r = co_await client_.Command(std::move(mget));
      PL_CO_CHECK(ReplyOk(r));
      if (r->elements.size() != targets.size()) {
        co_return Fail(ErrorCode::kInternal, "unexpected MGET reply");
      }
      counts = std::move(r->elements);
    } else {
      std::vector<std::vector<std::string>> gets;
      gets.reserve(targets.size());
      for (const model::Target& t : targets) {
        gets.push_back({"GET", keys::LikeCount(TargetShard(t), TargetName(t))});
      }
      auto r = co_await client_.Pipeline(std::move(gets));
      PL_CO_CHECK(AllOk(r));
      counts = std::move(*r);
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      const Reply& c = counts[i];
      std::optional<int64_t> n = c.is_nil() ? std::nullopt : c.AsInt();
      if (!c.is_nil() && !n) {
        co_return Fail(ErrorCode::kInternal, "corrupt like count");
      }
      out[i] = LikeReading{LikeOf::kNo, n};
    }
    co_return out;
  }
  if (one_shard) {
    // A comment page (its comments share the article's shard): one like_get.lua call reads
    // every state atomically, instead of three commands per comment; one key per comment
    // (the script builds the other two).
    std::vector<std::string> keys;
    keys.reserve(targets.size());
    for (const model::Target& t : targets) {
      keys.push_back(keys::LikeBucket(first_shard, detail::SmallMember(t)));
    }
    std::vector<std::string> args{std::to_string(user_id), std::to_string(LikeBucketOf(user_id)),
                                  counts ? "1" : "0", std::to_string(targets.size())};
    auto r = co_await client_.Eval(GetScript("like_get.lua"), std::move(keys), std::move(args));
    PL_CO_CHECK(ReplyOk(r));
    const auto& e = r->elements;
    const size_t per = counts ? 2 : 1;
    if (e.size() != per * targets.size()) {
      co_return Fail(ErrorCode::kInternal, "unexpected like reply");
    }
    std::vector<LikeReading> out(targets.size());
    // like_get.lua: state 1/0, -1 not loaded; count -2 not loaded.
    for (size_t j = 0; j < targets.size(); ++j) {
      const int64_t state = e[per * j].integer;
      const int64_t count = counts ? e[per * j + 1].integer : -2;
      out[j] = LikeReading{state == 1   ? LikeOf::kYes
                           : state == 0 ? LikeOf::kNo
                                        : LikeOf::kNotLoaded,
                           count == -2 ? std::nullopt : std::optional<int64_t>(count)};
    }
    co_return out;
  }
  // Targets across shards (an article list, one target per shard), or a single one: three
  // plain commands per target in one pipeline (one round trip; a script call per shard cost
  // Redis several times more, and plauditd a request each). They are not one snapshot: a
  // like or a split may land between them, so each value is one that held a moment apart, as
  // with two separate requests; a set seen as not loaded is a miss (load, read again).
  const std::string uid = std::to_string(user_id);
  // No EXISTS of the big-mode mark: as in like_set.lua, a bucket holding 0 implies it (a
  // bucket is only ever created with the mark), and the small set is asked first.
  const size_t per = counts ? 3 : 2;
  std::vector<std::vector<std::string>> cmds;
  cmds.reserve(per * targets.size());
  for (const model::Target& t : targets) {
    const int s = TargetShard(t);
    cmds.push_back({"SMISMEMBER", keys::LikeBucket(s, detail::SmallMember(t)), uid, "0"});
    cmds.push_back(
        {"SMISMEMBER", keys::LikeBucket(s, detail::Member(t, LikeBucketOf(user_id))), uid, "0"});
    if (counts) {
      cmds.push_back({"GET", keys::LikeCount(s, TargetName(t))});
    }
  }
  std::vector<LikeReading> out(targets.size());
  if (cmds.empty()) {
    co_return out;
  }
  auto replies = co_await client_.Pipeline(std::move(cmds));
  PL_CO_CHECK(AllOk(replies));
  // SMISMEMBER answers {uid is a member, 0 (the loaded mark) is a member}.
  auto flags = [](const Reply& r, bool* member, bool* loaded) {
    if (r.elements.size() != 2) {
      return false;
    }
    *member = r.elements[0].integer == 1;
    *loaded = r.elements[1].integer == 1;
    return true;
  };
  for (size_t i = 0; i < targets.size(); ++i) {
    const Reply* r = &(*replies)[per * i];
    bool small_has = false, small_loaded = false, bucket_has = false, bucket_loaded = false;
    if (!flags(r[0], &small_has, &small_loaded) || !flags(r[1], &bucket_has, &bucket_loaded)) {
      co_return Fail(ErrorCode::kInternal, "unexpected like reply");
    }
    LikeOf state = LikeOf::kNotLoaded;
    if (small_loaded) {
      state = small_has ? LikeOf::kYes : LikeOf::kNo;
    } else if (bucket_loaded) {
      state = bucket_has ? LikeOf::kYes : LikeOf::kNo;
    }
    std::optional<int64_t> n;
    if (counts) {
      n = r[2].is_nil() ? std::nullopt : r[2].AsInt();
      if (!r[2].is_nil() && !n) {
        co_return Fail(ErrorCode::kInternal, "corrupt like count");
      }
    }
    out[i] = LikeReading{state, n};
  }
  co_return out;
}

}  // namespace plaudit::redis
