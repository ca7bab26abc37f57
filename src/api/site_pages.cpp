#include "api/site_pages.hpp"

#include <string>

namespace plaudit::api {

namespace {

// The shell is tiny and names the current hashed assets: revalidate on every visit (a 304 by
// ETag) so a deploy reaches readers at once.
constexpr std::string_view kShellCache = "no-cache";

// Owns the rewritten shell; `file` views into `html`, so a SitePage never moves.
struct SitePage {
  std::string html;
  WebFile file;
};

}  // namespace

void RegisterSitePages(http::Router& router,
                       const std::shared_ptr<const std::vector<WebFile>>& files) {
  const WebFile* shell = nullptr;
  for (const WebFile& f : *files) {
    if (f.stable_path == "/site.html") {
      shell = &f;
    }
  }
  if (shell == nullptr) {
    return;
  }
  auto page = std::make_shared<SitePage>();
  page->html = LinkHashedAssets(shell->content, *files);
  const EmbeddedFile embedded{"site.html", page->html};
  page->file = IndexWebFiles(std::span(&embedded, 1)).front();
  for (const char* pattern : kSitePagePatterns) {
    router.Add(beast::http::verb::get, pattern,
               [page](http::Request& req) -> Awaitable<http::Response> {
                 co_return ServeWebFile(page->file, req, kShellCache);
               });
  }
}

}  // namespace plaudit::api
