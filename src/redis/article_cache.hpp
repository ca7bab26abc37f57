#pragma once
// Articles in Redis (seed 001's layout, fixed): a HASH of the list fields plus the view
// count, the content as a separate STRING (list pages never load bodies), ZSET indexes of
// published articles ordered pinned first then newest. All of it is a cache of SQL except
// unflushed view counts; see docs/architecture.md. (The change feed is SQL's own: see
// sql/article_changes.hpp.) The class's parts: article_cache.cpp (the hash and body),
// article_lists.cpp (the published lists), article_views.cpp (view counts); its encoding is
// article_codec.hpp's.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "model/article.hpp"
#include "redis/article_codec.hpp"
#include "redis/client/client.hpp"

namespace plaudit::redis {

struct ListEntry {
  int64_t id = 0;
  int64_t score = 0;
};

struct ListPage {
  int64_t total = 0;
  std::vector<ListEntry> entries;
  // The lists' version (pl:lv:{pub}), read in the same step: this page is as it was then.
  std::string version;
};

// The versions of what a published list page shows (list_versions.cpp), read in one command
// before what they cover: a page rendered after reading them shows at least what they name,
// and a page is served from the page cache only while they have not moved
// (render/article_lists.cpp). Each is born (given a random base) if it was unborn: missing, or
// restarted low by an INCR after a FLUSHALL, when an old value could come round again.
struct ListVersions {
  std::string lists;     // pl:lv:{pub}: the indexes
  std::string articles;  // pl:lv:{lN} of the articles' shards, '.'-joined: fields and counts
  std::string views;     // pl:lvw:{lN} of those shards, '.'-joined: view counts
};

class ArticleCache {
 public:
  explicit ArticleCache(Client& client) : client_(client) {}
  // Moves when the client reconnects (it may be another dataset then).
  uint64_t Generation() const { return client_.stats().reconnects; }

  // pinned·2^51 + published ms: pinned first, then newest (exact in a double).
  static int64_t ListScore(bool pinned, int64_t published_at_ms);

  // Next article id (see next_id.lua); floor -1 when unknown. nullopt: sequence missing.
  Awaitable<Result<std::optional<int64_t>>> NextId(int64_t floor);

  // The cached article (no content) and body; counts a view when asked (published articles
  // only). nullopt when not cached. Missing body → empty optional body. A hash that does not
  // decode is kInternal.
  struct Cached {
    model::Article article;
    std::optional<std::string> body;
  };
  Awaitable<Result<std::optional<Cached>>> Get(int64_t id, bool count_view, bool with_body);
  // Just who may see the article (ONLY id, status and author_id filled): a cheap HMGET for the
  // like path. nullopt when not cached; kInternal when the hash does not decode.
  Awaitable<Result<std::optional<model::Article>>> GetAccess(int64_t id);
  // GetAccess of many articles in one pipelined round trip (one HMGET each); nullopt when not
  // cached or not decodable (GetAccess tells which).
  Awaitable<Result<std::vector<std::optional<model::Article>>>> GetAccessMany(
      const std::vector<int64_t>& ids);
  // GetAccessMany with the view and comment counts (an HMGET of 5 fields each, where GetMany's
  // HGETALL returns 18): a site index's counts of 50 pages (domain::PageService::Counts).
  Awaitable<Result<std::vector<std::optional<model::Article>>>> GetCountsMany(
      const std::vector<int64_t>& ids);
  // Which of `ids` the published index "all" holds, in one command (ZMSCORE). True means
  // published as far as the cache knows (as a list page would show it); false means not in
  // the index, which also holds when the index is missing (being rebuilt): ask GetAccess.
  Awaitable<Result<std::vector<bool>>> InPublishedIndex(const std::vector<int64_t>& ids);
  // Many articles (no content) in one round trip; nullopt when not cached (or not decodable:
  // then it is filled from SQL again, as a missing one is).
  Awaitable<Result<std::vector<std::optional<model::Article>>>> GetMany(
      const std::vector<int64_t>& ids);
  // Article hashes and bodies are written only through article_put.lua, versioned by the SQL
  // row's version (articles.ver): nothing ever sets one back to an older version, so writes
  // and fills may land in any order (docs/architecture.md, "Articles").
  //
  // A new article (a fresh id): the whole hash with its counters, and the body. The version
  // is a.ver; a.content is not read (the body is `body`, if any).
  Awaitable<Status> Create(const model::Article& a, const std::string* body);
  // The birth mark of the article's shard, read BEFORE the row a fill writes is read from SQL
  // (Fill's `token`); nullopt: no check has seen this dataset since it was emptied (check
  // first: flush::RedisCheck).
  Awaitable<Result<std::optional<std::string>>> FillToken(int64_t id);
  // FillToken of many articles in one pipelined round trip.
  Awaitable<Result<std::vector<std::optional<std::string>>>> FillTokens(
      const std::vector<int64_t>& ids);
  // Fills the cache from a row read from SQL after a miss: the hash (with SQL's counters) if
  // absent, the row fields over an older version (never the counters: unflushed views live
  // here), the body if given and its version is the hash's. Writing nothing: kUnchecked, the
  // dataset was emptied since `token` was read; kStale, a write newer than the row found no
  // hash (read SQL again and fill again, after a check for kUnchecked); kGone: the article
  // was deleted. `live` is the article as the hash has it after the fill (nullopt: it did not
  // decode).
  struct Filled {
    enum class State { kFilled, kUnchecked, kStale, kGone } state = State::kFilled;
    std::optional<model::Article> live;
  };
  Awaitable<Result<Filled>> Fill(const model::Article& a, const std::string& token,
                                 const std::string* body);
  // After a committed change: the row fields (and body) if the article is cached with an
  // older version; an absent one fills from SQL on its next read (and no fill of an older row
  // may create it meanwhile).
  Awaitable<Status> Write(const model::Article& a, const std::string* body);
  // After a delete: marks the article deleted (no write or fill caches it again for a day),
  // drops its hash, body, view marks and its comments' cache (`comment_ids`: its comments).
  Awaitable<Status> Remove(int64_t id, const std::vector<int64_t>& comment_ids);
  // Sets the cached comment count if the article is cached and `ver` is newer than its own.
  Awaitable<Status> SetCommentCount(int64_t id, int64_t count, int64_t ver);

