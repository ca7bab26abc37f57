#pragma once
// What handlers need, wired once by src/app/app.cpp.
#include "api/guard.hpp"
#include "api/page_cache.hpp"
#include "domain/articles.hpp"
#include "domain/comments.hpp"
#include "domain/likes.hpp"
#include "domain/notice_settings.hpp"
#include "domain/page_threads.hpp"
#include "domain/setup.hpp"
#include "domain/social_sign_in.hpp"
#include "domain/sso_sign_in.hpp"
#include "domain/users.hpp"
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
  PageCache* page_cache = nullptr;
  sql::ModerationLog* moderation_log = nullptr;
  domain::SsoSignIn* sso = nullptr;        // null: no --sso
  domain::SocialSignIn* social = nullptr;  // null: no --oidc nor --github
  domain::NoticeSettings* notices = nullptr;
  // How old a kept article list page's view counts may be when it is served again.
  int64_t list_views_max_age_ms = 1000;
  // Cache-Control of public pages (anonymous comment pages): a CDN in front may keep them
  // briefly (--shared-max-age-s); browsers revalidate. CDN-Cache-Control adds
  // stale-while-revalidate for CDNs alone (--stale-while-revalidate-s; empty: none).
  std::string_view public_cache_control = "public, no-cache";
  std::string_view cdn_cache_control;
};

}  // namespace plaudit::api
