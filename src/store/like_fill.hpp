#pragma once
// Filling a target's like records from SQL when Redis lacks them (never loaded, FLUSHALL, a
// restart without data): the protocol that joins the Redis like store and the SQL like table.
// Redis first (the shard's epoch, and for a count the changes not yet in SQL), then SQL, then
// Redis again, which installs nothing if the epoch moved meanwhile (a flush committed and
// cleaned up in between, so SQL's answer may lack changes whose last copy in Redis is gone):
// then both are read again. Fills of the same records share one flight in this process.
#include <cstdint>
#include <string>

#include "common/result.hpp"
#include "common/single_flight.hpp"
#include "model/target.hpp"
#include "redis/like_store.hpp"
#include "sql/likes.hpp"
#include "store/redis_freshness.hpp"

namespace plaudit::store {

class LikeFill {
 public:
  LikeFill(redis::LikeStore& store, sql::LikeTable& table);

  // Fills what `seen` lacked of `t` (the user's records, the count) from SQL; false when SQL
  // knows no such target (nothing is cached then: an unknown id is never cached). A Redis
  // emptied since this connection's check (FLUSHALL) is checked again on the way, which marks
  // it, before the next round.
  Awaitable<Result<bool>> Fill(const model::Target& t, int64_t user_id,
                               const redis::LikeReading& seen);

  // The check of Redis against SQL (flush::RedisCheck), set once by the wiring; none: a fill
  // that finds the dataset unchecked only tries again.
  void SetRedisFreshness(RedisFreshness* freshness) { freshness_ = freshness; }

 private:
  redis::LikeStore& store_;
  sql::LikeTable& table_;
  SingleFlight<std::string, bool> flights_;
  RedisFreshness* freshness_ = nullptr;
};

}  // namespace plaudit::store
