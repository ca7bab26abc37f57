#pragma once
// Comments: SQL is the record, Redis the hot path (see redis/comment_cache.hpp).
//
// Write order: each create/edit/delete is one SQL transaction that also keeps the parent's
// reply count and the article's comment count exact, then one atomic Redis script that
// applies the changed rows (versioned, so it can never go back in time), then the article's
// cached count (versioned too). A write whose Redis step fails is still acknowledged: it is
// committed, and the article's comment cache is invalidated so the next read rebuilds it
// from SQL; if even that fails, the invalidation is retried by the flusher (RepairPending).
//
// Reads: a page is a fixed number of pipelined round trips whatever its size: the index page,
// then the top-level comments with their first reply ids and like states, then the replies
// with theirs. A missing cache (FLUSHALL, restart) is rebuilt from SQL in chunks under a
// Redis lease (one rebuilder across instances, single-flight within this one), so a 100k
// comment rebuild interleaves with other requests instead of blocking them
// (store/comment_rebuild.hpp).
//
// Files: writes and rights in comments.cpp; one comment's reads in comment_reads.cpp; a
// thread's version in comment_page_versions.cpp, its pages in comment_pages.cpp (the entry
// points) and comment_page_assembly.cpp (from the indexes to a page).
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/fresh_flight.hpp"
#include "common/pending_repairs.hpp"
#include "domain/article.hpp"
#include "domain/articles.hpp"
#include "domain/comment.hpp"
#include "domain/comment_verdict.hpp"
#include "domain/guest_author.hpp"
#include "domain/likes.hpp"
#include "domain/live_feed.hpp"
#include "redis/comment_cache.hpp"
#include "redis/rate_limiter.hpp"
#include "redis/recent_bodies.hpp"
#include "sql/comments.hpp"
#include "store/comments.hpp"
#include "store/unknown_ids.hpp"
#include "text/markdown.hpp"

namespace plaudit::domain {

// How new comments are judged and reports weighed (config: --moderation, --max-links,
// --spam-words, --report-threshold).
struct ModerationSettings {
  ModerationPolicy policy = ModerationPolicy::kOff;
  SpamRules rules;
  int64_t report_threshold = 3;  // distinct readers' reports that hold an approved comment
  std::chrono::milliseconds duplicate_window{10 * 60 * 1000};
};

// Guests (config: --guests, --limit-guest-address).
struct GuestSettings {
  GuestMode mode = GuestMode::kOff;
  redis::RateLimiter* limiter = nullptr;  // null: no per-address limit (--rate-limits off)
  RateLimit per_address;
  bool mail = false;  // notices are mailed (--smtp): a guest's new address gets its link
};

// A comment as posted: the comment, and for a guest's the edit token its browser keeps
// (given once; empty for an account's).
struct PostedComment {
  Comment comment;
  std::string edit_token;
};

class CommentService {
 public:
  // Bytes of comment text one page of comments or replies carries at most (bodies of items
  // and their inline replies; the first item always). A page cut short carries nextCursor
  // after its last item (API.md additions in README.md, "Pages of comments are bounded").
  static constexpr size_t kPageTextBudget = size_t{512} * 1024;

  // `faults`: a test's points (write_faults.hpp), empty in production; outlives the service.
  CommentService(sql::CommentTable& table, redis::CommentCache& cache, ArticleService& articles,
                 LikeService& likes, int64_t edit_window_ms, const WriteFaults& faults);

  // How comments are judged from now on (start-up; tests).
  void SetModeration(ModerationSettings settings, redis::RecentBodies* recent_bodies);
  // Where writes announce what readers of a thread see change (live updates; none: not told).
  void SetLive(LiveFeed& live) { live_ = &live; }
  // How bodies render (--comment-images): from now on; what is stored keeps its rendering.
  void SetText(text::MarkdownOptions options) { text_ = std::move(options); }
  // `body`'s html as a comment with it would get it (checked as a comment's body; nothing
  // is stored).
  Result<std::string> Preview(std::string_view body) const;
  // --moderation: an article's own policy may be stricter, and only an admin's laxer.
  ModerationPolicy ServerPolicy() const { return moderation_.policy; }
  // An account younger than `limit`'s period may post `limit`'s count of comments in it
  // (429 with Retry-After beyond); moderators and admins are not limited.
  void SetNewWriterLimit(redis::RateLimiter& limiter, RateLimit limit) {
    new_writer_limiter_ = &limiter;
    new_writer_limit_ = limit;
  }

  // A held comment (Judge) answers with status pending; a refused one is not stored.
  Awaitable<Result<Comment>> Create(const Principal& who, int64_t article_id, CommentInput in);

