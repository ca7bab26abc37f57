#pragma once
// Comments in Redis (seed 000's ZSET + HASH design, fixed): a HASH per comment, ZSET indexes
// per article (top-level comments by time and by likes) and per top-level comment (its
// replies, the same two orders), and a meta key that says whether the article's comment
// cache is ready or being rebuilt. All keys of one article's comments share its like shard's
// hash tag ({l<article id % 256>}), so one script can write a comment, its parent and their
// index entries atomically, and a comment like can move the comment in its hot index.
// Everything here is a cache of SQL; see comment_put.lua for the versioning that makes
// writes and rebuilds commute, and docs/architecture.md.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "model/comment.hpp"
#include "redis/article_cache.hpp"
#include "redis/client/client.hpp"

namespace plaudit::redis {

// A comment as cached: nullopt when not cached (or a corrupt hash).
using CachedComment = std::optional<model::Comment>;

enum class CommentIndex { kByTime, kByLikes };

// The rebuild lease of an article's comment cache (comment_meta.lua).
enum class LeaseOp { kBegin, kRenew, kFinish };
// kBegin → kReady (nothing to do), kBusy (another owner holds a live lease) or kOurs (the
// caller now owns the rebuild); kRenew/kFinish → kOurs, or kLost when the lease went to
// someone else (the caller's writes were versioned puts: harmless).
enum class LeaseState { kReady, kBusy, kOurs, kLost };

class CommentCache {
 public:
  explicit CommentCache(Client& client) : client_(client) {}

  // A new comment id on `article_id`'s shard (see next_id.lua): nullopt when the sequence is
  // missing and `sql_max_id` is not given (call again with SQL's highest id); given, the
  // sequence resumes above it.
  Awaitable<Result<std::optional<int64_t>>> NextCommentId(int64_t article_id,
                                                          std::optional<int64_t> sql_max_id);
  // `count` new ids on that shard in one call, ascending (an import's block).
  Awaitable<Result<std::optional<std::vector<int64_t>>>> NextCommentIds(
      int64_t article_id, std::optional<int64_t> sql_max_id, int64_t count);

  // Applies comment states of one article in one atomic script (see comment_put.lua); each
  // is indexed under its parent_id (a reply) or the article (a top-level comment).
  // kOnlyCached: while the article's comment cache does not exist, only comments whose hash
  // is cached take their new state; the rest stay uncached (an import's: a reader asking for
  // one reads SQL, as after Forget), so an import of a million comments does not fill Redis.
  enum class NewHashes { kCreate, kOnlyCached };
  Awaitable<Status> Put(int64_t article_id, std::span<const model::Comment> comments,
                        NewHashes hashes = NewHashes::kCreate);
  // Comments of ONE article (one hash slot) for many ids: one pipeline of HMGETs.
  Awaitable<Result<std::vector<CachedComment>>> GetMany(const std::vector<int64_t>& ids);
  // GetMany with only what places a comment filled in (id, article_id, parent_id, deleted,
  // reply_count, ver; the rest empty): whether it shows, and on which article, without
  // reading its body. One round trip.
  Awaitable<Result<std::vector<CachedComment>>> GetPlacements(const std::vector<int64_t>& ids);
  // The same, plus the first `replies` reply ids (oldest first) of each (a ZRANGE each), in
  // the same round trip.
  Awaitable<Result<std::pair<std::vector<CachedComment>, std::vector<std::vector<int64_t>>>>>
  GetWithReplies(const std::vector<int64_t>& ids, int64_t replies);

  // A page of an article's top-level comments (parent nullopt) or of a comment's replies.
  // nullopt when the article's comment cache is not ready.
  Awaitable<Result<std::optional<ListPage>>> Page(int64_t article_id, std::optional<int64_t> parent,
                                                  CommentIndex index, bool descending,
                                                  int64_t start, int64_t count);
  Awaitable<Result<std::optional<ListPage>>> PageAfter(int64_t article_id,
                                                       std::optional<int64_t> parent,
                                                       CommentIndex index, bool descending,
                                                       int64_t score, int64_t id, int64_t count);

  // The version of an article's comment thread: "<birth>.<n>", changed in the same atomic
  // step as everything a page of the thread shows (comment_put.lua, like_set.lua) and never
  // repeated (comment_meta.lua starts each rebuilt cache with a new birth); nullopt while the
  // cache is not ready. One HMGET. `unborn` when the cache is ready but has no version (built
  // by a release before versions): see BearVersion.
  struct VersionRead {
    std::optional<std::string> version;
    bool unborn = false;
  };
  Awaitable<Result<VersionRead>> ThreadVersion(int64_t article_id);
  // Gives a ready thread cache without a version one, at `birth` (never used before).
  Awaitable<Status> BearVersion(int64_t article_id, const std::string& birth);
  // Reconnections to Redis so far: a Redis that came back (older, say) is another dataset.
  uint64_t Generation() const { return client_.stats().reconnects; }

  // A step of the rebuild lease of `owner` (see LeaseState); `lease_ms` from now. kFinish
  // starts the thread's version at `birth`, which must never have been used before (a
  // random id per rebuild: the owner is the process's, and rebuilds it finishes repeat).
  Awaitable<Result<LeaseState>> Lease(int64_t article_id, LeaseOp op, const std::string& owner,
                                      int64_t lease_ms, const std::string& birth = {});
  // Forgets an article's comment cache: the next read rebuilds it from SQL.
  Awaitable<Status> Invalidate(int64_t article_id);
  // Drops these comments' own hashes (read without their thread by single reads and likes):
  // after a write whose Redis step failed, the next read of each goes to SQL.
  Awaitable<Status> Forget(const std::vector<int64_t>& comment_ids);
  // The same for every article (SCAN, bounded steps); returns how many were dropped.
  Awaitable<Result<int64_t>> InvalidateAll();

 private:
  Awaitable<Result<std::optional<ListPage>>> RunPage(int64_t article_id,
                                                     std::optional<int64_t> parent,
                                                     CommentIndex index,
                                                     std::vector<std::string> args);
  Client& client_;
};

}  // namespace plaudit::redis