  // One page of a published list (of one kind, or of both: nullopt); nullopt when the index
  // is missing and must be rebuilt. An entry's score is ListScore's (the cursor's).
  Awaitable<Result<std::optional<ListPage>>> Page(std::optional<model::ArticleKind> kind,
                                                  int64_t start, int64_t count);
  Awaitable<Result<std::optional<ListPage>>> PageAfter(std::optional<model::ArticleKind> kind,
                                                       int64_t score, int64_t id, int64_t count);
  // The versions of the lists and of the articles `ids` (list_versions.cpp).
  Awaitable<Result<ListVersions>> Versions(const std::vector<int64_t>& ids);
  // Which run of redis-server this connection talks to (INFO server's run_id): a Redis
  // restarted from an older snapshot may count a version up to a value seen before.
  Awaitable<Result<std::string>> ServerRunId();
  // Puts the article into the published indexes of all articles and of its kind, or out of
  // every index (and their twins being rebuilt), unless a change of a newer version was
  // applied: the row's version orders them (index_update.lua). True when applied.
  Awaitable<Result<bool>> IndexAdd(const model::Article& a);
  Awaitable<Result<bool>> IndexRemove(int64_t id, int64_t ver);
  // A version above every row's, for a deleted article's list change.
  static constexpr int64_t kDeletedVersion = int64_t{1} << 62;
  // Rebuild protocol: TryLockRebuild → BeginRebuild → RebuildAdd… → FinishRebuild (atomic
  // swap). Every step renews the lock's lease and is refused (false) once the lock is no
  // longer `owner`'s; RebuildAdd skips an article changed since SQL gave its entry
  // (index_rebuild.lua).
  static constexpr int64_t kRebuildLeaseMs = 30'000;
  struct RebuildEntry {
    int64_t id = 0;
    bool pinned = false;
    int64_t published_at_ms = 0;
    int64_t ver = 0;
    model::ArticleKind kind = model::ArticleKind::kPost;
  };
  Awaitable<Result<bool>> TryLockRebuild(const std::string& owner);
  Awaitable<Result<bool>> BeginRebuild(const std::string& owner);
  Awaitable<Result<bool>> RebuildAdd(const std::string& owner,
                                     const std::vector<RebuildEntry>& entries);
  Awaitable<Result<bool>> FinishRebuild(const std::string& owner);
  // Ends a rebuild that failed: its twins and the lock go, if the lock is still `owner`'s.
  Awaitable<Result<bool>> AbortRebuild(const std::string& owner);

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
  // One more beat of the dataset's pulse (INCR): every periodic flush pass of every process
  // takes one, so a value at or below one this process took before says the dataset went
  // back under an open connection (FLUSHALL, an older file reloaded): check it all again.
  Awaitable<Result<int64_t>> Pulse();
  // Drops every article hash and body (they refill from SQL), the published lists and every
  // list version (born again: ListVersions).
  Awaitable<Status> DropArticles();
  // The ids of every cached article hash (SCAN, in batches: never KEYS).
  Awaitable<Result<std::vector<int64_t>>> CachedIds();
  // Drops one article's hash and body unless it holds more views than `sql_views` (views
  // counted since the last flush): false when kept (article_drop.lua).
  Awaitable<Result<bool>> DropIfFlushed(int64_t id, int64_t sql_views);
  // False when another process took the recovery over meanwhile (it finishes it).
  Awaitable<Result<bool>> FinishViewRecovery(const std::string& owner);

 private:
  // The published lists: of both kinds, and of each (its KindName).
  static constexpr std::string_view kLists[] = {"all", "article", "post"};
  // A random base for an unborn list version, in [2^40, 2^62) (list_version_born.lua).
  static std::string NewVersionBase();
  // The values of those version keys, in one round trip (MGET, or one GET each on a Redis
  // that refuses keys of several slots in one command: versions_cross_slot_).
  Awaitable<Result<std::vector<Reply>>> ReadVersions(const std::vector<std::string>& names);
  bool versions_cross_slot_ = false;

  Awaitable<Result<Filled>> Put(std::string_view mode, const model::Article& a,
                                std::string_view token, const std::string* body);
  Awaitable<Result<bool>> IndexChange(int64_t id, std::string_view kind, int64_t score,
                                      int64_t ver);
  Awaitable<Result<bool>> RebuildStep(std::string_view step, const std::string& owner,
                                      std::vector<std::string> extra);

  Client& client_;
};

std::string ListMember(int64_t id);  // 19-digit zero-padded id

}  // namespace plaudit::redis
