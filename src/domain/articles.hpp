#pragma once
// Articles and posts: SQL is the record, Redis the hot path (see redis/article_cache.hpp).
//
// Write order: an acknowledged create/update/delete is committed in SQL first, then
// reflected in Redis by versioned steps (a late step never undoes a newer one). If Redis
// fails after the commit the write is still answered as done (it is committed): a cache mark
// taken before the transaction makes the next flush pass or check repair the cache from SQL.
// Reads fill misses from SQL once per key in this process (SingleFlight), and list indexes
// are rebuilt under a Redis lock so several instances do not rebuild at once.
//
// The change feed is SQL's: ArticleTable appends each change to an outbox table in the
// change's own transaction (sql/article_changes.hpp), and Changes() pages that table.
//
// The service's parts: articles.cpp (writes), article_reads.cpp (one article, fills,
// visibility), article_list_pages.cpp (lists, the index rebuild, the change feed),
// article_likes.cpp (the reader's view with live like counts, article likes),
// article_marks.cpp (the check and cache marks), article_comment_counts.cpp (the cached
// comment count, for CommentService). An SQL row is the article (sql::ArticleRow derives
// from it).
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "common/fresh_flight.hpp"
#include "common/pending_repairs.hpp"
#include "common/single_flight.hpp"
#include "domain/article.hpp"
#include "domain/likes.hpp"
#include "domain/live_feed.hpp"
#include "domain/write_faults.hpp"
#include "redis/article_cache.hpp"
#include "redis/cache_marks.hpp"
#include "sql/article_changes.hpp"
#include "sql/articles.hpp"
#include "store/redis_freshness.hpp"
#include "store/unknown_ids.hpp"

namespace plaudit::domain {

struct ChangeEvent {
  std::string cursor;  // the outbox id, in decimal
  int64_t article_id = 0;
  std::string op;
  int64_t at_ms = 0;
};

struct ChangePage {
  std::vector<ChangeEvent> items;
  std::string next_cursor;  // where to resume, also when items is empty
};

class ArticleService {
 public:
  // `faults`: a test's points (write_faults.hpp), empty in production; outlives the service.
  ArticleService(sql::ArticleTable& table, sql::ChangeTable& changes, redis::ArticleCache& cache,
                 redis::CacheMarks& marks, LikeService& likes, const WriteFaults& faults);

  // --- As a reader sees them (article_likes.cpp): like counts live from the like store and
  // the reader's own `liked`.
  // GET of one article: counts a view; the article and its like state in one round trip.
  // `count_view`: false for a HEAD (a probe, not a reader).
  Awaitable<Result<Article>> Read(const std::optional<Principal>& viewer, int64_t id,
                                  bool count_view = true);
  // PATCH: Update, answered with the caller's like state.
  Awaitable<Result<Article>> UpdateAndRead(const Principal& who, int64_t id, ArticleInput input);
  // The published list, or the caller's own (drafts only, or every status: sign in first).
  enum class ListFilter { kPublished, kDrafts, kAll };
  Awaitable<Result<PageResult<Article>>> List(const std::optional<Principal>& viewer,
                                              ListFilter filter, std::optional<ArticleKind> kind,
                                              PageRequest page);
  // The list items (no content) of `ids`, in their order, with the viewer's like state;
  // nullopt where an id names no published article or post (search results: the index may be
  // a step behind).
  Awaitable<Result<std::vector<std::optional<Article>>>> ListedItems(
      const std::optional<Principal>& viewer, const std::vector<int64_t>& ids);
  // Likes or unlikes the article, if the caller may see it (404 otherwise).
  Awaitable<Result<LikeState>> SetLike(const Principal& who, int64_t id, bool like);
  // Where a like taken is told to the thread's live readers (none: not told).
  void SetLive(LiveFeed& live) { live_ = &live; }
  // The like state of an article the viewer may see (404 otherwise).
  Awaitable<Result<LikeState>> GetLike(const std::optional<Principal>& viewer, int64_t id);

