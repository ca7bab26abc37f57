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
// thread from SQL once SQL shows the write committed (the row's cache_seq or thread_seq has
// reached the mark's seq), or once the mark is so old that its write never will.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "redis/client/client.hpp"
#include "redis/shard_set.hpp"

namespace plaudit::redis {

// What a write changes in the cache: an article ('a') or an article's comment thread ('c');
// `id` is the article's either way.
struct CacheTarget {
  char kind = 'a';
  int64_t id = 0;

  // The targets the domain speaks of; 'a'/'c' stay in this store.
  static CacheTarget OfArticle(int64_t id) { return {'a', id}; }
  static CacheTarget OfThread(int64_t article_id) { return {'c', article_id}; }
  bool IsArticle() const { return kind == 'a'; }
};

struct CacheMark {
  CacheTarget target;
  int shard = 0;
  int64_t seq = 0;
  std::string member;  // its name in the shard's marks
  int64_t age_us = 0;  // as Stuck found it: Redis's clock minus the seq (a µs time, or above)
};

class CacheMarks {
 public:
  explicit CacheMarks(Client& client) : client_(client) {}

  // nullopt, changing nothing: the dataset is not checked (emptied since the last check, the
  // shard is recovering, or its seq went below one this process was handed); check, then
  // Vouch, then mark again.
  Awaitable<Result<std::optional<CacheMark>>> Mark(CacheTarget target);
  // After a check: the seqs this process was handed no longer bind (the check recovered
  // whatever was older).
  void Vouch() { std::fill(high_.begin(), high_.end(), 0); }
  // After the write's Redis step landed.
  Awaitable<Status> Unmark(const CacheMark& mark);
  // The marks of `shards`, up to kReadPerShard per shard, in one round trip, with their ages.
  static constexpr size_t kReadPerShard = 100;
  Awaitable<Result<std::vector<CacheMark>>> In(ShardSet shards);
  // The shards Mark was answered on since the last call: a flush pass looks there for marks
  // a write left (its Redis step failed), besides its slow sweep of every shard.
  ShardSet TakeTouched() { return touched_.Take(); }

 private:
  Client& client_;
  std::vector<int64_t> high_ = std::vector<int64_t>(256, 0);  // per shard
  ShardSet touched_;
};

}  // namespace plaudit::redis