  // --- Guests (comment_guests.cpp).
  void SetGuests(GuestSettings settings) { guests_ = settings; }
  GuestMode Guests() const { return guests_.mode; }
  // A guest's post, checked before anything is stored (so a page thread is not created for a
  // post that would fail): guests off is kUnauthenticated; a bad name or e-mail
  // kInvalidArgument; a registered user's name kAlreadyExists; past --limit-guest-address from
  // `address` kRateLimited (each admitted post is charged).
  Awaitable<Result<GuestIdentity>> AdmitGuest(std::string_view name, std::string_view email,
                                              const std::string& address);
  // A comment without an account, by a guest AdmitGuest let in.
  Awaitable<Result<PostedComment>> CreateAsGuest(GuestIdentity identity, std::string address,
                                                 int64_t article_id, CommentInput in);
  // The writer of guest comment `id` when `edit_token` is its token, within the edit window
  // and while guests are welcome: the principal Get, Edit and Delete of that same id then act
  // for (every right is checked again against the comment itself). kPermissionDenied for a
  // token that does not match or a window past; kNotFound when `id` is no guest's comment.
  Awaitable<Result<Principal>> GuestOwner(int64_t id, std::string_view edit_token);
  // A moderator's action on comment `id` (moderators only), logged with it in SQL; the
  // comment as it is now.
  Awaitable<Result<Comment>> Moderate(const Principal& who, int64_t id,
                                      sql::ModerationAction action);
  // The moderation queue (moderators only): QueueFilter's live comments, oldest first.
  Awaitable<Result<std::vector<sql::QueuedComment>>> Queue(const Principal& who,
                                                           sql::QueueFilter filter,
                                                           std::optional<int64_t> article_id,
                                                           int64_t after_id, int64_t limit);
  // A signed-in reader's report of a comment they can see; once per reader.
  Awaitable<Status> Report(const Principal& who, int64_t id, std::string reason);
  Awaitable<Result<Comment>> Get(const std::optional<Principal>& viewer, int64_t id);
  Awaitable<Result<Comment>> Edit(const Principal& who, int64_t id, std::string body);
  Awaitable<Status> Delete(const Principal& who, int64_t id);
  // Top-level comments of an article, each with its first `replies` replies (oldest first).
  Awaitable<Result<PageResult<Comment>>> List(const std::optional<Principal>& viewer,
                                              int64_t article_id, CommentSort sort,
                                              PageRequest page, int64_t replies);
  // List's page as an anonymous reader sees it, without List's article check: for a caller
  // that has just found the article public (PageVersion), which every request of the page
  // does again, so the page cache renders one Redis call fewer.
  Awaitable<Result<PageResult<Comment>>> PublicPage(int64_t article_id, CommentSort sort,
                                                    PageRequest page, int64_t replies);
  Awaitable<Result<PageResult<Comment>>> Replies(const std::optional<Principal>& viewer,
                                                 int64_t comment_id, CommentSort sort,
                                                 PageRequest page);
  // Likes or unlikes a comment: one like_set.lua call when this process has seen where the
  // comment sits and Redis holds it and its article as likeable by anyone (the script checks
  // both); otherwise the comment is read (Peek) and checked here first.
  Awaitable<Result<LikeState>> Like(const Principal& who, int64_t id, bool like);
  // The version of the public pages of an article's thread, checking that `viewer` may see
  // the article (404 otherwise), in one round trip: the thread's version
  // (redis::CommentCache::ThreadVersion) and the Redis connection's generation. nullopt
  // when the article is not published (its pages are not the same for everyone) or its
  // thread's cache is not ready: then a page is rendered for the viewer, not cached. A page
  // read after this call shows at least what this version names (render/page_cache.hpp).
  struct ThreadVersion {
    uint64_t generation = 0;
    // "<server>.<birth>.<n>": the redis-server's run (a restored older snapshot may repeat
    // a birth and n, never under the same run), the thread cache's birth, its changes.
    std::string id;
  };
  Awaitable<Result<std::optional<ThreadVersion>>> PageVersion(
      const std::optional<Principal>& viewer, int64_t article_id);
  // The version of the replies pages of comment `comment_id` (PageVersion of its thread),
  // after checking the comment is listed and its article one `viewer` may see (404
  // otherwise); nullopt as PageVersion's. With the comment's article.
  struct RepliesVersionRead {
    int64_t article_id = 0;
    std::optional<ThreadVersion> version;
  };
  Awaitable<Result<RepliesVersionRead>> RepliesVersion(const std::optional<Principal>& viewer,
                                                       int64_t comment_id);
  // Replies' page as an anonymous reader sees it, without its checks (RepliesVersion's).
  Awaitable<Result<PageResult<Comment>>> PublicReplies(int64_t article_id, int64_t comment_id,
                                                       CommentSort sort, PageRequest page);
  // The comment in any state (even deleted), from the cache or SQL (filling the cache),
  // without any visibility check.
  Awaitable<Result<Comment>> Peek(int64_t id);
  Awaitable<Result<LikeState>> GetLike(const std::optional<Principal>& viewer, int64_t id);
  // Whether `viewer` may see each comment's article (false for an unknown id): what keeps a
  // draft's comments' like counts private. A comment's own deletion is not weighed (its
  // likes were public while it was, and a placeholder still shows them).
  Awaitable<Result<std::vector<bool>>> VisibleMany(const std::optional<Principal>& viewer,
                                                   std::vector<int64_t> ids);