  // --- The published list as the page cache keeps it (article_list_versions.cpp;
  // render/article_lists.cpp): a page is rendered from a basis (its index entries), read after
  // the lists' version, and the versions of its articles, read after the index and before
  // the articles, so the page shows at least what its version names; and a kept page is
  // served again only while the versions read for it have not moved.
  struct ListVersion {
    uint64_t generation = 0;  // of the Redis connection; a page is kept only under one
    std::string lists;        // "<run>.<n>": the list indexes'
    std::string articles;     // the articles' shards': fields, like and comment counts
    std::string views;        // the same shards' view counts
    // What a kept page must equal to be served (views aside: see render/article_lists.cpp).
    std::string Id() const;
  };
  struct ListBasis {
    redis::ListPage index;  // up to size + 1 entries (one more: there is a next page)
    std::vector<int64_t> ids() const;
  };
  // The versions of a page of the articles `ids` (one command), or nullopt when the Redis
  // connection changed meanwhile (nothing may be kept under them).
  Awaitable<Result<std::optional<ListVersion>>> PublishedListVersion(
      const std::vector<int64_t>& ids);
  // A page's basis, with its version (nullopt: as above).
  struct VersionedBasis {
    ListBasis basis;
    std::optional<ListVersion> version;
  };
  Awaitable<Result<VersionedBasis>> PublishedListBasis(std::optional<ArticleKind> kind,
                                                       const PageRequest& req);
  // The page of `basis` as an anonymous reader sees it: live like counts, `liked` false.
  Awaitable<Result<PageResult<Article>>> PublishedListFrom(const ListBasis& basis,
                                                           const PageRequest& req);
  // The redis-server run behind connection `generation` (the first 16 characters of its
  // run_id, read once per connection): part of every cached page's version, since a Redis
  // restarted from an older snapshot may count a version up to a value seen before. nullopt
  // when the connection is no longer that one, or Redis does not say (INFO refused): then
  // nothing is kept. CommentService's pages use it too.
  Awaitable<Result<std::optional<std::string>>> ServerRun(uint64_t generation);
  uint64_t RedisGeneration() const { return cache_.Generation(); }

  // --- Writes, reads, lists and the cache's upkeep.

  Awaitable<Result<Article>> Create(const Principal& who, ArticleInput input);
  // Inserts the new article `a` (every field but id and ver set; they are set here): an id
  // from the sequence, a cache mark around `insert`'s transaction and the cache step after
  // it. `insert` commits the row and returns the id of the article that holds its place: its
  // own, or another's when that place was taken first (a page's thread created concurrently,
  // domain/page_threads.hpp), and then nothing of `a` was committed or cached.
  // kAlreadyExists from `insert`: the id is taken (a sequence behind SQL); reseeded, retried.
  using Inserter =
      std::function<Awaitable<Result<int64_t>>(sql::ArticleRow row, sql::CacheStamp stamp)>;
  Awaitable<Result<int64_t>> Insert(Article& a, Inserter insert);
  // The counts of many articles as `viewer` sees them: each one's id, status, author, view
  // and comment counts, live like count and `liked`; nullopt for an unknown id or one the
  // viewer may not see. Cached ones in a fixed number of round trips whatever their number
  // (an HMGET of 5 fields each, then the like counts), misses filled from SQL in one query
  // (a site index's counts of many pages: PageService::Counts).
  Awaitable<Result<std::vector<std::optional<Article>>>> CountsMany(
      const std::optional<Principal>& viewer, const std::vector<int64_t>& ids);
  // The article (with its content unless `with_body` is false); counts a view when
  // `count_view` (published articles only).
  Awaitable<Result<Article>> Get(const std::optional<Principal>& viewer, int64_t id,
                                 bool count_view, bool with_body = true);
  // Who may see the article, for callers that check CanSee themselves (e.g. while the
  // session lookup runs beside it): ONLY id, status and author_id are filled.
  Awaitable<Result<Article>> Peek(int64_t id);
  // Whether `viewer` may see each article (false for an unknown id), in one round trip when
  // they are cached: for answers about articles that are not the article itself (like
  // counts), which must be as private as it is.
  Awaitable<Result<std::vector<bool>>> VisibleMany(const std::optional<Principal>& viewer,
                                                   std::vector<int64_t> ids);
  Awaitable<Result<Article>> Update(const Principal& who, int64_t id, ArticleInput input);
  Awaitable<Status> Delete(const Principal& who, int64_t id);
  // The published list (kind nullopt: both kinds), pinned first, newest first.
  Awaitable<Result<PageResult<Article>>> ListPublished(std::optional<ArticleKind> kind,
                                                       PageRequest page);
  // The caller's own articles (admins: everyone's); drafts only or every status.
  Awaitable<Result<PageResult<Article>>> ListOwn(const Principal& who, bool drafts_only,
                                                 std::optional<ArticleKind> kind, PageRequest page);
  // The change feed (admins): up to `limit` changes after the cursor `after` (see
  // ParseChangeCursor: a decimal outbox id, "" for the start, or an old "<ms>-<seq>").
  Awaitable<Result<ChangePage>> Changes(const Principal& who, std::string after, int64_t limit);

