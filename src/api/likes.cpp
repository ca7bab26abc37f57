#include "api/likes.hpp"

#include <charconv>

#include <boost/asio/experimental/awaitable_operators.hpp>

#include "api/bind.hpp"
#include "http/errors.hpp"

namespace plaudit::api {

using http::ErrorResponse;
using http::JsonResponse;
using http::Request;
using http::Response;

namespace {

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

// PUT (like = true) / DELETE (like = false) of an article's like by the caller. Warm and
// published, that is the session lookup and one script call (which checks the article's
// cached status itself); otherwise the article is read (from SQL if need be) and checked.
Awaitable<Response> SetArticleLike(ApiContext ctx, Request& req, bool like) {
  auto caller = co_await ctx.guard->Admit(req, Access::kWrite);
  if (!caller) co_return ErrorResponse(caller.error());
  auto id = req.IdParam("id");
  if (!id) co_return ErrorResponse(id.error());
  const redis::LikeTarget target{'a', *id, *id};
  auto fast = co_await ctx.likes->SetIfPublished(*caller->principal, target, like);
  if (!fast) co_return ErrorResponse(fast.error());
  if (*fast) co_return StateJson(**fast);
  auto article = co_await ctx.articles->Peek(*id);
  if (!article) co_return ErrorResponse(article.error());
  // Only what the caller can see can be liked (drafts: their author and admins).
  if (!domain::CanSee(*article, caller->principal)) {
    co_return ErrorResponse(Error{ErrorCode::kNotFound, "no such article"});
  }
  auto s = co_await ctx.likes->Set(*caller->principal, target, like);
  if (!s) co_return ErrorResponse(s.error());
  co_return StateJson(*s);
}

// PUT / DELETE of a comment's like: the comment service also moves it in its hot order.
Awaitable<Response> SetCommentLike(ApiContext ctx, Request& req, bool like) {
  auto id = req.IdParam("id");
  if (!id) {
    auto caller = co_await ctx.guard->Admit(req, Access::kWrite);
    co_return ErrorResponse(caller ? id.error() : caller.error());
  }
  auto comment_op = ctx.comments->Peek(*id);
  auto both = co_await AdmitAlongside(*ctx.guard, req, Access::kWrite, std::move(comment_op));
  if (!both) co_return ErrorResponse(both.error());
  const auto& [caller, comment] = *both;
  auto s = co_await ctx.comments->SetLike(*caller.principal, comment, like);
  if (!s) co_return ErrorResponse(s.error());
  co_return StateJson(*s);
}

Awaitable<Response> LikeComment(ApiContext ctx, Request& req) {
  co_return co_await SetCommentLike(ctx, req, true);
}
Awaitable<Response> UnlikeComment(ApiContext ctx, Request& req) {
  co_return co_await SetCommentLike(ctx, req, false);
}

Awaitable<Response> GetCommentLike(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kPublic);
  if (!caller) co_return ErrorResponse(caller.error());
  auto id = req.IdParam("id");
  if (!id) co_return ErrorResponse(id.error());
  auto s = co_await ctx.comments->GetLike(caller->principal, *id);
  if (!s) co_return ErrorResponse(s.error());
  co_return StateJson(*s);
}

Awaitable<Response> Like(ApiContext ctx, Request& req) { co_return co_await SetArticleLike(ctx, req, true); }
Awaitable<Response> Unlike(ApiContext ctx, Request& req) { co_return co_await SetArticleLike(ctx, req, false); }

Awaitable<Response> GetArticleLike(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kPublic);
  if (!caller) co_return ErrorResponse(caller.error());
  auto id = req.IdParam("id");
  if (!id) co_return ErrorResponse(id.error());
  auto article = co_await ctx.articles->Get(caller->principal, *id, /*count_view=*/false,
                                            /*with_body=*/false);
  if (!article) co_return ErrorResponse(article.error());
  const redis::LikeTarget target{'a', *id, *id};
  auto s = co_await ctx.likes->Get(caller->principal ? caller->principal->id : 0, target);
  if (!s) co_return ErrorResponse(s.error());
  co_return StateJson(*s);
}

Result<std::vector<int64_t>> ParseIds(const std::optional<std::string>& raw, std::string_view name) {
  std::vector<int64_t> ids;
  if (!raw || raw->empty()) return ids;
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
    if (ids.size() > kMaxBatchIds) break;
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return ids;
}

