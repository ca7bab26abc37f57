#include "notify/notifier.hpp"

#include <sodium.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/url.hpp>

#include "common/time.hpp"
#include "common/timed_pass.hpp"
#include "common/when_all.hpp"
#include "notify/letters.hpp"
#include "notify/mime.hpp"
#include "notify/signature.hpp"

namespace plaudit::notify {

// What became of one send: delivered (or nothing left to deliver), to be retried, or given up
// for good (a webhook no longer configured).
struct Notifier::Outcome {
  enum Kind { kDone, kSkipped, kRetry, kGiveUp } kind = kDone;
  std::string error;
};

namespace {

constexpr int kMaxRounds = 20;   // claims per pass: a pass ends even while notices keep coming
constexpr size_t kInFlight = 8;  // mails and webhooks sent at once (fetch/ pools have 8 threads)

std::string NewOwner() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(getpid()) + ":" +
         std::to_string(randombytes_uniform(1'000'000'000));
}

std::string HostOf(const std::string& url) {
  auto u = boost::urls::parse_absolute_uri(url);
  if (!u || u->host().empty()) {
    return "plaudit.invalid";
  }
  return std::string(u->host());
}

// A mail row's payload: {"items": [{"kind", "comment"}], "more"?: n}.
struct MailItems {
  std::vector<std::pair<std::string, int64_t>> items;
  int64_t more = 0;  // notices counted beyond the listed ones
};

MailItems Items(const std::string& payload) {
  MailItems out;
  boost::system::error_code ec;
  auto v = boost::json::parse(payload, ec);
  if (ec || !v.is_object()) {
    return out;
  }
  if (const auto* m = v.as_object().if_contains("more"); m != nullptr && m->is_int64()) {
    out.more = m->as_int64();
  }
  const auto* items = v.as_object().if_contains("items");
  if (items == nullptr || !items->is_array()) {
    return out;
  }
  for (const auto& it : items->as_array()) {
    const auto* o = it.if_object();
    if (o == nullptr || !o->contains("kind") || !o->contains("comment")) {
      continue;
    }
    const auto* kind = o->at("kind").if_string();
    const auto* id = o->at("comment").if_int64();
    if (kind != nullptr && id != nullptr) {
      out.items.emplace_back(std::string(*kind), *id);
    }
  }
  return out;
}

bool Wants(const sql::MailRecipient& r, const std::string& kind) {
  if (kind == "held") {
    return r.wants_moderation;
  }
  if (kind == "article_comment") {
    return r.wants_article_comments;
  }
  return r.wants_replies;
}

}  // namespace

Notifier::Notifier(const net::any_io_executor& ex, sql::OutboxTable& outbox, sql::NoticeBook& book,
                   fetch::SmtpClient* smtp, fetch::HttpsClient* http, NotifierOptions options)
    : clock([] { return NowMs(); }),
      outbox_(outbox),
      book_(book),
      smtp_(smtp),
      http_(http),
      options_(std::move(options)),
      owner_(NewOwner()),
      domain_(HostOf(options_.public_url)),
      timer_(ex) {}

Awaitable<Result<DeliveryReport>> Notifier::DeliverNow() {
  std::function<Awaitable<Result<DeliveryReport>>()> pass = [this] { return Pass(); };
  co_return co_await pass_.Do(0, std::move(pass));
}

Awaitable<Result<DeliveryReport>> Notifier::Pass() {
  DeliveryReport report;
  const bool any_channel = !Channels().empty();
  for (int round = 0; any_channel && round < kMaxRounds; ++round) {
    const int64_t claimed_at = clock();
    PL_CO_TRY(auto rows, co_await outbox_.Claim(owner_, claimed_at, options_.lease_ms,
                                                options_.claim_limit, Channels()));
    if (rows.empty()) {
      break;
    }
    std::vector<sql::ClaimedNotice> events;
    std::vector<const sql::ClaimedNotice*> sends;
    for (const sql::ClaimedNotice& row : rows) {
      if (row.notice.channel == "event") {
        events.push_back(row);
      } else {
        sends.push_back(&row);
      }
    }
    PL_CO_CHECK(co_await FanOutAll(std::move(events), report));
    // Sends go out kInFlight at a time (each on a thread of its own, so a chunk takes at most
    // one send's timeout), and a chunk's are marked in one statement. Past half the lease the
    // round stops sending: rows not yet sent are left to their lease's end rather than sent by
    // a worker whose lease may pass meanwhile (which would let another send them too).
    for (size_t at = 0; at < sends.size(); at += kInFlight) {
      if (clock() - claimed_at > options_.lease_ms / 2) {
        spdlog::warn("notices: {} left to a later pass (half the lease has passed)",
                     sends.size() - at);
        break;
      }
      const size_t end = std::min(sends.size(), at + kInFlight);
      std::vector<Awaitable<Outcome>> ops;
      for (size_t k = at; k < end; ++k) {
        ops.push_back(Deliver(*sends[k]));
      }
      std::vector<Outcome> outcomes = co_await WhenAll(std::move(ops));
      std::vector<int64_t> done;
      for (size_t k = at; k < end; ++k) {
        const sql::ClaimedNotice& row = *sends[k];
        const Outcome& o = outcomes[k - at];
        DeliveryCounts& counts = row.notice.channel == "mail" ? report.mail : report.webhook;
        if (o.kind == Outcome::kDone || o.kind == Outcome::kSkipped) {
          done.push_back(row.id);
          ++(o.kind == Outcome::kSkipped ? counts.skipped : counts.delivered);
          continue;
        }
        const bool give_up = o.kind == Outcome::kGiveUp || row.attempts >= options_.max_attempts;
        spdlog::warn("notice {} ({} to {}), attempt {}: {}{}", row.notice.event_id,
                     row.notice.channel, row.notice.recipient, row.attempts, o.error,
                     give_up ? "; given up" : "");
        const int64_t now = clock();
        PL_CO_TRY(bool mine, co_await outbox_.Retry(row.id, owner_, now + Backoff(row.attempts),
                                                    give_up, o.error, now));
        if (!mine) {
          ++report.lost_lease;
        }
        ++(give_up ? counts.given_up : counts.retried);
      }
      const auto sent = static_cast<int64_t>(done.size());
      PL_CO_TRY(int64_t marked, co_await outbox_.DeliveredMany(std::move(done), owner_, clock()));
      report.lost_lease += sent - marked;
    }
    report.more = round + 1 == kMaxRounds;
    if (static_cast<int>(rows.size()) < options_.claim_limit) {
      // Fan-outs add mail and webhook rows due now: one more round sends them.
      bool fanned = false;
      for (const auto& r : rows) {
        fanned = fanned || r.notice.channel == "event";
      }
      if (!fanned) {
        break;
      }
    }
  }
  // Delivered rows are kept a week (for an operator to look into), given-up ones a month, the
  // one-notice-per-comment keys a month (a comment approved again after that may notify
  // again); pruned at most once an hour per worker.
  if (const int64_t now = clock(); now - last_prune_ms_ >= 3'600'000) {
    constexpr int64_t kDay = 86'400'000;
    PL_CO_TRY(auto gone, co_await outbox_.Prune(now - 7 * kDay, now - 30 * kDay, now - 30 * kDay));
    last_prune_ms_ = now;
    report.pruned = gone;
  }
  PL_CO_TRY(auto depth, co_await outbox_.Measure());
  report.depth = depth.undelivered;
  if (depth.oldest_created_ms > 0) {
    report.oldest_seconds =
        static_cast<double>(std::max<int64_t>(0, clock() - depth.oldest_created_ms)) / 1000.0;
  }
  if (on_report) {
    on_report(report);
  }
  co_return report;
}

Awaitable<Status> Notifier::FanOutAll(std::vector<sql::ClaimedNotice> events,
                                      DeliveryReport& report) {
  if (events.empty()) {
    co_return Status{};
  }
  sql::FanOutPlan plan;
  plan.mail = smtp_ != nullptr;
  plan.webhooks = options_.webhooks;
  plan.batch_window_ms = options_.batch_window_ms;
  const auto n = static_cast<int64_t>(events.size());
  auto all = co_await outbox_.FanOutMany(events, owner_, plan, clock());
  if (all) {
    report.event.delivered += *all;
    report.lost_lease += n - *all;
    co_return Status{};
  }
  // The batch failed: each alone, so one event that cannot be fanned out holds up no other.
  spdlog::warn("fanning out {} events together failed ({}); one by one", n, all.error().message);
  for (const sql::ClaimedNotice& e : events) {
    auto one = co_await outbox_.FanOut(e, owner_, plan, clock());
    if (one) {
      ++(*one ? report.event.delivered : report.lost_lease);
      continue;
    }
    const bool give_up = e.attempts >= options_.max_attempts;
    const int64_t now = clock();
    PL_CO_TRY(bool mine, co_await outbox_.Retry(e.id, owner_, now + Backoff(e.attempts), give_up,
                                                one.error().message, now));
    if (!mine) {
      ++report.lost_lease;
    }
    ++(give_up ? report.event.given_up : report.event.retried);
  }
  co_return Status{};
}

Awaitable<Notifier::Outcome> Notifier::Deliver(const sql::ClaimedNotice& row) {
  if (row.notice.channel == "mail") {
    co_return co_await Mail(row);
  }
  if (row.notice.channel == "webhook") {
    co_return co_await Webhook(row);
  }
  co_return Outcome{Outcome::kGiveUp, "unknown channel " + row.notice.channel};
}

Awaitable<Notifier::Outcome> Notifier::Mail(const sql::ClaimedNotice& row) {
  if (smtp_ == nullptr) {
    co_return Outcome{Outcome::kRetry, "no mail server configured (--smtp)"};
  }
  auto who = co_await book_.Recipient(row.notice.recipient);
  if (!who) {
    co_return Outcome{Outcome::kRetry, who.error().message};
  }
  if (!*who) {
    co_return Outcome{Outcome::kSkipped, ""};  // the account is gone
  }
  const sql::MailRecipient& r = **who;
  const bool guest = row.notice.recipient.rfind("g:", 0) == 0;
  Links links{options_.public_url, ""};
  if (!r.unsubscribe_key.empty()) {
    links.unsubscribe =
        options_.public_url + "/api/v1/notifications/unsubscribe?key=" + r.unsubscribe_key;
  }
  Letter letter;
  std::string to = r.email;
  if (row.notice.kind == "verify" || row.notice.kind == "confirm") {
    boost::system::error_code ec;
    auto p = boost::json::parse(row.notice.payload, ec);
    if (ec || !p.is_object() || !p.as_object().contains("token")) {
      co_return Outcome{Outcome::kGiveUp, "unreadable payload"};
    }
    const std::string token(p.as_object().at("token").as_string());
    const std::string address(p.as_object().at("email").as_string());
    // An address changed again (or confirmed meanwhile) is not mailed this older link.
    if (address != r.email || r.verified) {
      co_return Outcome{Outcome::kSkipped, ""};
    }
    to = address;
    letter = ConfirmLetter(r.language,
                           options_.public_url + "/api/v1/notifications/confirm?token=" + token,
                           guest, links);
  } else {
    if (!r.verified || links.unsubscribe.empty()) {
      co_return Outcome{Outcome::kSkipped, ""};
    }
    std::vector<int64_t> ids;
    const MailItems mail_items = Items(row.notice.payload);
    ids.reserve(mail_items.items.size());
    for (const auto& [kind, id] : mail_items.items) {
      ids.push_back(id);
    }
    auto comments = co_await book_.Comments(ids);
    if (!comments) {
      co_return Outcome{Outcome::kRetry, comments.error().message};
    }
    std::vector<NoticeItem> shown;
    std::vector<int64_t> unseen;  // reader notices of comments readers cannot see now
    for (const auto& [kind, id] : mail_items.items) {
      if (!Wants(r, kind)) {
        continue;  // a setting turned off since: not mailed
      }
      if (kind == "held" && !r.moderator) {
        continue;  // no longer a moderator
      }
      bool found = false;
      for (const sql::MailComment& c : *comments) {
        if (c.id != id) {
          continue;
        }
        found = true;
        // Invariant 9: readers hear only of what readers see; moderators of what waits.
        const bool visible = c.status == "approved" && !c.deleted && !c.hidden_by_top;
        if (kind == "held" ? c.status == "pending" && !c.deleted : visible) {
          shown.push_back({kind, c});
        } else if (kind != "held") {
          unseen.push_back(id);
        }
      }
      if (!found && kind != "held") {
        unseen.push_back(id);
      }
    }
    if (!unseen.empty()) {
      auto forgot = co_await book_.ForgetNotices(row.notice.recipient, unseen);
      if (!forgot) {
        co_return Outcome{Outcome::kRetry, forgot.error().message};
      }
    }
    if (shown.empty()) {
      co_return Outcome{Outcome::kSkipped, ""};
    }
    letter = NoticeLetter(r.language, r.name, shown, links, mail_items.more);
  }
  Envelope env{options_.mail_from, to, row.notice.event_id, domain_, links.unsubscribe, clock()};
  fetch::Mail mail{BareAddress(options_.mail_from), to, MimeMessage(env, letter)};
  auto sent = co_await smtp_->Send(std::move(mail));
  if (!sent) {
    co_return Outcome{Outcome::kRetry, sent.error().message};
  }
  co_return Outcome{Outcome::kDone, ""};
}

Awaitable<Notifier::Outcome> Notifier::Webhook(const sql::ClaimedNotice& row) {
  const auto& urls = options_.webhooks;
  if (http_ == nullptr || std::find(urls.begin(), urls.end(), row.notice.recipient) == urls.end()) {
    co_return Outcome{Outcome::kGiveUp, "webhook " + row.notice.recipient + " is not configured"};
  }
  fetch::Request req;
  req.method = "POST";
  req.url = row.notice.recipient;
  req.configured = true;
  req.body = row.notice.payload;
  req.headers = {{"Content-Type", "application/json"},
                 {"Plaudit-Event-Id", row.notice.event_id},
                 {"Plaudit-Signature", SignatureHeader(options_.webhook_secret, req.body)}};
  auto r = co_await http_->Fetch(std::move(req));
  if (!r) {
    co_return Outcome{Outcome::kRetry, r.error().message};
  }
  if (r->status < 200 || r->status > 299) {
    co_return Outcome{Outcome::kRetry, "answered " + std::to_string(r->status)};
  }
  co_return Outcome{Outcome::kDone, ""};
}

std::vector<std::string> Notifier::Channels() const {
  // A worker takes only what it can send; events only when it can send something (all
  // instances are to share one notification configuration: README "Notifications").
  std::vector<std::string> out;
  if (smtp_ != nullptr) {
    out.emplace_back("mail");
  }
  if (http_ != nullptr && !options_.webhooks.empty()) {
    out.emplace_back("webhook");
  }
  if (!out.empty()) {
    out.emplace_back("event");
  }
  return out;
}

int64_t Notifier::Backoff(int attempts) {
  const int shift = std::clamp(attempts - 1, 0, 30);
  const int64_t base = std::min(options_.backoff_max_ms, options_.backoff_base_ms << shift);
  // ±50% jitter, so rows that failed together (a mail server's outage) do not retry together.
  const int64_t jitter = static_cast<int64_t>(randombytes_uniform(1001));  // 0..1000
  return base / 2 + base * jitter / 1000;
}

void Notifier::Start() {
  stopped_ = false;
  Arm(options_.interval);
}

void Notifier::Stop() {
  stopped_ = true;
  timer_.cancel();
}

void Notifier::Arm(std::chrono::milliseconds after) {
  SpawnAfter(timer_, stopped_, after, [this]() -> Awaitable<void> {
    auto r = co_await DeliverNow();
    if (!r) {
      spdlog::warn("notice delivery pass failed: {}", r.error().message);
    }
    // A pass that stopped with notices still due (a burst) goes on at once.
    Arm(r && r->more ? std::chrono::milliseconds(0) : options_.interval);
  });
}

}  // namespace plaudit::notify
