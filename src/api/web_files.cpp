#include "api/web_files.hpp"

#include <sodium.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>

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

// Calls `fn` with each trimmed item of a comma-separated header value; stops when it returns true.
template <class Fn>
bool AnyListItem(std::string_view header, Fn fn) {
  while (!header.empty()) {
    size_t comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) {
      item.remove_prefix(1);
    }
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) {
      item.remove_suffix(1);
    }
    if (fn(item)) {
      return true;
    }
    if (comma == std::string_view::npos) {
      break;
    }
    header.remove_prefix(comma + 1);
  }
  return false;
}

bool IEquals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](char x, char y) { return std::tolower(x) == std::tolower(y); });
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

bool EtagMatches(std::string_view header, std::string_view etag) {
  return AnyListItem(header, [etag](std::string_view item) {
    // If-None-Match compares weakly (RFC 9110 13.1.2): W/"x" matches "x".
    if (item.starts_with("W/")) {
      item.remove_prefix(2);
    }
    return item == "*" || item == etag;
  });
}

bool AcceptsGzip(std::string_view header) {
  // RFC 9110 12.5.3: a coding named explicitly wins over "*"; q=0 (any spelling of zero,
  // "q" or "Q") refuses it.
  std::optional<bool> named, star;
  AnyListItem(header, [&](std::string_view item) {
    size_t semi = item.find(';');
    std::string_view coding = item.substr(0, semi);
    while (!coding.empty() && coding.back() == ' ') {
      coding.remove_suffix(1);
    }
    const bool is_gzip = IEquals(coding, "gzip") || IEquals(coding, "x-gzip");
    if (!is_gzip && coding != "*") {
      return false;
    }
    bool accepted = true;
    if (semi != std::string_view::npos) {
      std::string_view q = item.substr(semi + 1);
      while (!q.empty() && q.front() == ' ') {
        q.remove_prefix(1);
      }
      if (q.size() >= 2 && (q[0] == 'q' || q[0] == 'Q') && q[1] == '=') {
        accepted = q.find_first_not_of("0.", 2) != std::string_view::npos;
      }
    }
    if (is_gzip) {
      named = named.value_or(false) || accepted;
    } else {
      star = star.value_or(false) || accepted;
    }
    return false;  // every item is read
  });
  if (named) {
    return *named;
  }
  return star.value_or(false);
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

}  // namespace plaudit::api
