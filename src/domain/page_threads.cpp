// PageService: finding and creating a page's thread, and what a reader or writer does on it
// (page_counts.cpp: many pages at once).
#include "domain/page_threads.hpp"

#include <spdlog/spdlog.h>

#include "common/time.hpp"
#include "text/unicode.hpp"
#include "text/utf8.hpp"

namespace plaudit::domain {
namespace {

// The URL as a title when the writer gave none: cut to the title's 200 code points.
std::string TitleFromUrl(const PageUrl& page) {
  if (auto t = NormalizeTitle(page.url)) {
    return std::move(*t);
  }
  std::string cut;
  size_t points = 0;
  for (char c : page.url) {
    const bool starts_point = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (starts_point && ++points > 200) {
      break;
    }
    cut.push_back(c);
  }
  if (auto t = NormalizeTitle(cut)) {
    return std::move(*t);
  }
  return page.origin;
}

}  // namespace

PageCounts CountsOf(std::string url, const Article& a) {
  PageCounts c;
  c.url = std::move(url);
  c.article_id = a.id;
  c.comment_count = a.comment_count;
  c.like_count = a.like_count;
  c.view_count = a.view_count;
  c.liked = a.liked;
  return c;
}

Result<PageUrl> PageService::Page(std::string_view url) const {
  auto page = NormalisePageUrl(url);
  PL_CHECK(page);
  if (!sites_.Allows(page->origin)) {
    return Fail(ErrorCode::kPermissionDenied, "the page's site may not embed Plaudit (--sites)");
  }
  return page;
}

Awaitable<void> PageService::Remember(std::vector<std::pair<std::string, int64_t>> entries) {
  for (const auto& [url, id] : entries) {
    memo_.Put(url, id);
  }
  // Only a cache: SQL answers the next time if this fails.
  if (auto st = co_await map_.PutMany(std::move(entries)); !st) {
    spdlog::warn("could not cache page threads ({})", st.error().message);
  }
}

Awaitable<void> PageService::Forget(const PageUrl& page) {
  memo_.Forget(page.url);
  if (auto st = co_await map_.Forget(page.url); !st) {
    spdlog::warn("could not drop the cached thread of {} ({})", page.url, st.error().message);
  }
}

Awaitable<Result<PageService::Found>> PageService::Find(const PageUrl& page, bool fresh) {
  if (!fresh) {
    if (auto known = memo_.Find(page.url)) {
      co_return Found{known, true};
    }
    std::vector<std::string> urls{page.url};
    PL_CO_TRY(auto cached, co_await map_.GetMany(std::move(urls)));
    if (cached[0]) {
      memo_.Put(page.url, *cached[0]);
      co_return Found{cached[0], true};
    }
  }
  PL_CO_TRY(auto id, co_await table_.Find(page.url));
  if (id) {
    std::vector<std::pair<std::string, int64_t>> entry{{page.url, *id}};
    co_await Remember(std::move(entry));
  }
  co_return Found{id, false};
}

Awaitable<Status> PageService::Reserve(PageWriter writer) {
  if (limiter_ == nullptr) {
    co_return Status{};
  }
  // A guest has no account to charge: their address pays (and --limit-guest-address holds).
  // One budget for all guests would let one of them close new pages to every other.
  if (writer.guest != nullptr) {
    auto by_address = co_await limiter_->Enforce("page-addr", writer.address, limits_.per_address,
                                                 "too many new page threads from this address");
    if (!by_address && by_address.error().code == ErrorCode::kRateLimited) {
      co_return by_address;
    }
    co_return Status{};
  }
  const std::string user = std::to_string(writer.who.id);
  // A limiter Redis cannot answer lets the write through, as the guard's do (the thread's own
  // writes need Redis anyway).
  auto by_user = co_await limiter_->Enforce("page-user", user, limits_.per_user,
                                            "too many new page threads; try later");
  if (!by_user && by_user.error().code == ErrorCode::kRateLimited) {
    co_return by_user;
  }
  auto by_address = co_await limiter_->Enforce("page-addr", writer.address, limits_.per_address,
                                               "too many new page threads from this address");
  if (!by_address && by_address.error().code == ErrorCode::kRateLimited) {
    if (by_user) {
      (void)co_await limiter_->Refund("page-user", user, limits_.per_user);
    }
    co_return by_address;
  }
  co_return Status{};
}

Awaitable<void> PageService::Refund(PageWriter writer) {
  if (limiter_ == nullptr) {
    co_return;
  }
  Status st = Status{};
  if (writer.guest == nullptr) {
    const std::string user = std::to_string(writer.who.id);
    st = co_await limiter_->Refund("page-user", user, limits_.per_user);
  }
  if (st) {
    st = co_await limiter_->Refund("page-addr", writer.address, limits_.per_address);
  }
  if (!st) {
    spdlog::warn("page thread limit refund failed: {}", st.error().message);
  }
}

Awaitable<Result<int64_t>> PageService::Create(PageWriter writer, const PageUrl& page,
                                               const std::optional<std::string>& title) {
  Article a;
  a.kind = ArticleKind::kPage;
  if (title) {
    PL_CO_TRY(a.title, NormalizeTitle(*title));
  } else {
    a.title = TitleFromUrl(page);
  }
  if (!author_) {
    PL_CO_TRY(auto author, co_await table_.Author());
    author_ = std::move(author);
  }
  a.author_id = author_->id;
  a.author_username = author_->username;
  a.author_display_name = author_->display_name;
  a.content = std::string();
  a.status = ArticleStatus::kPublished;
  a.allow_comments = true;
  a.created_at_ms = a.updated_at_ms = NowMs();
  a.published_at_ms = a.created_at_ms;
  // Reserved before, given back unless this insert made the thread: a concurrent first write
  // that made it wins, and this one lands on its article (sql::PageTable::Insert).
  auto reserved = co_await Reserve(writer);
  if (!reserved) {
    // A concurrent first write may have made the thread meanwhile: landing on it is free.
    PL_CO_TRY(const std::optional<int64_t> existing, co_await table_.Find(page.url));
    if (existing) {
      co_return *existing;
    }
    co_return tl::unexpected(reserved.error());
  }
  bool created = false;
  ArticleService::Inserter insert = [this, url = page.url, &created](
                                        sql::ArticleRow row,
                                        sql::CacheStamp stamp) -> Awaitable<Result<int64_t>> {
    const int64_t own = row.id;
    auto id = co_await table_.Insert(std::move(row), url, stamp);
    created = id && *id == own;
    co_return id;
  };
  auto inserted = co_await articles_.Insert(a, std::move(insert));
  if (!created) {
    co_await Refund(writer);
  }
  PL_CO_CHECK(inserted);
  const int64_t id = *inserted;
  std::vector<std::pair<std::string, int64_t>> entry{{page.url, id}};
  co_await Remember(std::move(entry));
  co_return id;
}

Awaitable<Result<PageService::Found>> PageService::FindOrCreate(
    PageWriter writer, const PageUrl& page, const std::optional<std::string>& title, bool fresh) {
  // A bad title is refused before anything is looked up or written.
  if (title) {
    PL_CO_CHECK(NormalizeTitle(*title));
  }
  PL_CO_TRY(auto found, co_await Find(page, fresh));
  if (found.id) {
    co_return found;
  }
  PL_CO_TRY(const int64_t id, co_await Create(writer, page, title));
  co_return Found{id, false};
}

Awaitable<Result<int64_t>> PageService::ImportThread(const PageUrl& page,
                                                     const std::string& title) {
  static const Principal kImporter{};
  const PageWriter writer{kImporter, ""};
  std::optional<std::string> named;
  if (!title.empty() && NormalizeTitle(title)) {
    named = title;
  }
  PL_CO_TRY(const Found found, co_await FindOrCreate(writer, page, named, /*fresh=*/true));
  if (!found.id) {
    co_return Fail(ErrorCode::kInternal, "the page's thread was not made");
  }
  co_return *found.id;
}

Awaitable<Result<PageCounts>> PageService::Read(const std::optional<Principal>& viewer,
                                                const PageUrl& page, bool count_view) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    PL_CO_TRY(auto found, co_await Find(page, attempt > 0));
    if (!found.id) {
      break;
    }
    auto a = co_await articles_.Read(viewer, *found.id, count_view);
    if (a) {
      co_return CountsOf(page.url, *a);
    }
    if (a.error().code != ErrorCode::kNotFound || !found.from_cache) {
      co_return tl::unexpected(a.error());
    }
    co_await Forget(page);
  }
  PageCounts none;
  none.url = page.url;
  co_return none;
}

