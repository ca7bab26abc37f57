#pragma once
// Marks that tell a Redis older than SQL, for the article and comment caches (issue 25,
// item 5; docs/architecture.md, "After Redis comes back older").
//
// The caches are written after SQL commits, so SQL alone cannot date them. Every article or
// comment write therefore first takes a seq from its shard (Mark, on a connection the check
// has seen) and commits it in SQL with the write (cache_shards, migration 014); its Redis step
// then removes its mark (Unmark). A Redis restored from before the seq was taken has a shard
// seq below SQL's: the check finds it and recovers the shard (its comment caches) and every
// article hash. A Redis restored from between the seq and the step, or one whose writer died
// between its commit and its step, still holds the mark: the check repairs that article or
// thread from SQL once the mark is older than any write in progress (Stuck).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redis/client.hpp"

namespace plaudit::redis {

// What a write changes in the cache: an article ('a') or an article's comment thread ('c');
// `id` is the article's either way.
struct CacheTarget {
  char kind = 'a';
  int64_t id = 0;
};

struct CacheMark {
  CacheTarget target;
  int shard = 0;
  int64_t seq = 0;
  std::string member;  // its name in the shard's marks
};

class CacheMarks {
 public:
  explicit CacheMarks(Client& client) : client_(client) {}

  // nullopt, changing nothing: the dataset is not checked (emptied since the last check, or
  // the shard is recovering); check, then mark again.
  Awaitable<Result<std::optional<CacheMark>>> Mark(CacheTarget target);
  // After the write's Redis step landed.
  Awaitable<Status> Unmark(const CacheMark& mark);
  // Marks at least `age_us` old (by Redis's clock), up to 100 per shard, in one round trip.
  Awaitable<Result<std::vector<CacheMark>>> Stuck(int64_t age_us);

 private:
  Client& client_;
};

}  // namespace plaudit::redis
