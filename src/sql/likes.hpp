#pragma once
// The likes table (migration 004) and the like counts of their targets.
#include <cstdint>
#include <optional>
#include <vector>

#include "sql/store.hpp"

namespace plaudit::sql {

struct LikeChange {
  char type = 'a';
  int64_t target_id = 0;
  int64_t user_id = 0;
  bool valid = false;
  int64_t seq = 0;
};

struct LikeCountChange {
  char type = 'a';
  int64_t target_id = 0;
  int64_t count = 0;
  int64_t seq = 0;
};

class LikeTable {
 public:
  explicit LikeTable(Store& store) : store_(store) {}

  // User ids in [lo, hi] whose like of the target is valid, lowest first, at most `limit`.
  Awaitable<Result<std::vector<int64_t>>> Likers(char type, int64_t target_id, int64_t lo,
                                                 int64_t hi, int64_t limit);
  // The stored like count; nullopt when the target does not exist.
  Awaitable<Result<std::optional<int64_t>>> Count(char type, int64_t target_id);
  // Writes absolute states and counts in one transaction; a row or count is replaced only
  // by a newer seq, so replays and reorders are harmless. Returns rows written.
  Awaitable<Result<int64_t>> Apply(std::vector<LikeChange> changes,
                                   std::vector<LikeCountChange> counts);
  // Recomputes like counts from the rows; returns the targets (type, id) whose count was wrong.
  Awaitable<Result<std::vector<std::pair<char, int64_t>>>> Reconcile();

 private:
  Store& store_;
};

}  // namespace plaudit::sql
