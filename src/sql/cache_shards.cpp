#include "sql/cache_shards.hpp"

namespace plaudit::sql {
namespace {

constexpr std::string_view kRaise =
    "INSERT INTO cache_shards (shard, seq) VALUES ($1, $2) ON CONFLICT (shard) DO UPDATE SET "
    "seq = excluded.seq WHERE cache_shards.seq < excluded.seq";
constexpr std::string_view kRaiseMysql =
    "INSERT INTO cache_shards (shard, seq) VALUES ($1, $2) "
    "ON DUPLICATE KEY UPDATE seq = GREATEST(seq, VALUES(seq))";

}  // namespace

Status RaiseCacheShard(Connection& tx, const CacheStamp& stamp) {
  if (stamp.shard < 0) {
    return {};
  }
  auto r = tx.Query(tx.dialect() == Dialect::kMysql ? kRaiseMysql : kRaise,
                    {int64_t{stamp.shard}, stamp.seq});
  PL_CHECK(r);
  return {};
}

}  // namespace plaudit::sql
