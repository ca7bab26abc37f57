#pragma once
// The handlers of every /api/v1 route, by the file that holds them (api/users.cpp, ...);
// api/routes.cpp maps methods and paths to them. Each takes the request and answers a
// Response or an error, which api::Bind turns into its API.md status.
#include "api/bind.hpp"
#include "api/context.hpp"

namespace plaudit::api {

namespace users {
HandlerResult ListUsers(ApiContext, http::Request&);
HandlerResult CreateUser(ApiContext ctx, http::Request& req);
HandlerResult GetMe(ApiContext ctx, http::Request& req);
HandlerResult GetUser(ApiContext ctx, http::Request& req);
HandlerResult PatchUser(ApiContext ctx, http::Request& req);
HandlerResult DeleteUser(ApiContext ctx, http::Request& req);
HandlerResult CreateSession(ApiContext ctx, http::Request& req);
HandlerResult DeleteSession(ApiContext ctx, http::Request& req);
}  // namespace users

namespace sign_in {
HandlerResult Providers(ApiContext ctx, http::Request& req);
HandlerResult Sso(ApiContext ctx, http::Request& req);
HandlerResult Start(ApiContext ctx, http::Request& req);
HandlerResult Callback(ApiContext ctx, http::Request& req);
}  // namespace sign_in

namespace notifications {
HandlerResult PatchMe(ApiContext ctx, http::Request& req);
HandlerResult VerifyEmail(ApiContext ctx, http::Request& req);
HandlerResult GetSettings(ApiContext ctx, http::Request& req);
HandlerResult PatchSettings(ApiContext ctx, http::Request& req);
HandlerResult Confirm(ApiContext ctx, http::Request& req);
HandlerResult Unsubscribe(ApiContext ctx, http::Request& req);
}  // namespace notifications

namespace setup {
HandlerResult Needed(ApiContext ctx, http::Request& req);
HandlerResult Create(ApiContext ctx, http::Request& req);
}  // namespace setup

namespace articles {
HandlerResult Create(ApiContext ctx, http::Request& req);
HandlerResult Get(ApiContext ctx, http::Request& req);
HandlerResult Patch(ApiContext ctx, http::Request& req);
HandlerResult Delete(ApiContext ctx, http::Request& req);
HandlerResult List(ApiContext ctx, http::Request& req);
HandlerResult Changes(ApiContext ctx, http::Request& req);
}  // namespace articles

namespace likes {
HandlerResult Like(ApiContext ctx, http::Request& req);
HandlerResult Unlike(ApiContext ctx, http::Request& req);
HandlerResult GetArticleLike(ApiContext ctx, http::Request& req);
HandlerResult LikeComment(ApiContext ctx, http::Request& req);
HandlerResult UnlikeComment(ApiContext ctx, http::Request& req);
HandlerResult GetCommentLike(ApiContext ctx, http::Request& req);
HandlerResult Batch(ApiContext ctx, http::Request& req);
// {"liked":…,"likeCount":…}: every like route's answer (also the pages').
http::Response StateJson(const domain::LikeState& s);
// A comma-separated list of positive ids (at most 101 are read: the caller refuses > 100).
Result<std::vector<int64_t>> ParseIds(const std::optional<std::string>& raw, std::string_view name);
}  // namespace likes

namespace comments {
HandlerResult Create(ApiContext ctx, http::Request& req);
HandlerResult List(ApiContext ctx, http::Request& req);
HandlerResult Replies(ApiContext ctx, http::Request& req);
HandlerResult Get(ApiContext ctx, http::Request& req);
HandlerResult Patch(ApiContext ctx, http::Request& req);
HandlerResult Delete(ApiContext ctx, http::Request& req);
}  // namespace comments

namespace moderation {
HandlerResult Queue(ApiContext ctx, http::Request& req);
HandlerResult Act(ApiContext ctx, http::Request& req);
HandlerResult Log(ApiContext ctx, http::Request& req);
HandlerResult Report(ApiContext ctx, http::Request& req);
HandlerResult Ban(ApiContext ctx, http::Request& req);
HandlerResult Unban(ApiContext ctx, http::Request& req);
}  // namespace moderation

namespace pages {
HandlerResult Get(ApiContext ctx, http::Request& req);
HandlerResult ListComments(ApiContext ctx, http::Request& req);
HandlerResult AddComment(ApiContext ctx, http::Request& req);
HandlerResult Like(ApiContext ctx, http::Request& req);
HandlerResult Unlike(ApiContext ctx, http::Request& req);
HandlerResult Counts(ApiContext ctx, http::Request& req);
}  // namespace pages

}  // namespace plaudit::api
