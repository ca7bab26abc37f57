// A notice put into its reader's mail: a reader's notices about one thread within a window
// (FanOutPlan::batch_window_ms) go out as one mail, and a moderator's held comments as one
// queue mail; a mail that no worker has touched yet takes the notice in, else a new one is due
// a window after the last.
#include <algorithm>
#include <boost/json.hpp>

#include "sql/dialect.hpp"
#include "sql/outbox_fanout_detail.hpp"

namespace plaudit::sql::detail {
namespace {

// A mail to this reader about this thread that no worker has touched and that waits for its
// turn (the reader was mailed about the thread less than a window ago).
constexpr std::string_view kWaiting =
    "SELECT id, payload FROM outbox WHERE batch = $1 AND delivered_at IS NULL "
    "AND failed_at IS NULL AND lease_owner IS NULL AND attempts = 0 AND due_at > $2 "
    "ORDER BY id LIMIT 1";
// On PostgreSQL and MySQL the row is read FOR UPDATE: two workers joining notices to one waiting
// mail take turns, and the second reads the first's items (a plain read would let the second's
// write drop the first's notice). The UPDATE re-checks the row after a racing claim's commit: a
// claimed mail (lease_owner set) is not joined, and the notice gets a mail of its own.
constexpr std::string_view kJoin =
    "UPDATE outbox SET payload = $2 WHERE id = $1 AND lease_owner IS NULL AND attempts = 0";
constexpr std::string_view kLastDue = "SELECT MAX(due_at) FROM outbox WHERE batch = $1";

constexpr size_t kMaxItems = 20;

}  // namespace

// Adds notice `kind` about `comment` to `recipient`'s mail: joins the mail waiting for this
// reader and thread (or, for held, this moderator's queue mail), else a new one, due a window
// after the last one.
Status AddMail(Connection& tx, const std::string& event_id, const Told& t, int64_t comment,
               std::optional<int64_t> thread, const FanOutPlan& plan, int64_t now_ms) {
  const std::string batch =
      t.recipient + (thread ? " a:" + std::to_string(*thread) : std::string(" held"));
  boost::json::object item{{"kind", t.kind}, {"comment", comment}};
  std::string waiting_sql(kWaiting);
  if (tx.dialect() != Dialect::kSqlite) {
    waiting_sql += " FOR UPDATE";
  }
  PL_TRY(auto waiting, tx.Query(waiting_sql, {batch, now_ms}));
  if (!waiting.rows.empty()) {
    boost::system::error_code ec;
    auto payload = boost::json::parse(Text(waiting.rows[0][1]), ec);
    if (!ec && payload.is_object() && payload.as_object().contains("items")) {
      // A mail lists at most kMaxItems comments and counts the rest: a busy thread's author
      // gets one readable mail a minute, and the row stays small however busy it is.
      auto& o = payload.as_object();
      if (o["items"].as_array().size() < kMaxItems) {
        o["items"].as_array().push_back(item);
      } else {
        o["more"] = (o.contains("more") ? o["more"].to_number<int64_t>() : 0) + 1;
      }
      PL_TRY(auto joined,
             tx.Query(kJoin, {Int(waiting.rows[0][0]), boost::json::serialize(payload)}));
      if (joined.affected > 0) {
        return {};
      }
    }
  }
  PL_TRY(auto last, tx.Query(kLastDue, {batch}));
  int64_t due = now_ms;
  if (!last.rows.empty() && !IsNull(last.rows[0][0])) {
    due = std::max(now_ms, Int(last.rows[0][0]) + plan.batch_window_ms);
  }
  boost::json::object payload{{"items", boost::json::array{item}}};
  if (thread) {
    payload["thread"] = *thread;
  }
  auto r =
      InsertOrNothing(tx, kEnqueue,
                      {"mail:" + t.kind + ":" + std::to_string(comment) + ":" + event_id, "mail",
                       t.recipient, "notice", boost::json::serialize(payload), now_ms, due, batch});
  PL_CHECK(r);
  return {};
}

}  // namespace plaudit::sql::detail