Awaitable<Result<bool>> PageService::OnThread(const PageUrl& page,
                                              std::function<Awaitable<Status>(int64_t)> read) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    PL_CO_TRY(auto found, co_await Find(page, attempt > 0));
    if (!found.id) {
      break;
    }
    auto st = co_await read(*found.id);
    if (st) {
      co_return true;
    }
    if (st.error().code != ErrorCode::kNotFound || !found.from_cache) {
      co_return tl::unexpected(st.error());
    }
    co_await Forget(page);
  }
  co_return false;
}

Awaitable<Result<PostedComment>> PageService::AddComment(PageWriter writer, const PageUrl& page,
                                                         CommentInput in,
                                                         std::optional<std::string> title) {
  const Principal& who = writer.who;
  // Checked before a thread is created: bad input creates nothing. (An unknown
  // replyToUserId is found by the comment's own transaction, after the thread exists.)
  PL_CO_CHECK(NormalizeCommentBody(in.body));
  // A guest is admitted (name, limits) before a thread is made for them.
  std::optional<GuestIdentity> guest;
  if (writer.guest != nullptr) {
    const std::string address(writer.address);
    PL_CO_TRY(guest,
              co_await comments_.AdmitGuest(writer.guest->name, writer.guest->email, address));
  }
  // A blank title is none: the widget sends document.title, which a page may lack.
  if (title && text::IsBlank(text::Trim(*title))) {
    title.reset();
  }
  if (title) {
    PL_CO_CHECK(NormalizeTitle(*title));
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    PL_CO_TRY(auto found, co_await Find(page, attempt > 0));
    if (!found.id) {
      if (in.parent_id) {
        co_return Fail(ErrorCode::kInvalidArgument, "parentId must be a comment of this page");
      }
      PL_CO_TRY(found.id, co_await Create(writer, page, title));
    }
    Result<PostedComment> c = PostedComment{};
    if (guest) {
      std::string address(writer.address);
      c = co_await comments_.CreateAsGuest(*guest, std::move(address), *found.id, in);
    } else {
      auto made = co_await comments_.Create(who, *found.id, in);
      if (made) {
        c = PostedComment{std::move(*made), {}};
      } else {
        c = tl::unexpected(made.error());
      }
    }
    if (c || c.error().code != ErrorCode::kNotFound || !found.from_cache) {
      co_return c;
    }
    co_await Forget(page);
  }
  co_return Fail(ErrorCode::kUnavailable, "the page's thread did not settle; retry");
}

Awaitable<Result<LikeState>> PageService::SetLike(PageWriter writer, const PageUrl& page,
                                                  bool like) {
  const Principal& who = writer.who;
  const std::optional<std::string> no_title;
  for (int attempt = 0; attempt < 2; ++attempt) {
    Result<Found> found = Found{};
    // if/else, not ?: around co_await (GCC 12).
    if (like) {
      found = co_await FindOrCreate(writer, page, no_title, attempt > 0);
    } else {
      found = co_await Find(page, attempt > 0);
    }
    PL_CO_CHECK(found);
    if (!found->id) {
      co_return LikeState{};  // an unlike of a page without a thread
    }
    auto state = co_await articles_.SetLike(who, *found->id, like);
    if (state || state.error().code != ErrorCode::kNotFound || !found->from_cache) {
      co_return state;
    }
    co_await Forget(page);
  }
  co_return Fail(ErrorCode::kUnavailable, "the page's thread did not settle; retry");
}

}  // namespace plaudit::domain
