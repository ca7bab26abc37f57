#pragma once
// What an article or comment write records of its Redis stamp (migration 014): see
// redis/cache_marks.hpp for why every such write takes one.
#include <cstdint>
#include <map>
#include <vector>

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
// of a group commit it is held (Connection::held_shard_raises) and made after every job: a
// job's raises are kept when the job's own savepoint commits, so a job must not raise inside
// an inner savepoint it rolls back while going on.
Status RaiseCacheShard(Connection& tx, const CacheStamp& stamp);

// The rows of articles `ids` (ascending, distinct) locked in that order, for a group commit to
// take before its first job (Store::SetGroupLocks): a group's jobs lock their article and then
// rows under it (a reply count's comment), and the like flush locks its articles and then its
// comments; a group that took article 5, then a comment of 5, then waited for article 9 could
// wait in a circle with a flush holding 9 and wanting that comment. PostgreSQL and MySQL:
// SELECT … ORDER BY id FOR UPDATE; SQLite (one writer) and a single article: nothing to do.
Status LockArticleRows(Connection& tx, const std::vector<int64_t>& ids);

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
