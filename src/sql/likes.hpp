#pragma once
// The likes table (migration 004) and the like counts of their targets.
#include <cstdint>
#include <optional>
#include <vector>

#include "model/target.hpp"
#include "sql/store.hpp"

namespace plaudit::sql {

struct LikeChange {
  char type = 'a';
  int64_t target_id = 0;
  int64_t user_id = 0;
  bool valid = false;
  int64_t seq = 0;
};

// What a count load needs from SQL, read in one snapshot: the stored count (which triggers
// keep equal to the valid rows, migration 007) and which of some users' rows are valid.
struct LikeCountState {
  std::optional<int64_t> count;  // nullopt: no such target
  std::vector<int64_t> liked;    // those of the asked users whose row is valid
};

class LikeTable {
 public:
  explicit LikeTable(Store& store) : store_(store) {}

  // User ids in [lo, hi] whose like of the target is valid, lowest first, at most `limit`.
  Awaitable<Result<std::vector<int64_t>>> Likers(model::Target target, int64_t lo, int64_t hi,
                                                 int64_t limit);
  // The stored like count; nullopt when the target does not exist.
  Awaitable<Result<std::optional<int64_t>>> Count(char type, int64_t target_id);
  // The count and, of `users`, those whose like is valid: one consistent snapshot.
  Awaitable<Result<LikeCountState>> CountState(model::Target target, std::vector<int64_t> users);
  // Writes absolute states in one transaction; a row is replaced only by a newer seq, so
  // replays and reorders are harmless, and the targets' counts follow the rows (triggers).
  // Rows are written in primary-key order, so concurrent writers lock them in one order
  // (no deadlock on PostgreSQL). Returns rows written.
  Awaitable<Result<int64_t>> Apply(std::vector<LikeChange> changes);
  // The highest seq committed for each of the 256 shards (0: none yet): by a flush
  // (like_shards) or by an article or comment write (cache_shards, migration 014).
  Awaitable<Result<std::vector<int64_t>>> ShardSeqs();
  // Recomputes like counts from the rows; returns the targets (type, id) whose count was wrong.
  Awaitable<Result<std::vector<std::pair<char, int64_t>>>> Reconcile();

 private:
  Store& store_;
};

}  // namespace plaudit::sql
