// The HTTP side of rendered pages (page_cache.hpp), shared by comment pages
// (comment_pages.cpp) and article lists (article_lists.cpp): caching headers, the 304, the
// public bytes (gzip when accepted) and a signed-in reader's copy with its own likes.
#include <algorithm>
#include <vector>

#include "http/conditional.hpp"
#include "render/renderer.hpp"

namespace plaudit::render {

using http::Request;
using http::Response;

void Renderer::AddCacheHeaders(Response& r, const Request& req, bool shared) const {
  r.headers.emplace_back("Cache-Control",
                         shared ? options_.public_cache_control : "private, no-store");
  if (shared && !options_.cdn_cache_control.empty()) {
    r.headers.emplace_back("CDN-Cache-Control", options_.cdn_cache_control);
  }
  r.headers.emplace_back("Vary", req.Header(beast::http::field::origin).empty()
                                     ? "Origin, Accept-Encoding, Authorization, Cookie"
                                     : "Accept-Encoding, Authorization, Cookie");
}

std::optional<Response> Renderer::NotModified(const Request& req, const std::string& etag) const {
  std::string_view inm = req.Header(beast::http::field::if_none_match);
  if (inm.empty()) {
    return std::nullopt;
  }
  const std::string gz_etag = GzipEtagOf(etag);
  const bool plain = http::EtagMatches(inm, etag);
  if (!plain && !http::EtagMatches(inm, gz_etag)) {
    return std::nullopt;
  }
  Response r;
  r.status = beast::http::status::not_modified;
  r.headers.emplace_back("ETag", plain ? etag : gz_etag);
  AddCacheHeaders(r, req, true);
  return r;
}

Response Renderer::PublicPage(const Request& req, const std::string& key,
                              const std::shared_ptr<RenderedPage>& page) {
  Response r;
  const bool gzip = http::AcceptsGzip(req.Header(beast::http::field::accept_encoding)) &&
                    !cache_.Gzipped(key, *page).empty();
  // The aliasing shared_ptr: the page stays alive as long as the response needs its bytes.
  r.shared_body = std::shared_ptr<const std::string>(page, gzip ? &page->gzip : &page->body);
  r.headers.emplace_back("ETag", gzip ? page->GzipEtag() : page->etag);
  if (gzip) {
    r.headers.emplace_back("Content-Encoding", "gzip");
  }
  AddCacheHeaders(r, req, true);
  return r;
}

namespace {

// What a reader's entry in RenderedPage::readers holds, roughly: the hash node with its key
// and vector, its share of the bucket array, the allocator's overhead, and the ids.
size_t ReaderBytes(const std::vector<int64_t>& liked) { return 96 + 8 * liked.capacity(); }

}  // namespace

Awaitable<Result<Response>> Renderer::ReaderPage(const Request& req, int64_t user_id,
                                                 const std::shared_ptr<RenderedPage>& page,
                                                 bool comments, const std::string* key) {
  if (key != nullptr) {
    if (auto known = page->readers.find(user_id); known != page->readers.end()) {
      co_return ReaderResponse(req, page, known->second);
    }
  }
  std::vector<model::Target> targets;
  std::vector<int64_t> asked;
  for (const LikedSlot& slot : page->liked) {
    if (!slot.liked_by_anyone) {
      continue;
    }
    targets.push_back(comments ? model::Target::Comment(slot.id) : model::Target::Article(slot.id));
    asked.push_back(slot.id);
  }
  std::vector<int64_t> liked;
  if (!targets.empty()) {
    PL_CO_TRY(auto states, co_await likes_.Liked(user_id, std::move(targets)));
    for (size_t i = 0; i < states.size(); ++i) {
      if (states[i]) {
        liked.push_back(asked[i]);
      }
    }
  }
  std::sort(liked.begin(), liked.end());
  Response r = ReaderResponse(req, page, liked);
  // Kept only while the page is (a page dropped meanwhile is not served again), and read
  // after the page's version was: the flags hold at least what that version names.
  // Once per reader (two of its requests may have missed together).
  liked.shrink_to_fit();
  if (key != nullptr && !page->readers.contains(user_id) &&
      cache_.Charge(*key, *page, ReaderBytes(liked))) {
    page->readers.emplace(user_id, std::move(liked));
  }
  co_return r;
}

Response Renderer::ReaderResponse(const Request& req, const std::shared_ptr<RenderedPage>& page,
                                  const std::vector<int64_t>& liked) const {
  Response r;
  if (liked.empty()) {
    r.shared_body = std::shared_ptr<const std::string>(page, &page->body);
  } else {
    r.body = page->WithLiked(liked);
  }
  AddCacheHeaders(r, req, false);
  return r;
}

}  // namespace plaudit::render