// Whether the caller may see each article, then each comment (one flag per id, in that order);
// a page asks about one kind, so the other costs nothing.
Awaitable<Result<std::vector<bool>>> Visible(ApiContext ctx, std::optional<domain::Principal> who,
                                             std::vector<int64_t> articles,
                                             std::vector<int64_t> comments) {
  std::vector<bool> out;
  if (!articles.empty()) {
    auto a = co_await ctx.articles->VisibleMany(who, std::move(articles));
    if (!a) co_return tl::unexpected(a.error());
    out = std::move(*a);
  }
  if (!comments.empty()) {
    auto c = co_await ctx.comments->VisibleMany(who, std::move(comments));
    if (!c) co_return tl::unexpected(c.error());
    out.insert(out.end(), c->begin(), c->end());
  }
  co_return out;
}

// GET /api/v1/likes?article=1,2&comment=7: the caller's likes for a whole page at once.
Awaitable<Response> Batch(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kPublic);
  if (!caller) co_return ErrorResponse(caller.error());
  std::optional<std::string> article_param = req.Query("article");
  std::optional<std::string> comment_param = req.Query("comment");
  auto articles = ParseIds(article_param, "article");
  if (!articles) co_return ErrorResponse(articles.error());
  auto comments = ParseIds(comment_param, "comment");
  if (!comments) co_return ErrorResponse(comments.error());
  if (articles->size() + comments->size() > kMaxBatchIds) {
    co_return ErrorResponse(Error{ErrorCode::kInvalidArgument, "at most 100 ids in all"});
  }
  std::vector<redis::LikeTarget> targets;
  for (int64_t id : *articles) targets.push_back({'a', id, id});
  // A comment id carries its article's shard, so it stands in for the article id.
  for (int64_t id : *comments) targets.push_back({'c', id, id});
  const int64_t uid = caller->principal ? caller->principal->id : 0;
  // A count is as private as its article: what the caller may not see (a draft, a comment on
  // one) answers as an unknown id does. The check and the like reads share round trips.
  using namespace boost::asio::experimental::awaitable_operators;
  auto seen = Visible(ctx, caller->principal, *articles, *comments);
  auto reads = ctx.likes->GetMany(uid, std::move(targets));
  auto both = co_await (std::move(seen) && std::move(reads));
  auto& visible = std::get<0>(both);
  auto& states = std::get<1>(both);
  if (!visible) co_return ErrorResponse(visible.error());
  if (!states) co_return ErrorResponse(states.error());
  for (size_t i = 0; i < states->size(); ++i) {
    if (!(*visible)[i]) (*states)[i] = domain::LikeState{};
  }
  boost::json::object article_out, comment_out;
  for (size_t i = 0; i < articles->size(); ++i) {
    article_out[std::to_string((*articles)[i])] = {{"liked", (*states)[i].liked},
                                                   {"likeCount", (*states)[i].count}};
  }
  for (size_t i = 0; i < comments->size(); ++i) {
    const auto& s = (*states)[articles->size() + i];
    comment_out[std::to_string((*comments)[i])] = {{"liked", s.liked}, {"likeCount", s.count}};
  }
  co_return JsonResponse(beast::http::status::ok,
                         {{"article", std::move(article_out)}, {"comment", std::move(comment_out)}});
}

}  // namespace

void RegisterLikes(http::Router& router, ApiContext ctx) {
  router.Add(beast::http::verb::put, "/api/v1/articles/{id}/like", Bind<Like>(ctx));
  router.Add(beast::http::verb::delete_, "/api/v1/articles/{id}/like", Bind<Unlike>(ctx));
  router.Add(beast::http::verb::get, "/api/v1/articles/{id}/like", Bind<GetArticleLike>(ctx));
  router.Add(beast::http::verb::put, "/api/v1/comments/{id}/like", Bind<LikeComment>(ctx));
  router.Add(beast::http::verb::delete_, "/api/v1/comments/{id}/like", Bind<UnlikeComment>(ctx));
  router.Add(beast::http::verb::get, "/api/v1/comments/{id}/like", Bind<GetCommentLike>(ctx));
  router.Add(beast::http::verb::get, "/api/v1/likes", Bind<Batch>(ctx));
}

}  // namespace plaudit::api
