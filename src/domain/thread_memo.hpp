#pragma once
// Page URL → thread (article id) as this process last learned it, in front of the Redis page
// map (redis/page_map.hpp) and with its meaning: a URL → id pair never changes while the
// thread exists, so an entry is right or names a deleted thread, which the caller finds when
// that article is not there, and then forgets the entry and asks SQL (PageService). A site
// index's counts of 50 pages asked Redis for 50 such entries on every call (issue 47).
// An entry read from Redis before another request forgot it may be put back after: it only
// costs that request's successor the same check and query again.
// Bounded by bytes (URLs are up to 2 KB): when full, it starts over. I/O thread only.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace plaudit::domain {

class ThreadMemo {
 public:
  std::optional<int64_t> Find(const std::string& url) const {
    auto it = ids_.find(url);
    return it == ids_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  void Put(const std::string& url, int64_t id) {
    if (bytes_ + BytesOf(url) > kMaxBytes) {
      ids_.clear();
      bytes_ = 0;
    }
    if (ids_.insert_or_assign(url, id).second) {
      bytes_ += BytesOf(url);
    }
  }
  void Forget(const std::string& url) {
    if (ids_.erase(url) > 0) {
      bytes_ -= BytesOf(url);
    }
  }
  size_t size() const { return ids_.size(); }

 private:
  static constexpr size_t kMaxBytes = size_t{8} << 20;
  // The URL, the id and a node's bookkeeping, roughly.
  static size_t BytesOf(const std::string& url) { return url.size() + 64; }

  std::unordered_map<std::string, int64_t> ids_;
  size_t bytes_ = 0;
};

}  // namespace plaudit::domain
