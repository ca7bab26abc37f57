#include "domain/likes.hpp"

#include "common/when_all.hpp"

namespace plaudit::domain {

LikeService::LikeService(redis::LikeStore& store, sql::LikeTable& table)
    : store_(store), fill_(store, table) {}

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

Awaitable<Status> LikeService::EnsureChecked() {
  if (freshness_ == nullptr || freshness_->LikesChecked()) {
    co_return Status{};
  }
  PL_CO_TRY(const bool checked, co_await freshness_->Check());
  if (!checked) {
    co_return Fail(ErrorCode::kUnavailable,
                   "likes wait until Redis is checked against the database, which cannot be "
                   "read now; retry");
  }
  co_return Status{};
}

Awaitable<Result<std::optional<LikeState>>> LikeService::SetImpl(const Principal& who,
                                                                 const model::Target& t, bool like,
                                                                 const redis::HotOrder* hot,
                                                                 bool require_published) {
  PL_CO_CHECK(co_await EnsureChecked());
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
    PL_CO_TRY(const bool exists, co_await fill_.Fill(t, who.id, seen));
    if (!exists) {
      co_return Fail(ErrorCode::kNotFound, "no such target");
    }
  }
  co_return Fail(ErrorCode::kUnavailable, "like state kept disappearing; retry");
}

Awaitable<Result<LikeState>> LikeService::Get(int64_t user_id, const model::Target& t) {
  PL_CO_CHECK(co_await EnsureChecked());
  for (int attempt = 0; attempt < 3; ++attempt) {
    PL_CO_TRY(auto r, co_await store_.Get(t, user_id));
    if (r.Complete()) {
      co_return LikeState{r.liked(), *r.count};
    }
    PL_CO_TRY(const bool exists, co_await fill_.Fill(t, user_id, r));
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
  PL_CO_CHECK(co_await EnsureChecked());
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
  PL_CO_CHECK(co_await EnsureChecked());
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
