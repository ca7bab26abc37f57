#include "domain/page_likes.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>

namespace plaudit::domain {
namespace {

// Whether the viewer may see each article, then each comment (one flag per id, in that
// order); a page asks about one kind, so the other costs nothing.
Awaitable<Result<std::vector<bool>>> Visible(ArticleService& articles, CommentService& comments,
                                             std::optional<Principal> who,
                                             std::vector<int64_t> article_ids,
                                             std::vector<int64_t> comment_ids) {
  std::vector<bool> out;
  if (!article_ids.empty()) {
    PL_CO_TRY(auto a, co_await articles.VisibleMany(who, std::move(article_ids)));
    out = std::move(a);
  }
  if (!comment_ids.empty()) {
    PL_CO_TRY(auto c, co_await comments.VisibleMany(who, std::move(comment_ids)));
    out.insert(out.end(), c.begin(), c.end());
  }
  co_return out;
}

}  // namespace

Awaitable<Result<PageLikes>> LikesOfPage(ArticleService& articles, CommentService& comments,
                                         LikeService& likes, const std::optional<Principal>& viewer,
                                         std::vector<int64_t> article_ids,
                                         std::vector<int64_t> comment_ids) {
  std::vector<model::Target> targets;
  targets.reserve(article_ids.size() + comment_ids.size());
  for (int64_t id : article_ids) {
    targets.push_back(model::Target::Article(id));
  }
  for (int64_t id : comment_ids) {
    targets.push_back(model::Target::Comment(id));
  }
  const size_t n_articles = article_ids.size();
  using namespace boost::asio::experimental::awaitable_operators;
  const int64_t user_id = viewer ? viewer->id : 0;
  // The cached states beside the visibility check; then loads only for what the viewer may
  // see and Redis did not hold, so an unknown or private id never costs a load (issue 41).
  auto seen = Visible(articles, comments, viewer, std::move(article_ids), std::move(comment_ids));
  auto reads = likes.ReadCached(user_id, targets);
  auto both = co_await (std::move(seen) && std::move(reads));
  auto& visible = std::get<0>(both);
  auto& cached = std::get<1>(both);
  PL_CO_CHECK(visible);
  PL_CO_CHECK(cached);
  std::vector<LikeState> states(targets.size());
  std::vector<size_t> misses;
  std::vector<model::Target> missed;
  for (size_t i = 0; i < targets.size(); ++i) {
    if (!(*visible)[i]) {
      continue;  // answers as an unknown id: {false, 0}
    }
    if ((*cached)[i]) {
      states[i] = *(*cached)[i];
    } else {
      misses.push_back(i);
      missed.push_back(targets[i]);
    }
  }
  if (!misses.empty()) {
    PL_CO_TRY(const std::vector<LikeState> loaded, co_await likes.GetMany(user_id, missed));
    for (size_t j = 0; j < misses.size(); ++j) {
      states[misses[j]] = loaded[j];
    }
  }
  PageLikes out;
  for (size_t i = 0; i < states.size(); ++i) {
    (i < n_articles ? out.articles : out.comments).push_back(states[i]);
  }
  co_return out;
}

}  // namespace plaudit::domain
