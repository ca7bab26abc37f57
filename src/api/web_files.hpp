#pragma once
// The browser front end's files (web/, bundled by web/build.mjs and compiled into the binary by
// cmake/Embed.cmake), served so that plauditd alone is enough to put comments on a site:
//   GET /embed.js, GET /count.js      stable names a host page links to; short cache, strong
//                                     ETag (the content hash), 304 on If-None-Match
//   GET /assets/<stem>.<hash>.<ext>   the same bytes under a content-hashed name, cached for a
//                                     year (immutable): a new build has a new name
//   GET /, /articles/{id}, ...        the blog pages' one HTML shell (api/site_pages.hpp)
// HTML files get a strict Content-Security-Policy; every file gets nosniff.
// web/build.mjs also writes `<name>.gz` (gzip -9) next to each bundle: served with
// Content-Encoding: gzip to a client that accepts it, so plauditd alone sends a reader the
// ~9 KB of embed.js rather than ~25 KB, with no compression work per request.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/embedded.hpp"
#include "http/conditional.hpp"
#include "http/router.hpp"

namespace plaudit::api {

// One file as served. Its strings live as long as the registry that made it.
struct WebFile {
  std::string stable_path;        // "/embed.js"
  std::string hashed_path;        // "/assets/embed.3f9a0c1d2b4e5f60.js"
  std::string etag;               // "\"3f9a0c1d2b4e5f60\"" (strong)
  std::string gzip_etag;          // "\"3f9a0c1d2b4e5f60.gz\"": another representation, another tag
  std::string_view content_type;  // static storage
  std::string_view content;       // the embedded bytes
  std::string_view gzip;          // the same, gzipped; empty when the build made none
};

// The files' names, hashes and types: a plain function of the embedded bytes (unit-testable).
// A file `x.gz` is the gzip variant of `x`, not a file of its own.
std::vector<WebFile> IndexWebFiles(std::span<const EmbeddedFile> files);

// The conditional and content-coding checks the files are served with (http/conditional.hpp).
using http::AcceptsGzip;
using http::EtagMatches;

// `html` with each quoted stable path of `files` ("/site.js") replaced by its hashed path, so
// the page links to bytes a browser may cache for good and a deploy is seen at once.
std::string LinkHashedAssets(std::string_view html, std::span<const WebFile> files);

// The answer for `file` (gzip when accepted, 304 on a matching If-None-Match; HTML with the
// strict Content-Security-Policy and friends). `cache_control` must be static storage.
http::Response ServeWebFile(const WebFile& file, const http::Request& req,
                            std::string_view cache_control);

// Registers GET routes for every embedded web file (plaudit::web::Files()); HTML files are not
// served under their own names but as the site's pages (RegisterSitePages).
void RegisterWebFiles(http::Router& router);

// GET /api/v1/openapi.json: docs/openapi.json as built in (API.md "Moving data in and out"),
// with a strong ETag and a short cache, as /embed.js.
void RegisterOpenApi(http::Router& router);

}  // namespace plaudit::api
