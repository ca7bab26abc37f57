#pragma once
// plauditd's own blog pages (web/src/site.ts): one HTML shell (web/site/index.html, embedded as
// site.html) answers every page URL and the bundle routes on the client, so each URL also loads
// directly. The shell links the site's script and style sheet by their hashed names and is
// served under the strict Content-Security-Policy of api/web_files (no inline script or style).
//   GET /                  the published list        GET /write[?id=N]  the editor
//   GET /articles/{id}     one article and thread    GET /drafts        the caller's drafts
//   GET /setup?token=...   first-run admin setup     GET /signin        sign in / sign up
//   GET /admin             the moderation console (moderators and admins; the API checks roles)
//   GET /search?q=...      search results (API.md "Search"); every page's header has the box
#include <memory>
#include <vector>

#include "api/web_files.hpp"
#include "http/router.hpp"

namespace plaudit::api {

// The page URLs the shell answers (for tests and docs).
inline constexpr const char* kSitePagePatterns[] = {
    "/", "/articles/{id}", "/write", "/drafts", "/search", "/setup", "/signin", "/admin"};

// Registers the page routes when `files` holds site.html; otherwise registers nothing.
void RegisterSitePages(http::Router& router,
                       const std::shared_ptr<const std::vector<WebFile>>& files);

}  // namespace plaudit::api