  // Makes every article's comment cache rebuild from SQL on its next read (plauditd
  // rebuild-cache). Returns how many article caches were dropped.
  Awaitable<Result<int64_t>> InvalidateAll() { co_return co_await cache_.InvalidateAll(); }

  // Resumes the id sequence above every id SQL ever held (after Redis came back older).
  Awaitable<Status> ReseedIds();
  // Retries cache invalidations that failed after a committed write. Returns how many are
  // still pending.
  Awaitable<Result<int64_t>> RepairPending();
  // Makes an article's comment thread rebuild from SQL on its next read, with the article's
  // cached comment count: a write whose Redis step failed, or a mark the check found stuck.
  Awaitable<Status> Repair(int64_t article_id);

  // For tests: how many rebuilds of an article's comment cache ran in this process.
  int rebuilds() const { return repo_.rebuilds(); }

  // `import --from` (transfer/foreign_import.hpp): `count` new ids for comments of
  // `article_id` (one Redis call, ascending); imported comments of several articles (by
  // ascending id) written in one transaction, each article's under its thread's cache mark as
  // every comment write's (sql::CommentTable::InsertImported), one write an article; what an
  // import wrote; answers set afterwards.
  Awaitable<Result<std::vector<int64_t>>> NewImportIds(int64_t article_id, int64_t count);
  // `users` (ImportUsers, or null): a comment whose e-mail address is a user's verified one is
  // that user's.
  Awaitable<Result<std::vector<sql::CommentWrite>>> ImportBatches(
      std::string import_key, std::shared_ptr<const sql::VerifiedAddresses> users,
      std::vector<std::pair<int64_t, std::vector<sql::ImportedComment>>> batches);
  Awaitable<Result<sql::VerifiedAddresses>> ImportUsers() { return table_.VerifiedUserAddresses(); }
  Awaitable<Result<std::vector<std::pair<int64_t, int64_t>>>> ImportedIds(std::string import_key,
                                                                          int64_t after_idx,
                                                                          int64_t limit) {
    return table_.ImportedIds(std::move(import_key), after_idx, limit);
  }
  Awaitable<Status> SetImportedAnswers(std::vector<std::pair<int64_t, int64_t>> answers) {
    return table_.SetAnswers(std::move(answers));
  }

 private:
  // --- Writes (comments.cpp).
  Awaitable<Result<int64_t>> AllocateId(int64_t article_id, bool reseed);
  Awaitable<Result<std::vector<int64_t>>> AllocateIds(int64_t article_id, bool reseed,
                                                      int64_t count);
  // One write of the thread of `article_id`: takes its cache mark, runs `write` (the SQL
  // transaction, stamped with the mark), then AfterCommit. A write that fails drops the mark
  // unless it may have committed (ArticleService::UnmarkUnless).
  Awaitable<Result<sql::CommentWrite>> WriteThread(
      int64_t article_id,
      std::function<Awaitable<Result<sql::CommentWrite>>(sql::CacheStamp)> write);
  // `hashes`: kOnlyCached for an import's comments (redis::CommentCache::Put).
  Awaitable<Status> Reflect(const sql::CommentWrite& w, redis::CommentCache::NewHashes hashes);
  // The Redis step after a commit, then the write's cache mark goes (kept when the step failed
  // and so did the invalidation: the check repairs it should this process die first).
  Awaitable<Status> AfterCommit(
      const sql::CommentWrite& w, const redis::CacheMark& mark,
      redis::CommentCache::NewHashes hashes = redis::CommentCache::NewHashes::kCreate);

