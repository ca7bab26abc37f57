#pragma once
// The browser front end's files (web/, bundled by web/build.mjs and compiled into the binary by
// cmake/Embed.cmake), served so that plauditd alone is enough to put comments on a site:
//   GET /embed.js, GET /count.js      stable names a host page links to; short cache, strong
//                                     ETag (the content hash), 304 on If-None-Match
//   GET /assets/<stem>.<hash>.<ext>   the same bytes under a content-hashed name, cached for a
//                                     year (immutable): a new build has a new name
// HTML files get a strict Content-Security-Policy; every file gets nosniff.
#include <span>
#include <string>
#include <string_view>

#include "common/embedded.hpp"
#include "http/router.hpp"

namespace plaudit::api {

// One file as served. Its strings live as long as the registry that made it.
struct WebFile {
  std::string stable_path;  // "/embed.js"
  std::string hashed_path;  // "/assets/embed.3f9a0c1d2b4e5f60.js"
  std::string etag;         // "\"3f9a0c1d2b4e5f60\"" (strong)
  std::string_view content_type;  // static storage
  std::string_view content;       // the embedded bytes
};

// The files' names, hashes and types: a plain function of the embedded bytes (unit-testable).
std::vector<WebFile> IndexWebFiles(std::span<const EmbeddedFile> files);

// Whether an If-None-Match header value names `etag` (a list, weak or strong, or "*").
bool EtagMatches(std::string_view if_none_match, std::string_view etag);

// Registers GET routes for every embedded web file (plaudit::web::Files()).
void RegisterWebFiles(http::Router& router);

}  // namespace plaudit::api
