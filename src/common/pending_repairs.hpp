#pragma once
// Ids whose cache step failed after a committed write (Redis refused or was away): each
// flush pass retries them from SQL, and forgets those that worked. Process-local: a process
// that dies first leaves the write's cache mark in Redis, which a check repairs instead
// (redis/cache_marks.hpp).
#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit {

class PendingRepairs {
 public:
  void Add(int64_t id) { ids_.insert(id); }

  // Runs `repair` for each id; returns how many are still pending.
  Awaitable<Result<int64_t>> Retry(std::function<Awaitable<Status>(int64_t)> repair) {
    const std::vector<int64_t> ids(ids_.begin(), ids_.end());
    for (int64_t id : ids) {
      auto st = co_await repair(id);
      if (st) {
        ids_.erase(id);
      }
    }
    co_return static_cast<int64_t>(ids_.size());
  }

 private:
  std::set<int64_t> ids_;
};

}  // namespace plaudit
