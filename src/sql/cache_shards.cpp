#include "sql/cache_shards.hpp"

namespace plaudit::sql {
namespace {

constexpr std::string_view kRaise =
    "INSERT INTO cache_shards (shard, seq) VALUES ($1, $2) ON CONFLICT (shard) DO UPDATE SET "
    "seq = excluded.seq WHERE cache_shards.seq < excluded.seq";
constexpr std::string_view kRaiseMysql =
    "INSERT INTO cache_shards (shard, seq) VALUES ($1, $2) "
    "ON DUPLICATE KEY UPDATE seq = GREATEST(seq, VALUES(seq))";

Status RaiseNow(Connection& tx, int shard, int64_t seq) {
  auto r = tx.Query(tx.dialect() == Dialect::kMysql ? kRaiseMysql : kRaise, {int64_t{shard}, seq});
  PL_CHECK(r);
  return {};
}

}  // namespace

Status RaiseCacheShard(Connection& tx, const CacheStamp& stamp) {
  if (stamp.shard < 0) {
    return {};
  }
  if (ShardRaises* held = tx.held_shard_raises()) {
    held->Hold(stamp);
    return {};
  }
  return RaiseNow(tx, stamp.shard, stamp.seq);
}

Status LockArticleRows(Connection& tx, const std::vector<int64_t>& ids) {
  if (tx.dialect() == Dialect::kSqlite || ids.size() < 2) {
    return {};
  }
  std::vector<Value> params;
  const std::string sql =
      "SELECT id FROM articles WHERE id IN " + InList(ids, params) + " ORDER BY id FOR UPDATE";
  PL_CHECK(tx.Query(sql, params));
  return {};
}

void ShardRaises::Hold(const CacheStamp& stamp) {
  if (stamp.shard < 0) {
    return;
  }
  auto [it, fresh] = seqs_.emplace(stamp.shard, stamp.seq);
  if (!fresh && it->second < stamp.seq) {
    it->second = stamp.seq;
  }
}

void ShardRaises::Merge(const ShardRaises& other) {
  for (const auto& [shard, seq] : other.seqs_) {
    Hold(CacheStamp{shard, seq, 0});
  }
}

Status ShardRaises::Raise(Connection& tx) const {
  for (const auto& [shard, seq] : seqs_) {
    PL_CHECK(RaiseNow(tx, shard, seq));
  }
  return {};
}

}  // namespace plaudit::sql
