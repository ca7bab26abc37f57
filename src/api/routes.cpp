#include "api/routes.hpp"

#include "api/handlers.hpp"

namespace plaudit::api {

namespace {

using V = beast::http::verb;

struct Route {
  V verb{};
  const char* path{};
  http::Handler (*bind)(ApiContext){};
  http::BodyKind body = http::BodyKind::kJson;
};

// In API.md's order.
constexpr Route kRoutes[] = {
    {V::post, "/api/v1/users", Bind<users::CreateUser>},
    {V::get, "/api/v1/users", Bind<users::ListUsers>},
    {V::get, "/api/v1/users/me", Bind<users::GetMe>},
    {V::patch, "/api/v1/users/me", Bind<notifications::PatchMe>},
    {V::post, "/api/v1/users/me/email/verify", Bind<notifications::VerifyEmail>},
    {V::get, "/api/v1/users/me/notifications", Bind<notifications::GetSettings>},
    {V::patch, "/api/v1/users/me/notifications", Bind<notifications::PatchSettings>},
    {V::get, "/api/v1/users/{id}", Bind<users::GetUser>},
    {V::patch, "/api/v1/users/{id}", Bind<users::PatchUser>},
    {V::delete_, "/api/v1/users/{id}", Bind<users::DeleteUser>},
    {V::post, "/api/v1/sessions", Bind<users::CreateSession>},
    {V::delete_, "/api/v1/sessions/current", Bind<users::DeleteSession>},
    {V::post, "/api/v1/sessions/sso", Bind<sign_in::Sso>},
    {V::get, "/api/v1/auth/providers", Bind<sign_in::Providers>},
    {V::get, "/api/v1/auth/{name}/start", Bind<sign_in::Start>},
    {V::get, "/api/v1/auth/{name}/callback", Bind<sign_in::Callback>},
    {V::get, "/api/v1/setup", Bind<setup::Needed>},
    {V::post, "/api/v1/setup", Bind<setup::Create>},

    {V::post, "/api/v1/articles", Bind<articles::Create>},
    {V::get, "/api/v1/articles", Bind<articles::List>},
    {V::get, "/api/v1/articles/{id}", Bind<articles::Get>},
    {V::patch, "/api/v1/articles/{id}", Bind<articles::Patch>},
    {V::delete_, "/api/v1/articles/{id}", Bind<articles::Delete>},
    {V::get, "/api/v1/changes", Bind<articles::Changes>},
    {V::get, "/api/v1/search", Bind<search::Find>},

    {V::put, "/api/v1/articles/{id}/like", Bind<likes::Like>},
    {V::delete_, "/api/v1/articles/{id}/like", Bind<likes::Unlike>},
    {V::get, "/api/v1/articles/{id}/like", Bind<likes::GetArticleLike>},
    {V::put, "/api/v1/comments/{id}/like", Bind<likes::LikeComment>},
    {V::delete_, "/api/v1/comments/{id}/like", Bind<likes::UnlikeComment>},
    {V::get, "/api/v1/comments/{id}/like", Bind<likes::GetCommentLike>},
    {V::get, "/api/v1/likes", Bind<likes::Batch>},

    {V::post, "/api/v1/articles/{id}/comments", Bind<comments::Create>},
    {V::get, "/api/v1/articles/{id}/comments", Bind<comments::List>},
    {V::post, "/api/v1/comments/preview", Bind<comments::Preview>},
    {V::get, "/api/v1/comments/{id}", Bind<comments::Get>},
    {V::patch, "/api/v1/comments/{id}", Bind<comments::Patch>},
    {V::delete_, "/api/v1/comments/{id}", Bind<comments::Delete>},
    {V::get, "/api/v1/comments/{id}/replies", Bind<comments::Replies>},

    {V::get, "/api/v1/pages", Bind<pages::Get>},
    {V::get, "/api/v1/pages/comments", Bind<pages::ListComments>},
    {V::get, "/api/v1/pages/events", Bind<live::PageEvents>},
    {V::get, "/api/v1/articles/{id}/events", Bind<live::ArticleEvents>},
    {V::post, "/api/v1/pages/comments", Bind<pages::AddComment>},
    {V::put, "/api/v1/pages/like", Bind<pages::Like>},
    {V::delete_, "/api/v1/pages/like", Bind<pages::Unlike>},
    {V::get, "/api/v1/pages/counts", Bind<pages::Counts>},

    {V::get, "/api/v1/moderation/comments", Bind<moderation::Queue>},
    {V::post, "/api/v1/moderation/comments", Bind<moderation::Act>},
    {V::get, "/api/v1/moderation/log", Bind<moderation::Log>},
    {V::post, "/api/v1/comments/{id}/reports", Bind<moderation::Report>},
    {V::put, "/api/v1/users/{id}/ban", Bind<moderation::Ban>},
    {V::delete_, "/api/v1/users/{id}/ban", Bind<moderation::Unban>},

    // The links in mails: pages, and their forms' (or a mail client's one-click) POSTs.
    {V::get, "/api/v1/notifications/confirm", Bind<notifications::Confirm>},
    {V::post, "/api/v1/notifications/confirm", Bind<notifications::Confirm>,
     http::BodyKind::kJsonOrForm},
    {V::get, "/api/v1/notifications/unsubscribe", Bind<notifications::Unsubscribe>},
    {V::post, "/api/v1/notifications/unsubscribe", Bind<notifications::Unsubscribe>,
     http::BodyKind::kJsonOrForm},
};

}  // namespace

void RegisterApi(http::Router& router, ApiContext ctx) {
  for (const Route& r : kRoutes) {
    router.Add(r.verb, r.path, r.bind(ctx), r.body);
  }
}

}  // namespace plaudit::api
