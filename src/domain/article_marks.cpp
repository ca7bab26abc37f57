// ArticleService's guard against a Redis older than SQL: the check a connection waits for,
// the cache marks a write leaves while its Redis step is pending, and their repair from SQL
// (docs/architecture.md, "Redis older than SQL").
#include <spdlog/spdlog.h>

#include "domain/articles.hpp"

namespace plaudit::domain {

Awaitable<Status> ArticleService::EnsureChecked() {
  if (Checked()) {
    co_return Status{};
  }
  co_return co_await freshness_->EnsureViews();
}

Awaitable<Status> ArticleService::Recheck() {
  if (freshness_ == nullptr) {
    co_return Status{};
  }
  PL_CO_CHECK(co_await freshness_->Recheck());
  co_return Status{};
}

Awaitable<Result<redis::CacheMark>> ArticleService::MarkWrite(redis::CacheTarget target) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    // Checked first: a seq taken on an older Redis would lift it above SQL's and hide it. A
    // read goes on when the check could not read SQL; a write needs SQL anyway, so it waits.
    if (attempt == 0) {
      if (!Checked()) {
        PL_CO_CHECK(co_await EnsureChecked());
      }
    } else if (freshness_ != nullptr) {
      PL_CO_CHECK(co_await Recheck());
    }
    if (!Checked()) {
      co_return Fail(ErrorCode::kUnavailable, "redis is not yet checked against SQL; retry");
    }
    if (attempt > 0) {
      marks_.Vouch();
    }
    PL_CO_TRY(auto mark, co_await marks_.Mark(target));
    if (mark) {
      co_return std::move(*mark);
    }
  }
  co_return Fail(ErrorCode::kUnavailable, "redis is not yet checked against SQL; retry");
}

Awaitable<void> ArticleService::UnmarkUnless(const redis::CacheMark& mark, const Error& e) {
  // A lost connection or a failed COMMIT may have committed: the mark stays, and a check
  // repairs the cache from SQL (safe either way). A refusal changed nothing.
  switch (e.code) {
    case ErrorCode::kNotFound:
    case ErrorCode::kPermissionDenied:
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kAlreadyExists:
      co_await Unmark(mark);
      break;
    default:
      break;
  }
}

Awaitable<void> ArticleService::Unmark(const redis::CacheMark& mark) {
  // A mark left behind is repaired from SQL by a later check: harmless, so only logged.
  if (auto st = co_await marks_.Unmark(mark); !st) {
    spdlog::warn("could not clear cache mark {} ({})", mark.member, st.error().message);
  }
}

Awaitable<Status> ArticleService::Repair(int64_t id) {
  PL_CO_TRY(auto row, co_await table_.Find(id, /*with_content=*/true));
  if (!row) {
    // No row: deleted, or a create not committed yet (a check repairs the marks of writes
    // in progress elsewhere when it meets a new connection). Only a deletion leaves the
    // floor that refuses every later fill and write; a create's own step caches it.
    PL_CO_TRY(auto deleted, co_await table_.WasDeleted(id));
    if (!deleted) {
      co_return Status{};
    }
    const std::vector<int64_t> no_comments;
    if (auto st = co_await cache_.Remove(id, no_comments); !st) {
      co_return st;
    }
    PL_CO_CHECK(co_await cache_.IndexRemove(id, redis::ArticleCache::kDeletedVersion));
    co_return Status{};
  }
  Article a = std::move(*row);
  co_return co_await Reflect(a, /*created=*/false);
}

Awaitable<Result<bool>> ArticleService::MarkSettled(const redis::CacheMark& mark) {
  if (mark.age_us > kAbandonUs) {
    co_return true;
  }
  PL_CO_TRY(auto row, co_await table_.Find(mark.target.id, /*with_content=*/false));
  if (!row) {
    co_return co_await table_.WasDeleted(mark.target.id);  // else: a create in flight
  }
  const int64_t committed = mark.target.IsArticle() ? (row)->cache_seq : (row)->thread_seq;
  co_return committed >= mark.seq;
}

Awaitable<Result<int64_t>> ArticleService::RepairPending() {
  std::function<Awaitable<Status>(int64_t)> repair = [this](int64_t id) { return Repair(id); };
  co_return co_await pending_repairs_.Retry(std::move(repair));
}

}  // namespace plaudit::domain
