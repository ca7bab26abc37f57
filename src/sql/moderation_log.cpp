#include "sql/moderation_log.hpp"

namespace plaudit::sql {
namespace {

constexpr std::string_view kInsert =
    "INSERT INTO moderation_log (at, actor_id, action, comment_id, user_id, reason) "
    "VALUES ($1, $2, $3, $4, $5, $6)";
constexpr std::string_view kPage =
    "SELECT id, at, actor_id, action, comment_id, user_id, reason FROM moderation_log "
    "WHERE id < $1 ORDER BY id DESC LIMIT $2";

// kPage's row.
ModerationLogEntry EntryFromRow(const Row& row) {
  ModerationLogEntry e;
  e.id = Int(row[0]);
  e.at_ms = Int(row[1]);
  e.actor_id = OptionalInt(row[2]);
  e.action = Text(row[3]);
  e.comment_id = OptionalInt(row[4]);
  e.user_id = OptionalInt(row[5]);
  e.reason = Text(row[6]);
  return e;
}

}  // namespace

Status AppendModerationLog(Connection& tx, const ModerationLogEntry& e) {
  PL_CHECK(tx.Query(kInsert, {e.at_ms, Nullable(e.actor_id), e.action, Nullable(e.comment_id),
                              Nullable(e.user_id), e.reason}));
  return {};
}

Awaitable<Result<std::vector<ModerationLogEntry>>> ModerationLog::Page(int64_t before_id,
                                                                       int64_t limit) {
  std::function<Result<std::vector<ModerationLogEntry>>(Connection&)> job =
      [before_id, limit](Connection& c) -> Result<std::vector<ModerationLogEntry>> {
    const int64_t below = before_id > 0 ? before_id : INT64_MAX;
    return c.QueryRows(kPage, {below, limit}, EntryFromRow);
  };
  co_return co_await store_.Run<std::vector<ModerationLogEntry>>(std::move(job));
}

}  // namespace plaudit::sql
