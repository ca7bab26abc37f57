#include "sql/outbox.hpp"

#include <algorithm>
#include <tuple>

#include "sql/dialect.hpp"

namespace plaudit::sql {
namespace {

constexpr std::string_view kEnqueue =
    "INSERT INTO outbox (event_id, channel, recipient, kind, payload, created_at, due_at, batch) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
    "ON CONFLICT (event_id, channel, recipient) DO NOTHING";
// $1 owner, $2 lease end, $3 now, $4 limit.
constexpr std::string_view kDue =
    "SELECT id FROM outbox WHERE delivered_at IS NULL AND failed_at IS NULL AND due_at <= $3 "
    "AND (lease_until IS NULL OR lease_until < $3)";
constexpr std::string_view kAnyDue =
    "SELECT 1 FROM outbox WHERE delivered_at IS NULL AND failed_at IS NULL AND due_at <= $1 "
    "AND (lease_until IS NULL OR lease_until < $1)";
constexpr std::string_view kClaimTail =
    " RETURNING id, event_id, channel, recipient, kind, payload, due_at, attempts";
constexpr std::string_view kDelivered =
    "UPDATE outbox SET delivered_at = $3, lease_owner = NULL, lease_until = NULL "
    "WHERE id = $1 AND lease_owner = $2 AND delivered_at IS NULL";
constexpr std::string_view kRetry =
    "UPDATE outbox SET due_at = $3, lease_owner = NULL, lease_until = NULL, last_error = $4, "
    "failed_at = CASE WHEN $5 = 1 THEN CAST($6 AS BIGINT) ELSE NULL END "
    "WHERE id = $1 AND lease_owner = $2 AND delivered_at IS NULL";
// MySQL casts to SIGNED, not BIGINT.
constexpr std::string_view kRetryMysql =
    "UPDATE outbox SET due_at = $3, lease_owner = NULL, lease_until = NULL, last_error = $4, "
    "failed_at = CASE WHEN $5 = 1 THEN CAST($6 AS SIGNED) ELSE NULL END "
    "WHERE id = $1 AND lease_owner = $2 AND delivered_at IS NULL";
// MySQL claims in three steps in one transaction (it has no UPDATE … RETURNING, and no
// LIMIT in an IN subquery): lock the due rows (skipping those another worker is claiming),
// lease them, read them.
constexpr std::string_view kClaimMysql =
    "UPDATE outbox SET lease_owner = $1, lease_until = $2, attempts = attempts + 1 WHERE id IN ";
constexpr std::string_view kClaimedMysql =
    "SELECT id, event_id, channel, recipient, kind, payload, due_at, attempts FROM outbox "
    "WHERE id IN ";
constexpr std::string_view kMeasure =
    "SELECT COUNT(*), COALESCE(MIN(created_at), 0) FROM outbox "
    "WHERE delivered_at IS NULL AND failed_at IS NULL";

constexpr std::string_view kPruneDelivered =
    "DELETE FROM outbox WHERE delivered_at IS NOT NULL AND delivered_at < $1";
constexpr std::string_view kPruneFailed =
    "DELETE FROM outbox WHERE failed_at IS NOT NULL AND failed_at < $1";
constexpr std::string_view kPruneKeys = "DELETE FROM notice_keys WHERE created_at < $1";

// " AND channel IN ($k, …)" for `channels` (appended to `params`), or "" for all.
std::string ChannelFilter(const std::vector<std::string>& channels, std::vector<Value>& params) {
  if (channels.empty()) {
    return "";
  }
  std::string out = " AND channel IN (";
  for (size_t i = 0; i < channels.size(); ++i) {
    params.emplace_back(channels[i]);
    out += (i > 0 ? ", $" : "$") + std::to_string(params.size());
  }
  return out + ")";
}

std::string ClaimSql(Dialect d, const std::string& filter) {
  std::string due = std::string(kDue) + filter + " ORDER BY due_at, id LIMIT $4";
  // PostgreSQL: rows another worker is claiming right now are skipped, not waited for.
  if (d != Dialect::kSqlite) {
    due += " FOR UPDATE SKIP LOCKED";
  }
  if (d == Dialect::kMysql) {
    return due;
  }
  return "UPDATE outbox SET lease_owner = $1, lease_until = $2, attempts = attempts + 1 "
         "WHERE id IN (" +
         due + ")" + std::string(kClaimTail);
}

// A claimed row: kClaimTail's columns (kClaimedMysql's on MySQL).
ClaimedNotice ClaimedFromRow(const Row& row) {
  ClaimedNotice n;
  n.id = Int(row[0]);
  n.notice =
      Notice{Text(row[1]), Text(row[2]), Text(row[3]), Text(row[4]), Text(row[5]), Int(row[6]), ""};
  n.attempts = static_cast<int>(Int(row[7]));
  return n;
}

}  // namespace

Status OutboxTable::Enqueue(Connection& tx, const Notice& n, int64_t now_ms) {
  auto r = InsertOrNothing(
      tx, kEnqueue,
      {n.event_id, n.channel, n.recipient, n.kind, n.payload, now_ms,
       n.due_at_ms > 0 ? n.due_at_ms : now_ms, n.batch.empty() ? Value{nullptr} : Value{n.batch}});
  PL_CHECK(r);
  return {};
}

Awaitable<Result<std::vector<ClaimedNotice>>> OutboxTable::Claim(
    std::string owner, int64_t now_ms, int64_t lease_ms, int limit,
    std::vector<std::string> channels) {
  std::function<Result<std::vector<ClaimedNotice>>(Connection&)> job =
      [owner = std::move(owner), now_ms, lease_ms, limit,
       channels = std::move(channels)](Connection& c) -> Result<std::vector<ClaimedNotice>> {
    // A read first: an idle outbox costs no write transaction (SQLite's one writer).
    std::vector<Value> any_params{now_ms};
    const std::string any_filter = ChannelFilter(channels, any_params);
    PL_TRY(auto any, c.Query(std::string(kAnyDue) + any_filter + " LIMIT 1", any_params));
    if (any.rows.empty()) {
      return std::vector<ClaimedNotice>{};
    }
    std::vector<Value> params{owner, now_ms + lease_ms, now_ms, int64_t{limit}};
    const std::string filter = ChannelFilter(channels, params);
    std::vector<ClaimedNotice> out;
    if (c.dialect() == Dialect::kMysql) {
      auto st = c.Transaction([&](Connection& tx) -> Status {
        // ClaimSql's locking read of the due rows, on MySQL.
        PL_TRY(auto ids, tx.QueryInts(ClaimSql(tx.dialect(), filter), params));
        if (ids.empty()) {
          return {};
        }
        std::vector<Value> lease{owner, now_ms + lease_ms};
        PL_CHECK(tx.Query(std::string(kClaimMysql) + InList(ids, lease), lease));
        std::vector<Value> read;
        PL_TRY(auto claimed,
               tx.QueryRows(std::string(kClaimedMysql) + InList(ids, read), read, ClaimedFromRow));
        out = std::move(claimed);
        return {};
      });
      PL_CHECK(st);
    } else {
      PL_TRY(auto claimed, c.QueryRows(ClaimSql(c.dialect(), filter), params, ClaimedFromRow));
      out = std::move(claimed);
    }
    // RETURNING gives no order (PostgreSQL's follows its update): oldest due first, as claimed.
    std::sort(out.begin(), out.end(), [](const ClaimedNotice& a, const ClaimedNotice& b) {
      return std::tie(a.notice.due_at_ms, a.id) < std::tie(b.notice.due_at_ms, b.id);
    });
    return out;
  };
  co_return co_await store_.Run<std::vector<ClaimedNotice>>(std::move(job));
}

Awaitable<Result<bool>> OutboxTable::Delivered(int64_t id, std::string owner, int64_t now_ms) {
  std::function<Result<bool>(Connection&)> job = [id, owner = std::move(owner),
                                                  now_ms](Connection& c) -> Result<bool> {
    PL_TRY(auto r, c.Query(kDelivered, {id, owner, now_ms}));
    return r.affected > 0;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<int64_t>> OutboxTable::DeliveredMany(std::vector<int64_t> ids, std::string owner,
                                                      int64_t now_ms) {
  std::function<Result<int64_t>(Connection&)> job = [ids = std::move(ids), owner = std::move(owner),
                                                     now_ms](Connection& c) -> Result<int64_t> {
    if (ids.empty()) {
      return int64_t{0};
    }
    std::vector<Value> params{owner, now_ms};
    std::string q =
        "UPDATE outbox SET delivered_at = $2, lease_owner = NULL, lease_until = NULL "
        "WHERE lease_owner = $1 AND delivered_at IS NULL AND id IN ";
    q += InList(ids, params);
    PL_TRY(auto r, c.Query(q, params));
    return r.affected;
  };
  co_return co_await store_.Run<int64_t>(std::move(job));
}

Awaitable<Result<bool>> OutboxTable::Retry(int64_t id, std::string owner, int64_t due_at_ms,
                                           bool give_up, std::string error, int64_t now_ms) {
  std::function<Result<bool>(Connection&)> job = [id, owner = std::move(owner), due_at_ms, give_up,
                                                  error = std::move(error),
                                                  now_ms](Connection& c) -> Result<bool> {
    auto r = c.Query(c.dialect() == Dialect::kMysql ? kRetryMysql : kRetry,
                     {id, owner, due_at_ms, error, int64_t{give_up ? 1 : 0}, now_ms});
    PL_CHECK(r);
    return r->affected > 0;
  };
  co_return co_await store_.Run<bool>(std::move(job));
}

Awaitable<Result<OutboxTable::Depth>> OutboxTable::Measure() {
  std::function<Result<Depth>(Connection&)> job = [](Connection& c) -> Result<Depth> {
    PL_TRY(auto r, c.Query(kMeasure));
    Depth d;
    if (!r.rows.empty()) {
      d.undelivered = Int(r.rows[0][0]);
      d.oldest_created_ms = Int(r.rows[0][1]);
    }
    return d;
  };
  co_return co_await store_.Run<Depth>(std::move(job));
}

Awaitable<Result<int64_t>> OutboxTable::Prune(int64_t delivered_before_ms, int64_t failed_before_ms,
                                              int64_t keys_before_ms) {
  std::function<Result<int64_t>(Connection&)> job =
      [delivered_before_ms, failed_before_ms, keys_before_ms](Connection& c) -> Result<int64_t> {
    int64_t gone = 0;
    const std::pair<std::string_view, int64_t> steps[] = {{kPruneDelivered, delivered_before_ms},
                                                          {kPruneFailed, failed_before_ms},
                                                          {kPruneKeys, keys_before_ms}};
    for (const auto& [sql, before] : steps) {
      PL_TRY(auto r, c.Query(sql, {before}));
      gone += r.affected;
    }
    return gone;
  };
  co_return co_await store_.Run<int64_t>(std::move(job));
}

}  // namespace plaudit::sql