  // --- Reads (comment_reads.cpp, comment_page_versions.cpp, comment_pages.cpp).
  // The comment if the viewer may see it (listed, on an article they can see; a held one to
  // its author and moderators; a reply under a held top-level comment likewise), with the
  // text of a placeholder hidden from everyone else.
  Awaitable<Result<Comment>> Visible(const std::optional<Principal>& viewer, int64_t id);
  // Create for an account (guest null) or a guest.
  struct GuestPost {
    GuestIdentity identity;
    std::string address;
    std::string token_hash;
  };
  Awaitable<Result<Comment>> CreateAs(const Principal& who, const GuestPost* guest,
                                      int64_t article_id, CommentInput in);
  // What Create's verdict needs to know of the writer.
  Awaitable<Result<WriterFacts>> FactsOf(const Principal& who, const GuestPost* guest,
                                         ModerationPolicy policy, const std::string& body);
  static Result<std::optional<std::pair<int64_t, int64_t>>> ParseCursor(CommentSort sort,
                                                                        const PageRequest& req);
  // One index page: nullopt when the article's comment cache is not ready.
  Awaitable<Result<std::optional<redis::ListPage>>> FetchPage(
      int64_t article_id, std::optional<int64_t> parent, CommentSort sort, PageRequest req,
      std::optional<std::pair<int64_t, int64_t>> after);
  // The rest of a page, given its first index read (rebuilds and re-reads when missing).
  Awaitable<Result<PageResult<Comment>>> PageOf(const std::optional<Principal>& viewer,
                                                int64_t article_id, std::optional<int64_t> parent,
                                                CommentSort sort, PageRequest page, int64_t replies,
                                                Result<std::optional<redis::ListPage>> first);
  // Fills comments for `ids` (cache, then SQL for misses: repo_), skipping unlisted ones.
  Awaitable<Result<std::vector<Comment>>> Hydrate(const std::vector<int64_t>& ids,
                                                  std::vector<redis::CachedComment> cached);
  Awaitable<Status> AddLikes(int64_t user_id, std::vector<Comment*> comments);
  // A comment read with Peek, checked (deleted, article visible), liked in its hot order.
  Awaitable<Result<LikeState>> SetLike(const Principal& who, const Comment& c, bool like);
  // Remembers where a comment sits (article_of_).
  void Learn(const Comment& c);
  // What PageVersion asks Redis of an article, shared by the requests that arrived before it
  // was asked (page_reads_).
  struct PageRead {
    uint64_t generation = 0;  // the connection's, before the reads
    Article article;
    std::optional<std::string> version;
    bool unborn = false;
  };
  Awaitable<Result<PageRead>> ReadPage(int64_t article_id);

  sql::CommentTable& table_;
  redis::CommentCache& cache_;
  ArticleService& articles_;
  LikeService& likes_;
  int64_t edit_window_ms_;
  const WriteFaults& faults_;
  // `body` rendered for a comment of `article_id`: `@name`s of the thread's participants
  // marked as mentions (one SQL query a name, only for a body that has one).
  Awaitable<Result<text::SanitizedHtml>> Render(int64_t article_id, std::string_view body);

  // A like taken: the thread's live readers get the new count (coalesced, live_feed.hpp).
  void AnnounceLike(int64_t article_id, int64_t comment_id);
  // Tells the thread's live readers what a committed write changed for them (live_feed.hpp):
  // `before` the comment as it was (nullopt: new), `w` the rows written.
  void Announce(const std::optional<Comment>& before, const sql::CommentWrite& w);

  ModerationSettings moderation_;
  text::MarkdownOptions text_;
  LiveFeed* live_ = nullptr;
  redis::RecentBodies* recent_bodies_ = nullptr;
  redis::RateLimiter* new_writer_limiter_ = nullptr;
  RateLimit new_writer_limit_;
  GuestSettings guests_;
  // The cache filled from SQL where it lacks comments (hydrates, rebuilds).
  store::CommentRepository repo_;
  // Comment id → its article and top-level comment (0: none), which never change (ids are
  // never reused): VisibleMany knows a known comment's article without a read, and Like its
  // hot order. Bounded; emptied when full.
  struct Placement {
    int64_t article_id = 0;
    int64_t parent_id = 0;
  };
  std::unordered_map<int64_t, Placement> article_of_;
  static constexpr size_t kArticleOfCapacity = 1 << 17;
  // Ids that name no comment, known without SQL (VisibleMany; store/unknown_ids.hpp).
  store::UnknownIds unknown_;
  PendingRepairs pending_repairs_;
  // A crowd on one page asks for its version once per round trip, not once per request.
  FreshFlight<int64_t, PageRead> page_reads_;
};

}  // namespace plaudit::domain