  // The check of Redis against SQL (flush::RedisCheck), set once by the wiring; none: no
  // check. Articles and comments count as checked only once the views are too: while another
  // process recovers an older Redis's article hashes they wait (EnsureViews, up to ~5 s).
  // Views are counted only on a checked connection: a Redis that came back older has article
  // hashes with older (lower) counts, which its recovery drops.
  void SetRedisFreshness(store::RedisFreshness* freshness) { freshness_ = freshness; }
  // Waits for the check of a new connection (an integer compare otherwise): no article or
  // comment is read from, or written to, a Redis that may be older than SQL before the check
  // has recovered what is older (issue 25, item 5). Comments call it too.
  Awaitable<Status> EnsureChecked();
  // The check again on a checked connection: a fill found the dataset emptied (FLUSHALL).
  Awaitable<Status> Recheck();
  // The steady state, without a coroutine frame (a list or comment page asks twice).
  bool Checked() const {
    return freshness_ == nullptr || (freshness_->LikesChecked() && freshness_->ViewsChecked());
  }
  // A write's cache mark (redis/cache_marks.hpp), taken on a checked connection before the
  // write's SQL transaction; and its removal once the write's Redis step landed.
  Awaitable<Result<redis::CacheMark>> MarkWrite(redis::CacheTarget target);
  Awaitable<void> Unmark(const redis::CacheMark& mark);
  // After a write failed: Unmark when the error says nothing was committed (a refusal), else
  // the mark stays for a check to repair from SQL.
  Awaitable<void> UnmarkUnless(const redis::CacheMark& mark, const Error& e);
  // Writes the article's cache from its SQL row (or its deletion): a write whose Redis step
  // failed, or a mark the check found stuck.
  Awaitable<Status> Repair(int64_t id);
  // Whether SQL shows the write of `mark` committed (the row's cache_seq or thread_seq has
  // reached its seq; a deletion counts), or the mark is so old (kAbandonUs) that its write
  // never will: then its cache may be repaired from SQL and the mark dropped.
  Awaitable<Result<bool>> MarkSettled(const redis::CacheMark& mark);
  static constexpr int64_t kAbandonUs = 60'000'000;
  // Rebuilds the published list indexes from SQL (once, under a lock).
  Awaitable<Status> RebuildIndexes();
  // The rebuild's steps once its lock is taken; false when the lock was lost.
  Awaitable<Result<bool>> RebuildLocked();
  // Resumes the id sequence above every id SQL ever held (after Redis came back older).
  Awaitable<Status> ReseedIds();
  // Retries cache steps that failed after committed writes (from SQL's rows). Returns how
  // many are still pending. Called by every flush pass.
  Awaitable<Result<int64_t>> RepairPending();

  // For tests: how many SQL loads the single-flight groups ran.
  int article_loads() const { return loads_.loads(); }

  // --- The comment count its cache shows, for CommentService (article_comment_counts.cpp).
  // Sets it if the article is cached and `ver` is newer than the cached count's.
  Awaitable<Status> SetCommentCount(int64_t id, int64_t count, int64_t ver);
  // Sets it from the article's SQL row (nothing to do without one): after a comment write
  // whose Redis step failed.
  Awaitable<Status> RefreshCommentCount(int64_t id);

