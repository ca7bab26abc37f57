#include "sql/moderation_log.hpp"

namespace plaudit::sql {
namespace {

constexpr std::string_view kInsert =
    "INSERT INTO moderation_log (at, actor_id, action, comment_id, user_id, reason) "
    "VALUES ($1, $2, $3, $4, $5, $6)";
constexpr std::string_view kPage =
    "SELECT id, at, actor_id, action, comment_id, user_id, reason FROM moderation_log "
    "WHERE id < $1 ORDER BY id DESC LIMIT $2";

Value OptionalId(const std::optional<int64_t>& id) { return id ? Value{*id} : Value{nullptr}; }

std::optional<int64_t> OptionalInt(const Value& v) {
  if (IsNull(v)) {
    return std::nullopt;
  }
  return Int(v);
}

}  // namespace

Status AppendModerationLog(Connection& tx, const ModerationLogEntry& e) {
  PL_CHECK(tx.Query(kInsert, {e.at_ms, OptionalId(e.actor_id), e.action, OptionalId(e.comment_id),
                              OptionalId(e.user_id), e.reason}));
  return {};
}

Awaitable<Result<std::vector<ModerationLogEntry>>> ModerationLog::Page(int64_t before_id,
                                                                       int64_t limit) {
  std::function<Result<std::vector<ModerationLogEntry>>(Connection&)> job =
      [before_id, limit](Connection& c) -> Result<std::vector<ModerationLogEntry>> {
    const int64_t below = before_id > 0 ? before_id : INT64_MAX;
    PL_TRY(auto r, c.Query(kPage, {below, limit}));
    std::vector<ModerationLogEntry> out;
    for (const auto& row : r.rows) {
      ModerationLogEntry e;
      e.id = Int(row[0]);
      e.at_ms = Int(row[1]);
      e.actor_id = OptionalInt(row[2]);
      e.action = Text(row[3]);
      e.comment_id = OptionalInt(row[4]);
      e.user_id = OptionalInt(row[5]);
      e.reason = Text(row[6]);
      out.push_back(std::move(e));
    }
    return out;
  };
  co_return co_await store_.Run<std::vector<ModerationLogEntry>>(std::move(job));
}

}  // namespace plaudit::sql
