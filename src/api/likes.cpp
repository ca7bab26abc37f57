#include <charconv>

#include "api/bind.hpp"
#include "api/handlers.hpp"
#include "domain/page_likes.hpp"

namespace plaudit::api {

using http::JsonResponse;
using http::Request;
using http::Response;

namespace likes {

constexpr size_t kMaxBatchIds = 100;

// {"liked":…,"likeCount":…}, written directly: the answer to every like and unlike, where a
// boost::json object cost a dozen allocations to say two fields.
Response StateJson(const domain::LikeState& s) {
  Response r;
  r.body.reserve(48);
  r.body.append(s.liked ? R"({"liked":true,"likeCount":)" : R"({"liked":false,"likeCount":)");
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, s.count);
  r.body.append(digits, end);
  r.body.push_back('}');
  return r;
}

// Every single-like route: the caller's credentials are judged first (401/429 before a 400,
// as everywhere), then the :id; `answer(caller, id)` is the like state to send.
template <class Answer>
HandlerResult LikeRoute(ApiContext ctx, Request& req, Access access, Answer answer) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, access));
  PL_CO_TRY(const int64_t id, req.IdParam("id"));
  PL_CO_TRY(auto state, co_await answer(caller, id));
  co_return StateJson(state);
}

// PUT (like = true) / DELETE (like = false) of an article's like by the caller.
HandlerResult SetArticleLike(ApiContext ctx, Request& req, bool like) {
  // Named, not a temporary inside co_await (GCC 12).
  auto answer = [&](const Caller& c, int64_t id) {
    return ctx.articles->SetLike(*c.principal, id, like);
  };
  co_return co_await LikeRoute(ctx, req, Access::kWrite, answer);
}

// PUT / DELETE of a comment's like: the comment service also moves it in its hot order.
HandlerResult SetCommentLike(ApiContext ctx, Request& req, bool like) {
  // Named, not a temporary inside co_await (GCC 12).
  auto answer = [&](const Caller& c, int64_t id) {
    return ctx.comments->Like(*c.principal, id, like);
  };
  co_return co_await LikeRoute(ctx, req, Access::kWrite, answer);
}

HandlerResult Like(ApiContext ctx, Request& req) {
  co_return co_await SetArticleLike(ctx, req, true);
}
HandlerResult Unlike(ApiContext ctx, Request& req) {
  co_return co_await SetArticleLike(ctx, req, false);
}
HandlerResult LikeComment(ApiContext ctx, Request& req) {
  co_return co_await SetCommentLike(ctx, req, true);
}
HandlerResult UnlikeComment(ApiContext ctx, Request& req) {
  co_return co_await SetCommentLike(ctx, req, false);
}

HandlerResult GetArticleLike(ApiContext ctx, Request& req) {
  // Named, not a temporary inside co_await (GCC 12).
  auto answer = [&](const Caller& c, int64_t id) { return ctx.articles->GetLike(c.principal, id); };
  co_return co_await LikeRoute(ctx, req, Access::kPublic, answer);
}

HandlerResult GetCommentLike(ApiContext ctx, Request& req) {
  // Named, not a temporary inside co_await (GCC 12).
  auto answer = [&](const Caller& c, int64_t id) { return ctx.comments->GetLike(c.principal, id); };
  co_return co_await LikeRoute(ctx, req, Access::kPublic, answer);
}

Result<std::vector<int64_t>> ParseIds(const std::optional<std::string>& raw,
                                      std::string_view name) {
  std::vector<int64_t> ids;
  if (!raw || raw->empty()) {
    return ids;
  }
  std::string_view rest = *raw;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view part = rest.substr(0, comma);
    int64_t id = 0;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), id);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || id <= 0) {
      return Fail(ErrorCode::kInvalidArgument,
                  std::string(name) + " must be a comma-separated list of positive ids");
    }
    ids.push_back(id);
    if (ids.size() > kMaxBatchIds) {
      break;
    }
    if (comma == std::string_view::npos) {
      break;
    }
    rest = rest.substr(comma + 1);
  }
  return ids;
}

// GET /api/v1/likes?article=1,2&comment=7: the caller's likes for a whole page at once.
HandlerResult Batch(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  std::optional<std::string> article_param = req.Query("article");
  std::optional<std::string> comment_param = req.Query("comment");
  PL_CO_TRY(auto articles, ParseIds(article_param, "article"));
  PL_CO_TRY(auto comments, ParseIds(comment_param, "comment"));
  if (articles.size() + comments.size() > kMaxBatchIds) {
    co_return Fail(ErrorCode::kInvalidArgument, "at most 100 ids in all");
  }
  PL_CO_TRY(auto likes, co_await domain::LikesOfPage(*ctx.articles, *ctx.comments, *ctx.likes,
                                                     caller.principal, articles, comments));
  boost::json::object article_out, comment_out;
  for (size_t i = 0; i < articles.size(); ++i) {
    article_out[std::to_string(articles[i])] = {{"liked", likes.articles[i].liked},
                                                {"likeCount", likes.articles[i].count}};
  }
  for (size_t i = 0; i < comments.size(); ++i) {
    comment_out[std::to_string(comments[i])] = {{"liked", likes.comments[i].liked},
                                                {"likeCount", likes.comments[i].count}};
  }
  co_return JsonResponse(beast::http::status::ok, {{"article", std::move(article_out)},
                                                   {"comment", std::move(comment_out)}});
}

}  // namespace likes

}  // namespace plaudit::api
