#pragma once
// The outbox of notices (migration 023, API.md "Notifications"): written in the transaction of
// the write that causes a notice, delivered by workers that lease rows.
//
// Why nothing is lost or sent by two live workers at once: a notice exists iff its cause
// committed (same transaction). Claim leases due rows to one owner until lease_until, in one
// statement (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: its one writer); a row whose lease
// passed (its worker died between claim and send) is due again. Delivered and Retry name the
// owner, so a worker whose lease was taken over changes nothing. The price, said plainly: a
// worker that sent and died before Delivered leaves its row to be sent again after the lease —
// at least once on the wire, every copy with the same event id (Message-ID,
// Plaudit-Event-Id), so the set of distinct ids a receiver sees is exact and none is missing.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sql/store.hpp"

namespace plaudit::sql {

struct Notice {
  std::string event_id;   // the cause's identity: "comment.created:<id>" and the like
  std::string channel;    // "mail" or "webhook"
  std::string recipient;  // mail: "u:<user id>" or "g:<guest address id>"; webhook: its URL
  std::string kind;       // reply, article_comment, held; webhook: the event type
  std::string payload;    // JSON the sender renders from
  int64_t due_at_ms = 0;  // mail to one reader is held back to batch a thread's replies
  std::string batch;      // mail: recipient and thread (migration 023); "" for none
};

// A cause (API.md webhook types): written by the comment write's own transaction as one
// 'event' row, which a delivery worker fans out to its recipients (FanOut).
enum class CommentEventType { kCreated, kApproved, kHeld, kDeleted };
std::string_view CommentEventName(CommentEventType t);  // "comment.created", …

struct CommentEvent {
  CommentEventType type = CommentEventType::kCreated;
  int64_t comment_id = 0;
  std::optional<int64_t> answers;  // the comment it replies to, as the writer named it
  std::string reason;              // deleted: "author", "moderator" or "spam"
};

// What the worker's configuration lets a fan-out address.
struct FanOutPlan {
  bool mail = false;  // --smtp is set: mail rows for readers, authors and moderators
  // The --webhook URLs: one row each, the URL its recipient (a URL dropped from the
  // configuration later is given up, never sent to another).
  std::vector<std::string> webhooks;
  int64_t batch_window_ms = 60'000;  // a reader's mails about one thread: at most one a window
};

struct ClaimedNotice {
  int64_t id = 0;
  Notice notice;
  int attempts = 0;  // including this one
};

class OutboxTable {
 public:
  explicit OutboxTable(Store& store) : store_(store) {}

  // In the caller's transaction. A notice of the same (event, channel, recipient) is there
  // once: a retried cause adds nothing.
  static Status Enqueue(Connection& tx, const Notice& n, int64_t now_ms);
  // The event row of `e`, in the comment write's transaction. Its id is unique per cause:
  // "comment.created:<id>", the others with the time of the write as well.
  static Status EnqueueComment(Connection& tx, const CommentEvent& e, int64_t now_ms);

  // Leases up to `limit` due rows (due_at ≤ now, not delivered nor given up, no live lease) to
  // `owner` until now + lease_ms, oldest due first.
  // `channels`: only rows of these ("event", "mail", "webhook"); empty: all.
  Awaitable<Result<std::vector<ClaimedNotice>>> Claim(std::string owner, int64_t now_ms,
                                                      int64_t lease_ms, int limit,
                                                      std::vector<std::string> channels = {});
  // False when `owner` no longer holds the row's lease (another worker took it over).
  Awaitable<Result<bool>> Delivered(int64_t id, std::string owner, int64_t now_ms);
  // Delivered for many rows in one statement; how many were still `owner`'s.
  Awaitable<Result<int64_t>> DeliveredMany(std::vector<int64_t> ids, std::string owner,
                                           int64_t now_ms);
  // Due again at `due_at_ms` (backoff), or given up when `give_up`; the error is kept.
  Awaitable<Result<bool>> Retry(int64_t id, std::string owner, int64_t due_at_ms, bool give_up,
                                std::string error, int64_t now_ms);

  // Turns event row `event` (claimed by `owner`) into its mail and webhook rows and marks it
  // delivered, in one transaction: a fan-out that dies half-way leaves the event due again
  // and no row of it; one that ran is not repeated (its rows' (event, channel, recipient) are
  // unique). False when `owner` lost the lease. Mail rows about one reader's thread join a
  // waiting one (see migration 023's batch).
  Awaitable<Result<bool>> FanOut(ClaimedNotice event, std::string owner, FanOutPlan plan,
                                 int64_t now_ms);
  // The same for many events in one transaction (one commit, one sync, for a pass's events);
  // how many were still `owner`'s. An error fails them all: the caller tries each alone.
  Awaitable<Result<int64_t>> FanOutMany(std::vector<ClaimedNotice> events, std::string owner,
                                        FanOutPlan plan, int64_t now_ms);

  struct Depth {
    int64_t undelivered = 0;
    int64_t oldest_created_ms = 0;  // 0 when none
  };
  Awaitable<Result<Depth>> Measure();
  // Forgets rows delivered before `delivered_before_ms`, rows given up before
  // `failed_before_ms` and reader-notice keys made before `keys_before_ms`; how many rows went.
  Awaitable<Result<int64_t>> Prune(int64_t delivered_before_ms, int64_t failed_before_ms,
                                   int64_t keys_before_ms);

 private:
  Store& store_;
};

}  // namespace plaudit::sql
