#pragma once
// What handlers need, wired once by src/app/app.cpp.
#include "api/guard.hpp"
#include "domain/articles.hpp"
#include "domain/users.hpp"

namespace plaudit::api {

struct ApiContext {
  Guard* guard = nullptr;
  domain::UserService* users = nullptr;
  domain::ArticleService* articles = nullptr;
  int64_t session_ttl_seconds = 0;
};

}  // namespace plaudit::api
