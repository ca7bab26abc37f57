#include "api/web_files.hpp"

#include <sodium.h>

#include <memory>

#include "api/site_pages.hpp"

namespace plaudit::api {

namespace {

using http::Request;
using http::Response;

// A host page fetches /embed.js on every visit: five minutes bounds how long a deploy takes to
// reach readers while keeping revalidations (304s, a few hundred bytes) rare.
constexpr std::string_view kStableCache = "public, max-age=300";
constexpr std::string_view kImmutableCache = "public, max-age=31536000, immutable";
// Only for plauditd's own HTML pages; the widget on a host page lives under the host's policy.
// img-src https: shows the images articles link to (the sanitiser keeps http(s) src only):
// docs/security.md "Issue 41" argues it against proxying them.
constexpr std::string_view kHtmlPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
    "object-src 'none'";

std::string_view ContentType(std::string_view name) {
  if (name.ends_with(".js")) {
    return "text/javascript; charset=utf-8";
  }
  if (name.ends_with(".css")) {
    return "text/css; charset=utf-8";
  }
  if (name.ends_with(".html")) {
    return "text/html; charset=utf-8";
  }
  if (name.ends_with(".svg")) {
    return "image/svg+xml";
  }
  if (name.ends_with(".json")) {
    return "application/json; charset=utf-8";
  }
  return "application/octet-stream";
}

// 64 bits of BLAKE2b as hex: plenty to tell builds apart, short enough for a file name.
std::string ContentHash(std::string_view content) {
  unsigned char digest[8];
  crypto_generichash(digest, sizeof(digest), reinterpret_cast<const unsigned char*>(content.data()),
                     content.size(), nullptr, 0);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace

Response ServeWebFile(const WebFile& file, const Request& req, std::string_view cache_control) {
  const bool gzip =
      !file.gzip.empty() && AcceptsGzip(req.Header(beast::http::field::accept_encoding));
  Response r;
  r.headers.emplace_back("Cache-Control", cache_control);
  r.headers.emplace_back("ETag", gzip ? file.gzip_etag : file.etag);
  if (!file.gzip.empty()) {
    r.headers.emplace_back("Vary", "Accept-Encoding");
  }
  if (gzip) {
    r.headers.emplace_back("Content-Encoding", "gzip");
  }
  // X-Content-Type-Options and Referrer-Policy: on every answer (http/wire.cpp).
  // A host page that isolates itself (COEP) may still load the widget from this origin.
  r.headers.emplace_back("Cross-Origin-Resource-Policy", "cross-origin");
  if (file.content_type.starts_with("text/html")) {
    r.headers.emplace_back("Content-Security-Policy", kHtmlPolicy);
    r.headers.emplace_back("X-Frame-Options", "DENY");
  }
  r.content_type = file.content_type;
  // Either representation's tag revalidates: the bytes behind both change together.
  std::string_view inm = req.Header(beast::http::field::if_none_match);
  if (EtagMatches(inm, file.etag) || (!file.gzip.empty() && EtagMatches(inm, file.gzip_etag))) {
    r.status = beast::http::status::not_modified;
    return r;
  }
  r.body = std::string(gzip ? file.gzip : file.content);
  return r;
}

std::vector<WebFile> IndexWebFiles(std::span<const EmbeddedFile> files) {
  std::vector<WebFile> out;
  for (const EmbeddedFile& f : files) {
    if (f.name.ends_with(".gz")) {
      continue;
    }
    std::string name(f.name);
    size_t dot = name.rfind('.');
    std::string stem = dot == std::string::npos ? name : name.substr(0, dot);
    std::string ext = dot == std::string::npos ? "" : name.substr(dot);
    std::string hash = ContentHash(f.content);
    std::string hashed_path = "/assets/" + stem;
    hashed_path.append(".").append(hash).append(ext);
    WebFile w{"/" + name,
              std::move(hashed_path),
              "\"" + hash + "\"",
              "\"" + hash + ".gz\"",
              ContentType(name),
              f.content,
              {}};
    for (const EmbeddedFile& g : files) {
      if (g.name.size() == f.name.size() + 3 && g.name.starts_with(f.name) &&
          g.name.ends_with(".gz")) {
        w.gzip = g.content;
      }
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::string LinkHashedAssets(std::string_view html, std::span<const WebFile> files) {
  std::string out(html);
  for (const WebFile& f : files) {
    const std::string quoted = "\"" + f.stable_path + "\"";
    const std::string hashed = "\"" + f.hashed_path + "\"";
    for (size_t at = out.find(quoted); at != std::string::npos;
         at = out.find(quoted, at + hashed.size())) {
      out.replace(at, quoted.size(), hashed);
    }
  }
  return out;
}

void RegisterWebFiles(http::Router& router) {
  // Shared by the handlers; the embedded bytes are static, the index is built once.
  auto files = std::make_shared<const std::vector<WebFile>>(IndexWebFiles(web::Files()));
  RegisterSitePages(router, files);
  for (const WebFile& f : *files) {
    if (f.content_type.starts_with("text/html")) {
      continue;
    }
    const WebFile* file = &f;
    router.Add(beast::http::verb::get, f.stable_path,
               [files, file](Request& req) -> Awaitable<Response> {
                 co_return ServeWebFile(*file, req, kStableCache);
               });
    router.Add(beast::http::verb::get, f.hashed_path,
               [files, file](Request& req) -> Awaitable<Response> {
                 co_return ServeWebFile(*file, req, kImmutableCache);
               });
  }
}

void RegisterOpenApi(http::Router& router) {
  auto files = std::make_shared<const std::vector<WebFile>>(IndexWebFiles(api::openapi::Files()));
  for (const WebFile& f : *files) {
    const WebFile* file = &f;
    router.Add(beast::http::verb::get, "/api/v1/" + std::string(f.stable_path.substr(1)),
               [files, file](Request& req) -> Awaitable<Response> {
                 co_return ServeWebFile(*file, req, kStableCache);
               });
  }
}

}  // namespace plaudit::api
