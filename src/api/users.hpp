#pragma once
// API.md "Users and sessions": /api/v1/users, /api/v1/sessions.
#include "api/context.hpp"
#include "http/router.hpp"

namespace plaudit::api {

boost::json::object UserJson(const domain::User& user);        // what the user sees of self
boost::json::object PublicUserJson(const domain::User& user);  // what anyone sees

}  // namespace plaudit::api
