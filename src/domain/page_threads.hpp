#pragma once
// Page threads (API.md "Embedding on other sites"): the comments and likes of a page on an
// embedding site, kept on an article of kind page that the page's normalised URL names.
//
// One thread per page, on any number of instances: SQL's pages table has the URL as its key,
// and a thread is created by inserting its article and its page row in one transaction; a
// second creator's transaction finds the URL taken, rolls back and uses the first's article
// (sql/pages.hpp, through ArticleService::Insert, which keeps the cache marks of every article
// create). Redis caches URL → article (redis/page_map.hpp; in front of it this process's
// memo, domain/thread_memo.hpp), but a miss there always asks SQL
// before creating, so a flushed or older Redis costs a query, never a second thread; an entry
// naming a deleted thread is dropped and SQL asked again.
//
// Everything else is the article's: comments, likes, views, visibility. A page thread is
// written by the reserved account '@pages' (migration 017), so no commenter can edit or delete
// it (admins can, as any article); it is published, open for comments and never listed.
#include <optional>
#include <string>
#include <vector>

#include "common/rate_limit.hpp"
#include "common/web_origin.hpp"
#include "domain/articles.hpp"
#include "domain/comments.hpp"
#include "domain/thread_memo.hpp"
#include "redis/page_map.hpp"
#include "redis/rate_limiter.hpp"
#include "sql/pages.hpp"

namespace plaudit::domain {

// A page as a reader sees it: its thread (nullopt: none yet) and the thread's counts.
struct PageCounts {
  std::string url;  // normalised; empty for an article asked for by id
  std::optional<int64_t> article_id;
  int64_t comment_count = 0;
  int64_t like_count = 0;
  int64_t view_count = 0;
  bool liked = false;
};

// The thread's counts as a reader sees them (`a` read with its live like counts).
PageCounts CountsOf(std::string url, const Article& a);

inline constexpr size_t kMaxPageCounts = 100;

// New page threads per user and per client address (--limit-pages-user, --limit-pages-address;
// issue 41: one account made 121 threads in 0.8 s, each a few KB of Redis and SQL kept for
// good, titled as it chose). Charged only for a thread really created: a write that lands on
// an existing thread (also one a concurrent write created first) is given its charge back.
struct PageLimits {
  RateLimit per_user;
  RateLimit per_address;
};

// Who writes, as the creation limits count them.
// A guest's name and e-mail (API.md "Guests and sign-in from elsewhere").
struct GuestName {
  std::string name;
  std::string email;
};

struct PageWriter {
  const Principal& who;              // a guest's: no account (id 0), sharing one thread budget
  std::string_view address;          // as per-address limits count it (api::Caller::address)
  const GuestName* guest = nullptr;  // set: a guest's comment
};

class PageService {
 public:
  PageService(sql::PageTable& table, redis::PageMap& map, ArticleService& articles,
              CommentService& comments, const SiteList& sites)
      : table_(table), map_(map), articles_(articles), comments_(comments), sites_(sites) {}

  // Limits the threads a writer creates (unset: no limit).
  void SetCreationLimits(redis::RateLimiter& limiter, PageLimits limits) {
    limiter_ = &limiter;
    limits_ = limits;
  }

  // The page of a URL as sent: normalised (kInvalidArgument: not an absolute http(s) URL, or
  // too long), and of a site in --sites (kPermissionDenied otherwise).
  Result<PageUrl> Page(std::string_view url) const;

  // The page's counts; counts a view of its thread, as GET /articles/{id} does (a widget
  // loads once per page view). No thread: zeros, and nothing is created.
  Awaitable<Result<PageCounts>> Read(const std::optional<Principal>& viewer, const PageUrl& page,
                                     bool count_view = true);
  // Runs `read` on the page's thread: when it answers kNotFound for a thread the URL map
  // named (a deleted thread), the entry is dropped and SQL asked once more. false, without a
  // call, when the page has no thread.
  Awaitable<Result<bool>> OnThread(const PageUrl& page,
                                   std::function<Awaitable<Status>(int64_t)> read);
  // Comments on the page, creating its thread first if need be, titled `title` (an article
  // title's rules) or else the URL.
  // kRateLimited (with its retry-after) when creating it is over a creation limit.
  Awaitable<Result<PostedComment>> AddComment(PageWriter writer, const PageUrl& page,
                                              CommentInput in, std::optional<std::string> title);
  // The page's thread for `import --from`: found, or created titled `title` (the URL when it
  // is empty or not a valid title). Created as a first comment creates one, under the
  // creation limits set (the import runs without them).
  Awaitable<Result<int64_t>> ImportThread(const PageUrl& page, const std::string& title);
  // Likes (creating the thread if need be) or unlikes (never creating one) the page.
  Awaitable<Result<LikeState>> SetLike(PageWriter writer, const PageUrl& page, bool like);
  // The counts of up to kMaxPageCounts pages and articles at once, pages first, in the order
  // asked (an article id the viewer may not see answers as an unknown one). Warm, a fixed
  // number of Redis round trips whatever their number; SQL only for URLs Redis does not know,
  // in one query. Counts no views.
  Awaitable<Result<std::vector<PageCounts>>> Counts(const std::optional<Principal>& viewer,
                                                    const std::vector<PageUrl>& pages,
                                                    const std::vector<int64_t>& article_ids);

 private:
  struct Found {
    std::optional<int64_t> id;
    bool from_cache = false;  // an entry that may name a deleted thread
  };
  // The page's thread from the cache, or (`fresh`, or a miss) from SQL, then cached.
  Awaitable<Result<Found>> Find(const PageUrl& page, bool fresh);
  Awaitable<Result<Found>> FindOrCreate(PageWriter writer, const PageUrl& page,
                                        const std::optional<std::string>& title, bool fresh);
  Awaitable<Result<int64_t>> Create(PageWriter writer, const PageUrl& page,
                                    const std::optional<std::string>& title);
  // Takes one creation from each of the writer's budgets (kRateLimited, taking none, when one
  // is spent), and gives it back.
  Awaitable<Status> Reserve(PageWriter writer);
  Awaitable<void> Refund(PageWriter writer);
  // After the article a cached entry named was not found: drop the entry (a deleted thread).
  Awaitable<void> Forget(const PageUrl& page);
  Awaitable<void> Remember(std::vector<std::pair<std::string, int64_t>> entries);

  sql::PageTable& table_;
  redis::PageMap& map_;
  ArticleService& articles_;
  CommentService& comments_;
  const SiteList& sites_;
  ThreadMemo memo_;                        // before map_: the URLs this process learned
  std::optional<sql::PageAuthor> author_;  // read once: the row never changes
  redis::RateLimiter* limiter_ = nullptr;
  PageLimits limits_;
};

}  // namespace plaudit::domain
