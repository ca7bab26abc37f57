// ArticleService's reader-facing side: an article or a list as a reader sees it, with the
// like counts live from the like store (Redis owns them; the article hash's copy is only
// what SQL last had) and the reader's own `liked`; and the article likes themselves, whose
// visibility rule (only what the caller may see can be liked) lives here, not in a handler.
#include <boost/asio/experimental/awaitable_operators.hpp>

#include "domain/articles.hpp"

namespace plaudit::domain {
namespace {

int64_t UserIdOf(const std::optional<Principal>& p) { return p ? p->id : 0; }

}  // namespace

Awaitable<Status> ArticleService::FillLikes(int64_t user_id, std::vector<Article>& items) {
  std::vector<model::Target> targets;
  targets.reserve(items.size());
  for (const auto& a : items) {
    targets.push_back(model::Target::Article(a.id));
  }
  PL_CO_TRY(auto states, co_await likes_.GetMany(user_id, std::move(targets)));
  for (size_t i = 0; i < items.size(); ++i) {
    items[i].like_count = (states)[i].count;
    items[i].liked = (states)[i].liked;
  }
  co_return Status{};
}

Awaitable<Result<Article>> ArticleService::Read(const std::optional<Principal>& viewer, int64_t id,
                                                bool count_view) {
  // The article and its like state are read together (one round trip when both are
  // cached); the like state of an article the caller may not see is dropped unread.
  using namespace boost::asio::experimental::awaitable_operators;
  const model::Target target = model::Target::Article(id);
  auto article_op = Get(viewer, id, count_view);
  auto likes_op = likes_.Get(UserIdOf(viewer), target);
  auto both = co_await (std::move(article_op) && std::move(likes_op));
  auto& a = std::get<0>(both);
  auto& s = std::get<1>(both);
  PL_CO_CHECK(a);
  PL_CO_CHECK(s);
  a->like_count = s->count;
  a->liked = s->liked;
  co_return std::move(*a);
}

Awaitable<Result<Article>> ArticleService::UpdateAndRead(const Principal& who, int64_t id,
                                                         ArticleInput input) {
  PL_CO_TRY(auto a, co_await Update(who, id, std::move(input)));
  std::vector<Article> one;
  one.push_back(std::move(a));
  PL_CO_CHECK(co_await FillLikes(who.id, one));
  co_return std::move(one.front());
}

Awaitable<Result<PageResult<Article>>> ArticleService::List(const std::optional<Principal>& viewer,
                                                            ListFilter filter,
                                                            std::optional<ArticleKind> kind,
                                                            PageRequest page) {
  Result<PageResult<Article>> out = PageResult<Article>{};
  if (filter == ListFilter::kPublished) {
    out = co_await ListPublished(kind, page);
  } else if (!viewer) {
    co_return Fail(ErrorCode::kUnauthenticated, "sign in to list your own");
  } else {
    out = co_await ListOwn(*viewer, filter == ListFilter::kDrafts, kind, page);
  }
  PL_CO_CHECK(out);
  PL_CO_CHECK(co_await FillLikes(UserIdOf(viewer), out->items));
  co_return std::move(*out);
}

Awaitable<Result<std::vector<std::optional<Article>>>> ArticleService::CountsMany(
    const std::optional<Principal>& viewer, const std::vector<int64_t>& ids) {
  if (!Checked()) {
    PL_CO_CHECK(co_await EnsureChecked());
  }
  PL_CO_TRY(auto found, co_await cache_.GetCountsMany(ids));
  PL_CO_CHECK(co_await FillMisses(ids, found));
  std::vector<Article> seen;
  std::vector<size_t> at;
  for (size_t i = 0; i < found.size(); ++i) {
    if (!found[i] || !CanSee(*found[i], viewer)) {
      found[i].reset();  // as private as the article: a draft's counts are nobody else's
      continue;
    }
    seen.push_back(std::move(*found[i]));
    at.push_back(i);
  }
  PL_CO_CHECK(co_await FillLikes(UserIdOf(viewer), seen));
  for (size_t j = 0; j < at.size(); ++j) {
    seen[j].content.reset();
    found[at[j]] = std::move(seen[j]);
  }
  co_return std::move(found);
}

Awaitable<Result<LikeState>> ArticleService::SetLike(const Principal& who, int64_t id, bool like) {
  // Warm and published: one script call, which checks the article's cached status itself.
  // Otherwise the article is read (from SQL if need be) and checked here.
  const model::Target target = model::Target::Article(id);
  PL_CO_TRY(auto fast, co_await likes_.SetIfPublished(who, target, like));
  if (fast) {
    AnnounceLike(id);
    co_return *fast;
  }
  auto article = co_await Peek(id);
  PL_CO_CHECK(article);
  // Only what the caller can see can be liked (drafts: their author and admins).
  if (!CanSee(*article, who)) {
    co_return Fail(ErrorCode::kNotFound, "no such article");
  }
  PL_CO_TRY(const LikeState state, co_await likes_.Set(who, target, like));
  if (article->status == model::ArticleStatus::kPublished) {
    AnnounceLike(id);  // a draft has no live readers
  }
  co_return state;
}

void ArticleService::AnnounceLike(int64_t id) {
  if (live_ != nullptr) {
    live_->Liked(id, 0);
  }
}

Awaitable<Result<LikeState>> ArticleService::GetLike(const std::optional<Principal>& viewer,
                                                     int64_t id) {
  PL_CO_CHECK(co_await Get(viewer, id, /*count_view=*/false, /*with_body=*/false));
  const model::Target target = model::Target::Article(id);
  co_return co_await likes_.Get(UserIdOf(viewer), target);
}

}  // namespace plaudit::domain
