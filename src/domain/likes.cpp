#include "domain/likes.hpp"

#include <set>

#include "common/when_all.hpp"

namespace plaudit::domain {
namespace {

constexpr int64_t kSmallLikers = 256;  // like_set.lua splits a target's set beyond this
constexpr int kLoadRounds = 8;         // reads of SQL per load while flushes move the epoch

using redis::LikerLoad;

// A target's count as Redis must hold it: SQL's (which equals SQL's valid rows) with every
// change not yet in SQL applied, each user's newest one counted against that user's row.
// SQL's count and rows come from one snapshot; `changes` were listed before SQL was read and
// cannot change while the count is missing (like_set.lua misses without it), and the epoch
// check in like_load.lua rejects the result if any of them left Redis meanwhile.
int64_t CountWithUnflushed(const sql::LikeCountState& sql,
                           const std::vector<std::pair<int64_t, bool>>& changes) {
  const std::set<int64_t> liked(sql.liked.begin(), sql.liked.end());
  int64_t count = *sql.count;
  for (const auto& [uid, now] : changes) {
    count += (now ? 1 : 0) - (liked.count(uid) != 0 ? 1 : 0);
  }
  return count;
}

}  // namespace

LikeService::LikeService(redis::LikeStore& store, sql::LikeTable& table)
    : store_(store), table_(table) {}

Awaitable<Result<bool>> LikeService::LoadMissing(const model::Target& t, int64_t user_id,
                                                 const redis::LikeReading& seen) {
  const bool need_bucket = seen.user == redis::LikeOf::kNotLoaded && user_id > 0;
  const bool need_count = !seen.count;
  const int64_t bucket = redis::LikeBucketOf(user_id);
  std::string key = redis::TargetName(t) + ":" + std::to_string(bucket) + (need_bucket ? "b" : "") +
                    (need_count ? "c" : "");
  std::function<Awaitable<Result<bool>>()> load = [this, t, user_id, need_bucket, need_count,
                                                   bucket]() -> Awaitable<Result<bool>> {
    // Redis first (the epoch, and for a count the changes not yet in SQL), then SQL, then
    // Redis again, which installs nothing if the epoch moved meanwhile: then SQL's answer
    // may lack changes whose last copy in Redis is gone (a flush committed and cleaned up in
    // between), so read both again. A few rounds at most: the epoch moves once per flush of
    // the shard.
    for (int round = 0; round < kLoadRounds; ++round) {
      PL_CO_TRY(auto unflushed, co_await store_.ReadUnflushed(t, need_count));
      std::vector<int64_t> users;
      users.reserve(unflushed.changes.size());
      for (const auto& [uid, liked] : unflushed.changes) {
        users.push_back(uid);
      }
      // The count decides existence: an unknown target is never cached.
      PL_CO_TRY(auto sql, co_await table_.CountState(t, std::move(users)));
      if (!sql.count) {
        co_return false;
      }
      std::optional<LikerLoad> likers;
      if (need_bucket) {
        // Up to 256 likers: all of them, one set (small mode). More: the user's bucket only.
        PL_CO_TRY(auto all, co_await table_.Likers(t, 0, INT64_MAX, kSmallLikers + 1));
        if (static_cast<int64_t>(all.size()) <= kSmallLikers) {
          likers = LikerLoad{true, std::move(all)};
        } else {
          const auto [lo, hi] = redis::LikeBucketUsers(bucket);
          PL_CO_TRY(auto rows, co_await table_.Likers(t, lo, hi, kSmallLikers + 1));
          likers = LikerLoad{false, std::move(rows)};
        }
      }
      std::optional<int64_t> count;
      if (need_count) {
        count = CountWithUnflushed(sql, unflushed.changes);
      }
      PL_CO_TRY(auto loaded, co_await store_.Load(t, user_id, likers, count, unflushed.epoch));
      if (loaded == redis::LikeStore::LoadOutcome::kInstalled) {
        co_return true;
      }
      if (loaded == redis::LikeStore::LoadOutcome::kUnchecked && freshness_ != nullptr) {
        // Emptied (FLUSHALL) since this connection's check: check again, which marks it.
        PL_CO_CHECK(co_await freshness_->Recheck());
      }
    }
    co_return Fail(ErrorCode::kUnavailable, "like state kept changing while loading; retry");
  };
  co_return co_await loads_.Do(key, std::move(load));
}

Awaitable<Result<LikeState>> LikeService::Set(const Principal& who, const model::Target& t,
                                              bool like, const redis::HotOrder* hot) {
  PL_CO_TRY(auto r, co_await SetImpl(who, t, like, hot, false));
  if (!r) {
    co_return Fail(ErrorCode::kInternal, "like refused without a condition");
  }
  co_return *r;
}

// Not a coroutine: SetImpl's own awaitable, without a frame around it (the caller awaits it
// at once, while `who` and `article` are alive).
Awaitable<Result<std::optional<LikeState>>> LikeService::SetIfPublished(
    const Principal& who, const model::Target& target, bool like, const redis::HotOrder* hot) {
  return SetImpl(who, target, like, hot, true);
}

Awaitable<Result<std::optional<LikeState>>> LikeService::SetImpl(const Principal& who,
                                                                 const model::Target& t, bool like,
                                                                 const redis::HotOrder* hot,
                                                                 bool require_published) {
  if (freshness_ != nullptr && !freshness_->LikesChecked()) {
    PL_CO_CHECK(co_await freshness_->Check());
  }
  for (int attempt = 0; attempt < 4; ++attempt) {
    PL_CO_TRY(auto r, co_await store_.Set(t, who.id, like, hot, require_published));
    if (r.user == redis::LikeOf::kNotPublished) {
      co_return std::optional<LikeState>{};
    }
    if (r.Complete()) {
      co_return std::optional<LikeState>(LikeState{r.liked(), *r.count});
    }
    // A miss: learn what is missing, load it from SQL, and try again. Never count blind.
    PL_CO_TRY(auto seen, co_await store_.Get(t, who.id));
    PL_CO_TRY(const bool exists, co_await LoadMissing(t, who.id, seen));
    if (!exists) {
      co_return Fail(ErrorCode::kNotFound, "no such target");
    }
  }
  co_return Fail(ErrorCode::kUnavailable, "like state kept disappearing; retry");
}

Awaitable<Result<LikeState>> LikeService::Get(int64_t user_id, const model::Target& t) {
  if (freshness_ != nullptr && !freshness_->LikesChecked()) {
    PL_CO_CHECK(co_await freshness_->Check());
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    PL_CO_TRY(auto r, co_await store_.Get(t, user_id));
    if (r.Complete()) {
      co_return LikeState{r.liked(), *r.count};
    }
    PL_CO_TRY(const bool exists, co_await LoadMissing(t, user_id, r));
    if (!exists) {
      co_return LikeState{false, 0};
    }
  }
  co_return Fail(ErrorCode::kUnavailable, "like state kept disappearing; retry");
}

Awaitable<Result<std::vector<LikeState>>> LikeService::GetMany(int64_t user_id,
                                                               std::vector<model::Target> targets) {
  return Read(user_id, std::move(targets), /*counts=*/true);
}

Awaitable<Result<std::vector<std::optional<LikeState>>>> LikeService::ReadCached(
    int64_t user_id, std::vector<model::Target> targets) {
  if (freshness_ != nullptr && !freshness_->LikesChecked()) {
    PL_CO_CHECK(co_await freshness_->Check());
  }
  PL_CO_TRY(const auto readings, co_await store_.GetMany(targets, user_id, /*counts=*/true));
  std::vector<std::optional<LikeState>> out(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto& r = readings[i];
    if (r.Complete()) {
      out[i] = LikeState{r.liked(), *r.count};
    }
  }
  co_return out;
}

Awaitable<Result<std::vector<bool>>> LikeService::Liked(int64_t user_id,
                                                        std::vector<model::Target> targets) {
  PL_CO_TRY(auto states, co_await Read(user_id, std::move(targets), /*counts=*/false));
  std::vector<bool> out(states.size());
  for (size_t i = 0; i < states.size(); ++i) {
    out[i] = states[i].liked;
  }
  co_return out;
}

Awaitable<Result<std::vector<LikeState>>> LikeService::Read(int64_t user_id,
                                                            std::vector<model::Target> targets,
                                                            bool counts) {
  if (freshness_ != nullptr && !freshness_->LikesChecked()) {
    PL_CO_CHECK(co_await freshness_->Check());
  }
  PL_CO_TRY(auto readings, co_await store_.GetMany(targets, user_id, counts));
  std::vector<LikeState> out(targets.size());
  // Whatever is not loaded goes through Get (which loads it from SQL), all at once.
  std::vector<size_t> misses;
  std::vector<Awaitable<Result<LikeState>>> loads;
  for (size_t i = 0; i < targets.size(); ++i) {
    const auto& r = (readings)[i];
    if (counts ? r.Complete() : r.Known()) {
      out[i] = LikeState{r.liked(), r.count ? *r.count : 0};
    } else {
      misses.push_back(i);
      loads.push_back(Get(user_id, targets[i]));
    }
  }
  auto loaded = co_await WhenAll(std::move(loads));
  for (size_t j = 0; j < misses.size(); ++j) {
    if (!loaded[j]) {
      co_return tl::unexpected(loaded[j].error());
    }
    out[misses[j]] = *loaded[j];
  }
  co_return out;
}

}  // namespace plaudit::domain
