#pragma once
// What handlers need, wired once by src/app/wiring.cpp.
#include "api/guard.hpp"
#include "domain/articles.hpp"
#include "domain/comments.hpp"
#include "domain/likes.hpp"
#include "domain/notice_settings.hpp"
#include "domain/page_threads.hpp"
#include "domain/search.hpp"
#include "domain/setup.hpp"
#include "domain/social_sign_in.hpp"
#include "domain/sso_sign_in.hpp"
#include "domain/users.hpp"
#include "render/live_streams.hpp"
#include "render/renderer.hpp"
#include "sql/moderation_log.hpp"

namespace plaudit::api {

struct ApiContext {
  Guard* guard = nullptr;
  domain::UserService* users = nullptr;
  domain::ArticleService* articles = nullptr;
  domain::LikeService* likes = nullptr;
  domain::CommentService* comments = nullptr;
  domain::FirstRunSetup* setup = nullptr;
  int64_t session_ttl_seconds = 0;
  bool cookie_secure = false;  // --cookie-secure: the session cookie always carries Secure
  domain::PageService* pages = nullptr;
  render::Renderer* render = nullptr;  // comment pages and published lists, with their cache
  sql::ModerationLog* moderation_log = nullptr;
  domain::SsoSignIn* sso = nullptr;        // null: no --sso
  domain::SocialSignIn* social = nullptr;  // null: no --oidc nor --github
  domain::NoticeSettings* notices = nullptr;
  render::LiveStreams* live = nullptr;      // live updates (API.md "Live updates")
  domain::SearchService* search = nullptr;  // API.md "Search"
};

}  // namespace plaudit::api
