#include "store/comment_rebuild.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <span>

#include "common/random_id.hpp"
#include "common/when_all.hpp"

namespace plaudit::store {
namespace {

constexpr int64_t kRebuildChunk = 1000;  // SQL rows per query while rebuilding
constexpr size_t kPutsPerScript = 100;   // comments per comment_put.lua call
constexpr int64_t kLeaseMs = 30000;      // a rebuilder that stops renewing loses it after this
constexpr int kWaitRounds = 400;         // × 25 ms: how long a reader waits on another rebuild
constexpr int kChunkAttempts = 3;        // tries per rebuild chunk before giving up

}  // namespace

CommentRebuilder::CommentRebuilder(sql::CommentTable& table, redis::CommentCache& cache)
    : table_(table), cache_(cache), owner_(RandomHexId()) {}

Awaitable<Status> CommentRebuilder::EnsureLoaded(int64_t article_id) {
  std::function<Awaitable<Result<bool>>()> build = [this, article_id] {
    return Rebuild(article_id);
  };
  PL_CO_CHECK(co_await flights_.Do(article_id, std::move(build)));
  co_return Status{};
}

Awaitable<Result<bool>> CommentRebuilder::Rebuild(int64_t article_id) {
  using redis::LeaseOp;
  using redis::LeaseState;
  auto ex = co_await net::this_coro::executor;
  for (int round = 0; round < kWaitRounds; ++round) {
    PL_CO_TRY(const LeaseState state,
              co_await cache_.Lease(article_id, LeaseOp::kBegin, owner_, kLeaseMs));
    if (state == LeaseState::kReady) {
      co_return true;
    }
    if (state == LeaseState::kBusy) {
      net::steady_timer wait(ex, std::chrono::milliseconds(25));
      boost::system::error_code ec;
      co_await wait.async_wait(net::redirect_error(net::use_awaitable, ec));
      continue;
    }
    // Ours: copy SQL into the cache chunk by chunk, yielding to other requests between.
    PL_CO_TRY(const std::optional<size_t> copied, co_await CopyFromSql(article_id));
    if (!copied) {
      continue;
    }
    PL_CO_TRY(const LeaseState done,
              co_await cache_.Lease(article_id, LeaseOp::kFinish, owner_, kLeaseMs, RandomHexId()));
    if (done != LeaseState::kOurs) {
      continue;
    }
    spdlog::info("rebuilt the comment cache of article {} from SQL ({} comments)", article_id,
                 *copied);
    co_return true;
  }
  co_return Fail(ErrorCode::kUnavailable, "comments are being rebuilt; retry");
}

Awaitable<Result<std::optional<size_t>>> CommentRebuilder::CopyFromSql(int64_t article_id) {
  int64_t after = 0;
  size_t total = 0;
  for (;;) {
    PL_CO_TRY(const std::vector<sql::CommentRow> rows,
              co_await table_.ListForArticle(article_id, after, kRebuildChunk));
    if (rows.empty()) {
      break;
    }
    const std::vector<Comment> chunk = sql::ToComments(rows);
    PL_CO_CHECK(co_await PutChunk(article_id, chunk, after));
    total += rows.size();
    after = rows.back().id;
    PL_CO_TRY(const redis::LeaseState renewed,
              co_await cache_.Lease(article_id, redis::LeaseOp::kRenew, owner_, kLeaseMs));
    if (renewed != redis::LeaseState::kOurs) {
      co_return std::optional<size_t>{};
    }
    if (static_cast<int64_t>(rows.size()) < kRebuildChunk) {
      break;
    }
  }
  co_return std::optional<size_t>(total);
}

Awaitable<Status> CommentRebuilder::PutChunk(int64_t article_id, const std::vector<Comment>& chunk,
                                             int64_t after) {
  // Batches of kPutsPerScript, over `chunk` (which outlives the puts: they are awaited
  // below), in one pipelined write. A failed chunk (a Redis timeout on a loaded box) is sent
  // again rather than throwing away the rows already copied: puts are versioned, so
  // repeating one is harmless.
  const std::span<const Comment> all(chunk);
  Status chunk_ok = Fail(ErrorCode::kUnavailable, "comment rebuild chunk not written");
  for (int attempt = 0; attempt < kChunkAttempts && !chunk_ok; ++attempt) {
    std::vector<Awaitable<Status>> puts;
    for (size_t i = 0; i < all.size(); i += kPutsPerScript) {
      puts.push_back(
          cache_.Put(article_id, all.subspan(i, std::min(kPutsPerScript, all.size() - i))));
    }
    auto results = co_await WhenAll(std::move(puts));
    chunk_ok = Status{};
    for (auto& r : results) {
      if (!r) {
        chunk_ok = r;
      }
    }
    if (!chunk_ok) {
      spdlog::warn("comment rebuild of article {}: chunk after id {} failed ({}), attempt {}",
                   article_id, after, chunk_ok.error().message, attempt + 1);
    }
  }
  co_return chunk_ok;
}

}  // namespace plaudit::store
