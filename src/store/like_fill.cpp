#include "store/like_fill.hpp"

#include <functional>
#include <set>

namespace plaudit::store {
namespace {

constexpr int kLoadRounds = 8;  // reads of SQL per fill while flushes move the epoch

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

LikeFill::LikeFill(redis::LikeStore& store, sql::LikeTable& table) : store_(store), table_(table) {}

Awaitable<Result<bool>> LikeFill::Fill(const model::Target& t, int64_t user_id,
                                       const redis::LikeReading& seen) {
  const bool need_bucket = seen.user == redis::LikeOf::kNotLoaded && user_id > 0;
  const bool need_count = !seen.count;
  const int64_t bucket = redis::LikeBucketOf(user_id);
  std::string key = redis::TargetName(t) + ":" + std::to_string(bucket) + (need_bucket ? "b" : "") +
                    (need_count ? "c" : "");
  std::function<Awaitable<Result<bool>>()> fill = [this, t, user_id, need_bucket, need_count,
                                                   bucket]() -> Awaitable<Result<bool>> {
    // A few rounds at most: the epoch moves once per flush of the shard.
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
      std::optional<redis::LikerLoad> likers;
      if (need_bucket) {
        // Up to kSmallModeLikers likers: all of them, one set (small mode). More: the user's
        // bucket only.
        constexpr int64_t kSmall = redis::kSmallModeLikers;
        PL_CO_TRY(auto all, co_await table_.Likers(t, 0, INT64_MAX, kSmall + 1));
        if (static_cast<int64_t>(all.size()) <= kSmall) {
          likers = redis::LikerLoad{true, std::move(all)};
        } else {
          const auto [lo, hi] = redis::LikeBucketUsers(bucket);
          PL_CO_TRY(auto rows, co_await table_.Likers(t, lo, hi, kSmall + 1));
          likers = redis::LikerLoad{false, std::move(rows)};
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
  co_return co_await flights_.Do(key, std::move(fill));
}

}  // namespace plaudit::store