 private:
  Awaitable<Result<int64_t>> AllocateId(bool reseed);
  Awaitable<Result<Article>> LoadIntoCache(int64_t id);
  // The cached fields (and body), filled from SQL on a miss.
  Awaitable<Result<redis::ArticleCache::Cached>> Cached(int64_t id, bool count_view,
                                                        bool with_body);
  // Writes a committed change to Redis, versioned (the change feed is already in SQL).
  Awaitable<Status> Reflect(const Article& a, bool created);
  // Reflect then Unmark, or on failure remember the article for RepairPending (the mark
  // stays: the check repairs it too, should this process die first).
  Awaitable<void> ReflectOrRepairLater(const Article& a, bool created,
                                       const redis::CacheMark& mark);
  // Fills the cache from SQL, checked against the shard's birth mark read before the row
  // (`first`: a mark and a row read after it, to try first); nullopt: no such article (or
  // deleted).
  struct PrefetchedRow {
    std::string token;
    sql::ArticleRow row;
    uint64_t generation = 0;  // the client connection's, when the token was read
  };
  Awaitable<Result<std::optional<Article>>> FillFromSql(int64_t id, bool with_content,
                                                        std::optional<PrefetchedRow> first);
  Awaitable<Result<std::vector<Article>>> Hydrate(const std::vector<int64_t>& ids);
  // One page of a published list's index (rebuilt from SQL first if it is missing).
  Awaitable<Result<redis::ListPage>> IndexPage(std::optional<ArticleKind> kind,
                                               const PageRequest& req);
  // The page of those index entries (like counts as cached: FillLikes sets them).
  Awaitable<Result<PageResult<Article>>> PageOf(redis::ListPage index, const PageRequest& req);
  // The cached (or filled) article of each id, nullopt when there is none: Hydrate's read.
  Awaitable<Result<std::vector<std::optional<Article>>>> CachedMany(
      const std::vector<int64_t>& ids);
  // found[i] of each ids[i] no cache held (nullopt in `found`), filled from SQL in one query
  // (each fill checked as FillFromSql's); per id, whether SQL has no row of it.
  Awaitable<Result<std::vector<bool>>> FillMisses(const std::vector<int64_t>& ids,
                                                  std::vector<std::optional<Article>>& found);
  // VisibleMany's ids[i] for each i of `missed` (no cache holds them): seen[i] set as the
  // viewer may see it, without SQL for an id known to name nothing.
  Awaitable<Status> SeeMissed(const std::optional<Principal>& viewer,
                              const std::vector<int64_t>& ids, const std::vector<size_t>& missed,
                              std::vector<bool>& seen);
  // Sets like_count and liked of each from the like store (one round trip when cached).
  Awaitable<Status> FillLikes(int64_t user_id, std::vector<Article>& items);

  sql::ArticleTable& table_;
  sql::ChangeTable& changes_;
  redis::ArticleCache& cache_;
  redis::CacheMarks& marks_;
  const WriteFaults& faults_;
  LikeService& likes_;
  SingleFlight<int64_t, Article> loads_;
  SingleFlight<int, bool> rebuilds_;
  // PublishedListVersion's reads, one per round trip for a crowd on one list page.
  struct VersionsRead {
    uint64_t generation = 0;  // the connection's, before the read
    redis::ListVersions versions;
  };
  FreshFlight<std::string, VersionsRead> version_reads_;
  std::string instance_id_;
  PendingRepairs pending_repairs_;
  // Ids that name no article, known without SQL (VisibleMany; store/unknown_ids.hpp).
  store::UnknownIds unknown_;
  // ServerRun's: the run behind connection run_generation_.
  std::string run_;
  uint64_t run_generation_ = UINT64_MAX;
  uint64_t run_refused_generation_ = UINT64_MAX;  // warned about already
  store::RedisFreshness* freshness_ = nullptr;
  LiveFeed* live_ = nullptr;
  void AnnounceLike(int64_t id);
};

}  // namespace plaudit::domain
