#pragma once
// Rendered comment pages, in this process: the JSON of a page as an anonymous reader sees it,
// keyed by what names the page (article, sort, page or cursor, size, replies) and valid for
// one version of its thread (domain::CommentService::PageVersion). Every change a page shows
// moves that version in the same Redis step as the change itself, and a request reads the
// version before anything else, so a cached page is served only while nothing it shows has
// changed: a read never sees less than every write acknowledged before it started
// (docs/architecture.md "Rendered pages"). Signed-in readers get the same bytes with their
// own "liked" flags written in (LikedSlots), so a page is rendered once for everyone.
//
// Bounded by bytes, least recently used first out. Single-threaded: the event loop's.
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "common/single_flight.hpp"

namespace plaudit::render {

// Where a comment's "liked" value sits in a rendered page.
struct LikedSlot {
  size_t at = 0;  // offset of its `false`
  int64_t id = 0;
  // Whether anyone had liked it at the page's version. A reader's like acknowledged before
  // the request started is in that version, so a comment nobody had liked is not one the
  // reader liked: only the others are asked about (most comments of a thread have no likes).
  bool liked_by_anyone = false;
};
using LikedSlots = std::vector<LikedSlot>;

// The tag of a page's gzip copy: `etag` ("\"…\"") with -gz before the closing quote.
std::string GzipEtagOf(std::string_view etag);
// A strong ETag naming `body` itself: "\"<format>.<BLAKE2b-128 of it, hex>\"". The same bytes
// get the same tag from every instance, whenever rendered.
std::string ContentEtag(std::string_view format, std::string_view body);

// What an article list page was rendered from (render/article_lists.cpp).
struct ListOrigin;

// A kept page is rendered again after this long whatever its version says: a bound on what a
// writer that does not move versions (an instance of an earlier release on the same Redis,
// or a bug) can leave stale. A render a minute per page costs nothing.
inline constexpr int64_t kKeptAtMostMs = 60'000;
// The steady clock in ms: pages' ages.
int64_t SteadyMs();

struct RenderedPage {
  std::string version;      // the thread version it was rendered at
  int64_t rendered_ms = 0;  // SteadyMs() before that version was read
  std::string body;         // every "liked" false
  LikedSlots liked;
  std::string etag;  // of body; the gzip copy's is etag with "-gz" inside the quotes
  // Made on the first request that accepts gzip (empty until then, or when not worth it).
  std::string gzip;
  bool gzip_tried = false;
  // A comment page's signed-in readers at this version: user id → the ids whose flags are
  // true for them (sorted). Every change of a like state in the thread moves its version in
  // the same step (like_set.lua), so at one version a reader's flags are the reader's alone,
  // and a reader's next request at it asks Redis nothing. Counted by PageCache::Charge.
  std::unordered_map<int64_t, std::vector<int64_t>> readers;
  std::shared_ptr<const ListOrigin> list;  // an article list page's; null for comments
  size_t list_bytes = 0;                   // what `list` holds, for the cache's bound

  std::string GzipEtag() const { return GzipEtagOf(etag); }
  // The body with the `liked` ids' flags true (ids sorted ascending).
  std::string WithLiked(const std::vector<int64_t>& liked_ids) const;
  // The gzip copy, made now if need be; empty when the body is too small to gain from it.
  // Through PageCache::Gzipped, so that the cache counts it.
  const std::string& Gzipped();
};

class PageCache {
 public:
  // `max_bytes` 0: nothing is kept (every page is rendered).
  explicit PageCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The page cached under `key` if it was rendered at `version`; else null.
  std::shared_ptr<RenderedPage> Find(const std::string& key, std::string_view version);
  // The page cached under `key` whatever its version (the caller compares: an article list
  // page's version is read for the articles it shows); counted by Record.
  std::shared_ptr<RenderedPage> Peek(const std::string& key);
  void Record(bool hit) { ++(hit ? hits_ : misses_); }
  // Keeps `page` under `key` (replacing any older version), evicting the least recently used
  // pages beyond the byte bound. Returns it.
  std::shared_ptr<RenderedPage> Put(const std::string& key, RenderedPage page);

  // `page`'s gzip copy (RenderedPage::Gzipped), counted in the bound if the page is still
  // kept under `key`.
  const std::string& Gzipped(const std::string& key, RenderedPage& page);
  // `bytes` more held by `page` (its readers), counted in the bound if the page is still
  // kept under `key` and stays within 1/kMostForOnePage of the bound; false otherwise (then
  // nothing more should be added to it).
  static constexpr size_t kMostForOnePage = 8;
  bool Charge(const std::string& key, const RenderedPage& page, size_t bytes);

  bool enabled() const { return max_bytes_ > 0; }
  size_t bytes() const { return bytes_; }
  size_t size() const { return entries_.size(); }
  // Renders of one page at one version in flight: the readers that miss together wait for
  // one render (after a like, every reader of a busy thread misses at once).
  SingleFlight<std::string, std::shared_ptr<RenderedPage>> renders;

  // For tests: lookups answered from the cache, and not.
  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }

 private:
  struct Entry {
    std::string key;
    std::shared_ptr<RenderedPage> page;
    size_t bytes = 0;
  };
  static size_t BytesOf(const std::string& key, const RenderedPage& p);
  void Drop(std::list<Entry>::iterator it);
  void Evict();  // the least recently used pages, while over the bound

  size_t max_bytes_;
  size_t bytes_ = 0;
  std::list<Entry> entries_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace plaudit::render
