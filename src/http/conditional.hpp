#pragma once
// Reading a request's conditional and content-coding headers, shared by whatever answers with
// an ETag or a gzip copy: the web files (api/web_files.hpp) and the rendered pages
// (render/renderer.hpp).
#include <string_view>

namespace plaudit::http {

// Whether an If-None-Match header value names `etag` (a list, weak or strong, or "*").
bool EtagMatches(std::string_view if_none_match, std::string_view etag);

// Whether an Accept-Encoding header value accepts gzip (gzip, x-gzip or *, not with q=0).
bool AcceptsGzip(std::string_view accept_encoding);

}  // namespace plaudit::http
