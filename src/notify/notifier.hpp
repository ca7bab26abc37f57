#pragma once
// The delivery worker (API.md "Notifications", invariant 10): takes due rows from the outbox
// (sql/outbox.hpp) under a lease and delivers them — an event row is fanned out to its mail
// and webhook rows, a mail row is rendered and sent over SMTP, a webhook row is POSTed
// signed. Delivered rows are marked under the same lease; a failure is retried with
// exponential backoff and jitter, and given up after a bound with its reason kept.
//
// Runs on every instance every `interval` (a due-row check is one indexed read), and is safe to run
// on any number of processes at once: the lease gives each row to one worker at a time; one that
// dies is replaced when its lease passes. Nothing here runs inside a request: a comment's write
// only adds its event row, in its own transaction.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/net.hpp"
#include "common/result.hpp"
#include "common/single_flight.hpp"
#include "fetch/https_client.hpp"
#include "fetch/smtp_client.hpp"
#include "sql/notices.hpp"
#include "sql/outbox.hpp"

namespace plaudit::notify {

struct NotifierOptions {
  std::string mail_from;   // the From header; "" = no mail
  std::string public_url;  // for the links in mails
  std::vector<std::string> webhooks;
  std::string webhook_secret;
  std::chrono::milliseconds interval{5000};
  int64_t lease_ms = 60'000;         // longer than a send can take (SMTP and webhook timeouts)
  int max_attempts = 12;             // then the row is given up (about a day of backoff)
  int64_t backoff_base_ms = 10'000;  // doubled each attempt, ±50% jitter
  int64_t backoff_max_ms = int64_t{4} * 3'600'000;
  int claim_limit = 100;
  int64_t batch_window_ms = 60'000;  // a reader's mails about one thread: at most one a window
};

struct DeliveryCounts {
  int64_t delivered = 0;  // mail accepted by the server, webhook answered 2xx, event fanned out
  int64_t skipped = 0;    // nothing left to say (comment gone, reader unsubscribed)
  int64_t retried = 0;
  int64_t given_up = 0;
};

struct DeliveryReport {
  DeliveryCounts mail;
  DeliveryCounts webhook;
  DeliveryCounts event;
  int64_t lost_lease = 0;  // rows another worker took over meanwhile
  int64_t pruned = 0;      // old delivered or given-up rows forgotten
  bool more = false;       // the pass ended at its bound with rows perhaps still due
  int64_t depth = 0;       // undelivered rows after the pass
  double oldest_seconds = 0;
};

class Notifier {
 public:
  // `smtp` may be null (no mail), `http` null when there are no webhooks.
  Notifier(const net::any_io_executor& ex, sql::OutboxTable& outbox, sql::NoticeBook& book,
           fetch::SmtpClient* smtp, fetch::HttpsClient* http, NotifierOptions options);

  // The clock the worker reads (epoch ms). Tests move it on instead of waiting.
  std::function<int64_t()> clock;
  // Called after each pass (for /metrics), on the worker's executor.
  std::function<void(const DeliveryReport&)> on_report;
  // This worker's name in leases: host, pid and a random part.
  const std::string& owner() const { return owner_; }

  // Passes until nothing is due (bounded); concurrent calls share the pass in progress.
  Awaitable<Result<DeliveryReport>> DeliverNow();
  void Start();
  void Stop();

 private:
  struct Outcome;
  Awaitable<Result<DeliveryReport>> Pass();
  Awaitable<Status> FanOutAll(std::vector<sql::ClaimedNotice> events, DeliveryReport& report);
  Awaitable<Outcome> Deliver(const sql::ClaimedNotice& row);
  Awaitable<Outcome> Mail(const sql::ClaimedNotice& row);
  Awaitable<Outcome> Webhook(const sql::ClaimedNotice& row);
  int64_t Backoff(int attempts);
  std::vector<std::string> Channels() const;
  void Arm(std::chrono::milliseconds after);

  sql::OutboxTable& outbox_;
  sql::NoticeBook& book_;
  fetch::SmtpClient* smtp_;
  fetch::HttpsClient* http_;
  NotifierOptions options_;
  std::string owner_;
  std::string domain_;  // of public_url, for Message-ID
  net::steady_timer timer_;
  bool stopped_ = true;
  int64_t last_prune_ms_ = 0;
  SingleFlight<int, DeliveryReport> pass_;
};

}  // namespace plaudit::notify
