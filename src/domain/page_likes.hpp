#pragma once
// The likes of a whole page at once (GET /api/v1/likes): the caller's state and the count of
// each article and comment, as private as the article each belongs to.
#include <optional>
#include <vector>

#include "domain/articles.hpp"
#include "domain/comments.hpp"
#include "domain/likes.hpp"

namespace plaudit::domain {

struct PageLikes {
  std::vector<LikeState> articles;  // in the order asked
  std::vector<LikeState> comments;
};

// What the viewer may not see (a draft, a comment on one, an unknown id) answers as an
// unknown id does: {false, 0}. The visibility check and the like reads share round trips.
Awaitable<Result<PageLikes>> LikesOfPage(ArticleService& articles, CommentService& comments,
                                         LikeService& likes, const std::optional<Principal>& viewer,
                                         std::vector<int64_t> article_ids,
                                         std::vector<int64_t> comment_ids);

}  // namespace plaudit::domain
