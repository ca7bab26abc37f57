#pragma once
// The HTTP side of rendered pages (api/page_cache.hpp), shared by comment pages
// (cached_pages.cpp) and article lists (cached_lists.cpp): caching headers, the 304, the
// public bytes (gzip when accepted) and a signed-in reader's copy with its own likes.
#include <optional>
#include <string>

#include "api/context.hpp"
#include "api/page_cache.hpp"
#include "http/request.hpp"

namespace plaudit::api {

// Shared caches may keep a public page (`shared`); nothing else (a signed-in reader's
// flags) is theirs. Vary: the page differs by encoding, and a request with credentials must
// not be answered with the public copy (the CORS headers differ by Origin: http/cors adds it
// when present).
void AddCacheHeaders(http::Response& r, const ApiContext& ctx, const http::Request& req,
                     bool shared);

// A 304 when the request's If-None-Match names `etag` or its gzip copy's tag, echoing the tag
// it named (its copy's: a 304 confirms that representation); else nullopt.
std::optional<http::Response> NotModified(const ApiContext& ctx, const http::Request& req,
                                          const std::string& etag);

// An anonymous reader's answer: the page's own bytes (or its gzip copy when accepted), kept
// alive by the response even if the cache drops the page meanwhile. `key`: the page's in
// the cache (its gzip copy is counted there).
http::Response PublicPage(const ApiContext& ctx, const http::Request& req, const std::string& key,
                          const std::shared_ptr<RenderedPage>& page);

// A signed-in reader's answer: the public page with the reader's own `liked` flags written
// in, read in one batch for the slots someone had liked at the page's version (LikedSlot).
// `comments`: the slots are comments' (else articles').
Awaitable<Result<http::Response>> ReaderPage(const ApiContext& ctx, const http::Request& req,
                                             int64_t user_id,
                                             const std::shared_ptr<RenderedPage>& page,
                                             bool comments);

}  // namespace plaudit::api
