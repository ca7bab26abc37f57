#pragma once
// The handlers of every /api/v1 route, by the file that holds them (api/users.cpp, ...);
// api/routes.cpp maps methods and paths to them. Each takes the request and answers a
// Response or an error, which api::Bind turns into its API.md status.
#include "api/bind.hpp"
#include "api/context.hpp"

namespace plaudit::api {

// The type of every handler: `ApiHandler Get;` declares `HandlerResult Get(ApiContext, Request&)`.
using ApiHandler = HandlerResult(ApiContext, http::Request&);

namespace users {
ApiHandler ListUsers, CreateUser, GetMe, GetUser, PatchUser, DeleteUser, CreateSession,
    DeleteSession;
}  // namespace users

namespace sign_in {
ApiHandler Providers, Sso, Start, Callback;
}  // namespace sign_in

namespace notifications {
ApiHandler PatchMe, VerifyEmail, GetSettings, PatchSettings, Confirm, Unsubscribe;
}  // namespace notifications

namespace setup {
ApiHandler Needed, Create;
}  // namespace setup

namespace articles {
ApiHandler Create, Get, Patch, Delete, List, Changes;
}  // namespace articles

namespace likes {
ApiHandler Like, Unlike, GetArticleLike, LikeComment, UnlikeComment, GetCommentLike, Batch;
// {"liked":…,"likeCount":…}: every like route's answer (also the pages').
http::Response StateJson(const domain::LikeState& s);
// A comma-separated list of positive ids (at most 101 are read: the caller refuses > 100).
Result<std::vector<int64_t>> ParseIds(const std::optional<std::string>& raw, std::string_view name);
}  // namespace likes

namespace comments {
ApiHandler Create, List, Replies, Get, Patch, Delete, Preview;
}  // namespace comments

namespace moderation {
ApiHandler Queue, Act, Log, Report, Ban, Unban;
}  // namespace moderation

namespace live {
ApiHandler ArticleEvents, PageEvents;
}  // namespace live

namespace search {
ApiHandler Find;
}  // namespace search

namespace pages {
ApiHandler Get, ListComments, AddComment, Like, Unlike, Counts;
}  // namespace pages

}  // namespace plaudit::api
