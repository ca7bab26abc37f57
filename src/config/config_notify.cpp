// Notifications (issue 44, API.md "Notifications"): the mail server and the mails' sender and
// links, the delivery worker's timing, and the webhooks.
#include "config/config_detail.hpp"

namespace plaudit::config::detail {
namespace {

// --smtp smtp[s]://[user:pass@]host[:port]
Result<std::string> ParseSmtpUrl(std::string_view text) {
  if (text.empty()) {
    return std::string();
  }
  if (!(text.starts_with("smtp://") || text.starts_with("smtps://")) || text.find('@') == 0) {
    return Fail(ErrorCode::kInvalidArgument,
                "must be smtp://[user:pass@]host[:port] or smtps://...");
  }
  return std::string(text);
}

// --webhook URL: http(s), and short enough for the outbox.
Result<std::string> ParseWebhookUrl(std::string_view u) {
  if (!(u.starts_with("https://") || u.starts_with("http://"))) {
    return Fail(ErrorCode::kInvalidArgument, "must be an http(s) URL");
  }
  // The outbox keeps it as a row's recipient (MySQL: a 512-character column).
  if (u.size() > 500) {
    return Fail(ErrorCode::kInvalidArgument, "must be at most 500 characters");
  }
  return std::string(u);
}

}  // namespace

void AddNotifyOptions(CLI::App& app, Config& c) {
  AddParsed(app, "--smtp", c.smtp, ParseSmtpUrl,
            "mail server for notifications: smtp[s]://user:pass@host:port (STARTTLS when offered)")
      ->envname("PLAUDIT_SMTP");
  app.add_option("--mail-from", c.mail_from, "From: of notification mails")
      ->envname("PLAUDIT_MAIL_FROM");
  app.add_option("--smtp-timeout-ms", c.smtp_timeout_ms,
                 "how long one mail may take to send before it is tried again later")
      ->envname("PLAUDIT_SMTP_TIMEOUT_MS")
      ->check(CLI::Range(100, 600'000))
      ->capture_default_str();
  app.add_option("--notify-interval-ms", c.notify_interval_ms,
                 "how often the delivery worker looks for notices that are due")
      ->envname("PLAUDIT_NOTIFY_INTERVAL_MS")
      ->check(CLI::Range(100, 3'600'000))
      ->capture_default_str();
  app.add_option("--notify-lease-ms", c.notify_lease_ms,
                 "how long a worker holds a notice it is sending before another may take it "
                 "(keep it above --smtp-timeout-ms)")
      ->envname("PLAUDIT_NOTIFY_LEASE_MS")
      ->check(CLI::Range(1'000, 86'400'000))
      ->capture_default_str();
  AddParsed(
      app, "--public-url", c.public_url,
      [](const std::string& text) -> Result<std::string> {
        if (text.empty()) {
          return std::string();
        }
        auto origin = NormaliseOrigin(text);
        if (!origin) {
          return Fail(ErrorCode::kInvalidArgument, "must be an origin: https://host[:port]");
        }
        return *origin;
      },
      "plauditd's origin as readers reach it (links in mails)")
      ->envname("PLAUDIT_PUBLIC_URL");
  AddRepeatable(app, "--webhook", c.webhooks, ParseWebhookUrl,
                "URL that receives every notice as a signed JSON POST (repeatable)")
      ->envname("PLAUDIT_WEBHOOK");
  app.add_option("--webhook-secret", c.webhook_secret,
                 "HMAC-SHA256 key of the Plaudit-Signature header of webhooks")
      ->envname("PLAUDIT_WEBHOOK_SECRET");
}

}  // namespace plaudit::config::detail
