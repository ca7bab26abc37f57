#include "render/page_cache.hpp"

#include <sodium.h>

#include <algorithm>
#include <chrono>

#include "common/gzip.hpp"

namespace plaudit::render {
namespace {

// Below this a gzip copy saves less than its header and a TCP segment's worth.
constexpr size_t kGzipMinBytes = 1024;
constexpr std::string_view kFalse = "false";

}  // namespace

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string GzipEtagOf(std::string_view etag) {
  std::string out(etag.substr(0, etag.size() - 1));
  out += "-gz\"";
  return out;
}

std::string RenderedPage::WithLiked(const std::vector<int64_t>& liked_ids) const {
  std::string out;
  out.reserve(body.size());
  size_t from = 0;
  for (const LikedSlot& slot : liked) {
    if (!std::binary_search(liked_ids.begin(), liked_ids.end(), slot.id)) {
      continue;
    }
    out.append(body, from, slot.at - from);
    out.append("true");
    from = slot.at + kFalse.size();
  }
  out.append(body, from, std::string::npos);
  return out;
}

const std::string& RenderedPage::Gzipped() {
  if (!gzip_tried) {
    gzip_tried = true;
    if (body.size() >= kGzipMinBytes) {
      if (auto z = Gzip(body); z && z->size() < body.size()) {
        gzip = std::move(*z);
      }
    }
  }
  return gzip;
}

size_t PageCache::BytesOf(const std::string& key, const RenderedPage& p) {
  // What the entry holds, with the bookkeeping's rough share (list node, index, strings).
  return key.size() * 2 + p.version.size() + p.body.size() + p.etag.size() +
         p.liked.size() * sizeof(LikedSlot) + p.list_bytes + 256;
}

std::string ContentEtag(std::string_view format, std::string_view body) {
  unsigned char hash[16];
  crypto_generichash(hash, sizeof hash, reinterpret_cast<const unsigned char*>(body.data()),
                     body.size(), nullptr, 0);
  char hex[2 * sizeof hash + 1];
  sodium_bin2hex(hex, sizeof hex, hash, sizeof hash);
  std::string out = "\"";
  out += format;
  out += '.';
  out += hex;
  out += '"';
  return out;
}

std::shared_ptr<RenderedPage> PageCache::Peek(const std::string& key) {
  auto it = index_.find(key);
  if (it == index_.end()) {
    return nullptr;
  }
  entries_.splice(entries_.begin(), entries_, it->second);  // most recently used
  return it->second->page;
}

std::shared_ptr<RenderedPage> PageCache::Find(const std::string& key, std::string_view version) {
  auto it = index_.find(key);
  if (it == index_.end() || it->second->page->version != version) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  entries_.splice(entries_.begin(), entries_, it->second);  // most recently used
  return it->second->page;
}

const std::string& PageCache::Gzipped(const std::string& key, RenderedPage& page) {
  const bool fresh = !page.gzip_tried;
  const std::string& z = page.Gzipped();
  if (!fresh || z.empty()) {
    return z;
  }
  if (auto it = index_.find(key); it != index_.end() && it->second->page.get() == &page) {
    it->second->bytes += z.size();
    bytes_ += z.size();
    Evict();
  }
  return z;
}

bool PageCache::Charge(const std::string& key, const RenderedPage& page, size_t bytes) {
  auto it = index_.find(key);
  if (it == index_.end() || it->second->page.get() != &page) {
    return false;
  }
  // One page may grow to an eighth of the bound (a busy thread's readers over its version's
  // life), never push every other page out: Evict keeps the most recently used page.
  if (it->second->bytes + bytes > max_bytes_ / kMostForOnePage) {
    return false;
  }
  it->second->bytes += bytes;
  bytes_ += bytes;
  Evict();
  return true;
}

void PageCache::Evict() {
  // Never the most recently used page: the one just handed out stays until its next miss.
  while (bytes_ > max_bytes_ && entries_.size() > 1) {
    Drop(std::prev(entries_.end()));
  }
}

std::shared_ptr<RenderedPage> PageCache::Put(const std::string& key, RenderedPage page) {
  auto shared = std::make_shared<RenderedPage>(std::move(page));
  if (auto it = index_.find(key); it != index_.end()) {
    Drop(it->second);
  }
  const size_t bytes = BytesOf(key, *shared) + shared->gzip.size();
  if (bytes > max_bytes_) {
    return shared;  // never kept (or caching is off)
  }
  entries_.push_front(Entry{key, shared, bytes});
  index_.emplace(key, entries_.begin());
  bytes_ += bytes;
  Evict();
  return shared;
}

void PageCache::Drop(std::list<Entry>::iterator it) {
  bytes_ -= it->bytes;
  index_.erase(it->key);
  entries_.erase(it);
}

}  // namespace plaudit::render
