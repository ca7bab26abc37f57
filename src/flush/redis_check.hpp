#pragma once
// Before a like, a view or a flush on a connection to Redis: is this Redis older than SQL?
// (docs/architecture.md, "After Redis comes back older".)
//
// Redis hands out every seq before SQL commits it, and its seqs only grow, so a Redis seq
// below the highest one SQL committed means Redis lost writes SQL holds (a restore from an
// older snapshot, a failover to a lagging replica). The like shards are checked one by one
// (like_recover.lua against like_shards), the view counts as a whole (view_check.lua against
// view_flushes). What is older is recovered before it is used: the views and the stale
// shards' in-flight and pending changes go to SQL first (SQL keeps each only where nothing
// newer is there), then the older sets, counts and caches are dropped and reload from SQL.
//
// A check of every shard runs on each new connection (an integer compare otherwise), on a
// full flush pass and when a writer finds an emptied dataset (no birth mark: a FLUSHALL keeps
// the connection); the periodic pass checks the shards it claims in (CheckSome). Views wait
// while another process recovers them: a view count lives only in its article's hash, which
// the recovery drops.
#include <map>
#include <string>

#include "common/net.hpp"
#include "common/result.hpp"
#include "common/single_flight.hpp"
#include "domain/articles.hpp"
#include "domain/comments.hpp"
#include "flush/like_flush.hpp"
#include "flush/view_flush.hpp"
#include "redis/cache_marks.hpp"
#include "redis/shard_set.hpp"
#include "store/redis_freshness.hpp"

namespace plaudit::flush {

// The services (articles, comments) hold it as their store::RedisFreshness; it calls them to
// repair what a recovery leaves (cache marks, id sequences).
class RedisCheck final : public store::RedisFreshness {
 public:
  RedisCheck(net::any_io_executor ex, redis::LikeStore& like_store, sql::LikeTable& like_table,
             redis::ArticleCache& article_cache, sql::ArticleTable& article_table,
             redis::CacheMarks& marks, LikeFlush& likes, ViewFlush& views,
             domain::ArticleService& articles, domain::CommentService& comments);

  uint64_t Generation() const { return like_store_.Generation(); }
  // Whether likes, and views, may be served on the current connection.
  bool LikesChecked() const override { return likes_checked_ == Generation(); }
  bool ViewsChecked() const override { return views_checked_ == Generation(); }

  // One check (concurrent calls share it). False: SQL could not be read, so nothing was
  // checked (likes answer 503 until a check passes; reads and views go on; flushes wait);
  // tried again at most once a second.
  Awaitable<Result<bool>> Check() override;
  // Check() on a connection already checked: a script found the dataset emptied since
  // (no birth mark).
  Awaitable<Result<bool>> Recheck() override;
  // One beat of the dataset's pulse (redis::ArticleCache::Pulse): false when the dataset
  // went back since this process's last beat on this connection (a FLUSHALL, an older file
  // reloaded: the connection stays, so no new-connection check runs); likes, views and
  // writes then wait for a full check. Every pass beats, the full ones before their check.
  Awaitable<Result<bool>> SameDataset();
  // The periodic pass's check (Flusher::Tick) on a connection Check() has seen: the like
  // shards `likes` (those the pass will claim in) against SQL, the view counts, and the
  // cache marks in the shards this process marked since, those the last check left marks in
  // and `sweep`. Shards it leaves out were checked on this connection, and are again by the
  // next full check; a writer needing a check on them finds no birth mark and asks for one
  // (Recheck). Check() instead when this connection has not been checked.
  Awaitable<Result<bool>> CheckSome(redis::ShardSet likes, redis::ShardSet sweep);
  // For a view: checks until the views are checked, waiting up to a few seconds while
  // another process recovers them (then kUnavailable). Goes on when SQL cannot be read.
  Awaitable<Status> EnsureViews() override;
  // Drops every cached article hash and body, to refill from SQL (`plauditd rebuild-cache`),
  // while other processes go on counting views: views are flushed first, and a hash that
  // has counted one since is kept for another round (article_drop.lua).
  Awaitable<Status> ReloadArticles();

 private:
  // Which shards a check covers: all of them (Check), or some (CheckSome).
  struct Scope {
    redis::ShardSet likes;
    redis::ShardSet marks;
    bool full = true;
  };
  Awaitable<Result<bool>> CheckOnce(Scope scope);  // by value: a coroutine
  // The marks of `shards`; those it leaves (their writes in progress, a repair failed) are
  // in `marked_` after it.
  Awaitable<void> RepairMarks(redis::ShardSet shards);
  // Repairs from SQL the article or comment thread of a write whose cache mark outlived it
  // (its Redis step never landed: the writer died, or Redis came back from a snapshot taken
  // before the step), if SQL shows the write committed: true when repaired (the mark goes),
  // false for a write still in progress. A committed write's writer may be between its
  // commit and its Redis step right now (under a burst of comments on one thread there are
  // always some), so a settled mark is repaired only once it is older than kSettleUs or was
  // found settled by the check before (`settled`, updated): a thread rebuild per check for
  // writes in flight cost 20 comment states a comment (issue 47).
  Awaitable<Result<bool>> RepairMark(const redis::CacheMark& mark,
                                     std::map<std::string, int>& settled);
  static constexpr int64_t kSettleUs = 1'000'000;
  // Resumes the id sequences above SQL's (a Redis back older hands out ids again otherwise),
  // once per recovery.
  Awaitable<Status> ReseedIds();

  net::any_io_executor ex_;
  redis::LikeStore& like_store_;
  sql::LikeTable& like_table_;
  redis::ArticleCache& article_cache_;
  sql::ArticleTable& article_table_;
  redis::CacheMarks& marks_;
  LikeFlush& likes_;
  ViewFlush& views_;
  domain::ArticleService& articles_;
  domain::CommentService& comments_;
  std::string owner_;  // this process, in the views recovery mark
  SingleFlight<int, bool> checks_;
  uint64_t likes_checked_ = UINT64_MAX;  // the connection generation last checked
  uint64_t views_checked_ = UINT64_MAX;
  int64_t check_failed_ms_ = 0;  // when the last check could not read SQL
  // Marks the last check of their shard found settled but left: member → shard.
  std::map<std::string, int> settled_;
  redis::ShardSet marked_;  // shards with marks left, looked at again by the next check
  int64_t last_pulse_ = 0;  // SameDataset's last beat, on the connection of:
  uint64_t pulse_generation_ = UINT64_MAX;
};

}  // namespace plaudit::flush
