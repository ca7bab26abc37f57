#pragma once
// API.md "Users and sessions": /api/v1/users, /api/v1/sessions.
#include "api/context.hpp"
#include "http/router.hpp"

namespace plaudit::api {

boost::json::object UserJson(const domain::User& user);        // what the user sees of self
boost::json::object PublicUserJson(const domain::User& user);  // what anyone sees
// The user's own view of themself (GET/PATCH /users/me): UserJson with "email" (null when
// none) and "emailVerified" (API.md "Notifications": only they and admins see the address).
boost::json::object OwnUserJson(const domain::User& user, const domain::NoticeSettingsView& s);

// 201 {"token", "expiresAt", "user"} with the session cookie set (sign-in, first-run setup).
http::Response SessionResponse(const ApiContext& ctx, const http::Request& req,
                               const domain::Session& session);
// The Set-Cookie value of the session cookie (an empty token and max_age 0 clear it).
std::string SessionCookie(const ApiContext& ctx, const http::Request& req, const std::string& token,
                          int64_t max_age);

}  // namespace plaudit::api
