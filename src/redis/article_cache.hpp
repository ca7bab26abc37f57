#pragma once
// Articles in Redis (seed 001's layout, fixed): a HASH of the list fields plus the view
// count, the content as a separate STRING (list pages never load bodies), ZSET indexes of
// published articles ordered pinned first then newest. All of it is a cache of SQL except
// unflushed view counts; see docs/architecture.md. (The change feed is SQL's own: see
// sql/article_changes.hpp.)
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redis/client.hpp"

namespace plaudit::redis {

// The cached fields of one article, by name (see kArticleFields in article_cache.cpp).
using ArticleFields = std::map<std::string, std::string, std::less<>>;  // == domain::CachedFields
// The same as (field, value) pairs in Redis's order: what a list page reads, walked once
// instead of built into a map and searched per name (both showed in its profile).
using ArticleFieldList = std::vector<std::pair<std::string, std::string>>;

struct ListEntry {
  int64_t id = 0;
  int64_t score = 0;
};

struct ListPage {
  int64_t total = 0;
  std::vector<ListEntry> entries;
};

class ArticleCache {
 public:
  explicit ArticleCache(Client& client) : client_(client) {}
  // Moves when the client reconnects (it may be another dataset then).
  uint64_t Generation() const { return client_.stats().reconnects; }

  static const std::vector<std::string>& FieldNames();
  // pinned·2^51 + published ms: pinned first, then newest (exact in a double).
  static int64_t ListScore(bool pinned, int64_t published_at_ms);

  // Next article id (see next_id.lua); floor -1 when unknown. nullopt: sequence missing.
  Awaitable<Result<std::optional<int64_t>>> NextId(int64_t floor);

  // The cached fields and body; counts a view when asked (published articles only).
  // nullopt when not cached. Missing body → empty optional body.
  struct Cached {
    ArticleFields fields;
    std::optional<std::string> body;
  };
  Awaitable<Result<std::optional<Cached>>> Get(int64_t id, bool count_view, bool with_body);
  // Just the fields that decide who may see the article (id, status, author_id): a cheap
  // HMGET for the like path. Empty when not cached.
  Awaitable<Result<ArticleFields>> GetAccess(int64_t id);
  // GetAccess of many articles in one pipelined round trip (one HMGET each).
  Awaitable<Result<std::vector<ArticleFields>>> GetAccessMany(const std::vector<int64_t>& ids);
  // Which of `ids` the published index "all" holds, in one command (ZMSCORE). True means
  // published as far as the cache knows (as a list page would show it); false means not in
  // the index, which also holds when the index is missing (being rebuilt): ask GetAccess.
  Awaitable<Result<std::vector<bool>>> InPublishedIndex(const std::vector<int64_t>& ids);
  // Fields for many ids in one round trip; a missing article is an empty list.
  Awaitable<Result<std::vector<ArticleFieldList>>> GetMany(const std::vector<int64_t>& ids);
  // Writes the whole cached article, replacing what is there: only for a create (a fresh id,
  // so nothing newer can be cached).
  Awaitable<Status> Put(int64_t id, const ArticleFields& fields, const std::string* body);
  // Fills the cache from SQL after a miss without overwriting anything newer
  // (article_fill.lua): the hash only if absent (one that exists may hold views counted
  // since the row was read, and a newer status), the body only if absent. Empty `fields`:
  // the body alone. Returns the cached fields after the fill (the ones written, or the ones
  // that were there); empty for a body-only fill.
  // nullopt, filling nothing: no check has seen this dataset since it was emptied (FLUSHALL);
  // check (flush::RedisCheck), then fill again.
  Awaitable<Result<std::optional<ArticleFieldList>>> Fill(int64_t id, const ArticleFields& fields,
                                           const std::string* body);
  // Updates fields (and body) of a cached article only if it is cached.
  Awaitable<Status> Update(int64_t id, const ArticleFields& fields, const std::string* body);
  Awaitable<Status> Remove(int64_t id);
  // Sets the cached comment count if the article is cached and `ver` is newer than its own.
  Awaitable<Status> SetCommentCount(int64_t id, int64_t count, int64_t ver);

  // One page of a published list ("all", "article", "post"); nullopt when the index is
  // missing and must be rebuilt.
  Awaitable<Result<std::optional<ListPage>>> Page(std::string_view list, int64_t start,
                                                  int64_t count);
  Awaitable<Result<std::optional<ListPage>>> PageAfter(std::string_view list, int64_t score,
                                                       int64_t id, int64_t count);
  // Adds to / removes from a list index (and its twin being rebuilt), if present.
  Awaitable<Status> IndexAdd(std::string_view list, int64_t id, int64_t score);
  Awaitable<Status> IndexRemove(std::string_view list, int64_t id);
  // Rebuild protocol: TryLock → BeginRebuild → RebuildAdd… → FinishRebuild (atomic swap).
  Awaitable<Result<bool>> TryLockRebuild(const std::string& owner);
  Awaitable<Status> BeginRebuild();
  Awaitable<Status> RebuildAdd(std::string_view list, const std::vector<ListEntry>& entries);
  Awaitable<Status> FinishRebuild(const std::string& owner);

  // Views, flushed with claim → commit → done (view_claim.lua): ClaimViews takes up to `max`
  // ids (those left in flight by an earlier or concurrent pass first) and reads their
  // current counts; after the SQL commit, ViewsDone confirms them. Until then the ids stay
  // in flight, and a later pass takes them again.
  struct ClaimedView {
    int64_t id = 0;
    std::string seq;               // the claim it holds
    std::optional<int64_t> views;  // nullopt: no longer cached (deleted, or Redis emptied)
  };
  struct ViewClaim {
    std::vector<ClaimedView> views;
    // The stamp the commit records in SQL (view_stamp.lua), taken after the counts were read:
    // a Redis whose views seq is below SQL's is older than some count SQL holds. 0: nothing
    // claimed.
    int64_t stamp = 0;
  };
  Awaitable<Result<ViewClaim>> ClaimViews(int64_t max);
  Awaitable<Status> ViewsDone(const std::vector<ClaimedView>& claimed);

  // Views after Redis came back older (view_check.lua): kRecover hands the caller the
  // recovery (flush the views, DropArticles, then FinishViewRecovery); kBusy: another
  // process holds it. `force`: recover even if the views seq is current (the like shards
  // found this Redis older, so its article hashes are too).
  enum class ViewCheck { kConsistent, kRecover, kBusy };
  Awaitable<Result<ViewCheck>> CheckViews(int64_t sql_seq, bool force, const std::string& owner,
                                          int64_t lease_ms);
  // Drops every article hash and body (they refill from SQL) and the published lists.
  Awaitable<Status> DropArticles();
  // False when another process took the recovery over meanwhile (it finishes it).
  Awaitable<Result<bool>> FinishViewRecovery(const std::string& owner);

 private:
  Client& client_;
};

std::string ListMember(int64_t id);  // 19-digit zero-padded id

}  // namespace plaudit::redis
