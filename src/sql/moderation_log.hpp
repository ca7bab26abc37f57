#pragma once
// The moderation log (migration 020): a row per moderator action and per hold the server
// decided, written by the transaction of the action itself (sql/comment_moderation.cpp,
// sql/users.cpp), so the log holds exactly what was done: a rolled-back action leaves no row, a
// committed one always has its row.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sql/store.hpp"

namespace plaudit::sql {

struct ModerationLogEntry {
  int64_t id = 0;  // set by the insert
  int64_t at_ms = 0;
  std::optional<int64_t> actor_id;  // nullopt: the server (its spam rules, reports)
  std::string action;               // approve, spam, delete, restore, held, ban, unban
  std::optional<int64_t> comment_id;
  std::optional<int64_t> user_id;
  std::string reason;
};

// Inserts `e` on `tx` (inside the action's transaction).
Status AppendModerationLog(Connection& tx, const ModerationLogEntry& e);

class ModerationLog {
 public:
  explicit ModerationLog(Store& store) : store_(store) {}

  // Newest first: at most `limit` entries with id < `before_id` (0: from the newest).
  Awaitable<Result<std::vector<ModerationLogEntry>>> Page(int64_t before_id, int64_t limit);

 private:
  Store& store_;
};

}  // namespace plaudit::sql
