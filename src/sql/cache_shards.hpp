#pragma once
// What an article or comment write records of its Redis stamp (migration 014): see
// redis/cache_marks.hpp for why every such write takes one.
#include <cstdint>

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
// last in the transaction: on PostgreSQL the shard's row stays locked until COMMIT.
Status RaiseCacheShard(Connection& tx, const CacheStamp& stamp);

}  // namespace plaudit::sql
