#pragma once
// What an article or comment write records of its Redis stamp (migration 014): see
// redis/cache_marks.hpp for why every such write takes one.
#include <cstdint>
#include <map>

#include "sql/store.hpp"

namespace plaudit::sql {

// The seq Redis handed a cache write before its transaction, for the write's shard.
// shard < 0: none (tools and tests that write SQL alone).
struct CacheStamp {
  int shard = -1;
  int64_t seq = 0;
  // The article whose row the write locks first: the order of a group commit's jobs
  // (Store::RunGrouped), so that a group takes article rows in ascending id, as the like
  // flush does.
  int64_t article_id = 0;
};

// Raises the shard's committed cache seq inside `tx`, the write's own transaction. Run it
// last in the transaction: on PostgreSQL the shard's row stays locked until COMMIT. In a job
// of a group commit it is held (Connection::held_shard_raises) and made after every job.
Status RaiseCacheShard(Connection& tx, const CacheStamp& stamp);

// Shard raises held back until the end of a transaction that writes several articles (a group
// commit, an import): each shard's highest seq, raised after every article's row, in ascending
// shard order. Every such transaction then takes article rows (ascending) before shard rows
// (ascending), and no two can wait on each other in a cycle; raised after each article, a
// group holding article 5 and shard 2 could wait for article 9 while a write holding 9 waits
// for shard 2.
class ShardRaises {
 public:
  void Hold(const CacheStamp& stamp);
  void Merge(const ShardRaises& other);
  bool empty() const { return seqs_.empty(); }
  // Makes them in `tx`, ascending.
  Status Raise(Connection& tx) const;

 private:
  std::map<int, int64_t> seqs_;  // shard → the highest seq held
};

}  // namespace plaudit::sql
