#include "config/config.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>

namespace plaudit::config {
namespace {

// Adds an option whose text `parse` turns into `out`. CLI11 runs the callback for a flag, a
// --config key and a PLAUDIT_* variable alike; a value `parse` rejects fails app.parse() with
// a message that names the flag.
template <class T, class Parser>
CLI::Option* AddParsed(CLI::App& app, const std::string& flag, T& out, Parser parse,
                       const std::string& help) {
  return app.add_option_function<std::string>(
      flag,
      [&out, flag, parse](const std::string& text) {
        auto value = parse(text);
        if (!value) {
          throw CLI::ValidationError(flag, value.error().message);
        }
        out = *std::move(value);
      },
      help);
}

// --sso ORIGIN=SECRET: a secret of at least 32 bytes (an HS256 key shorter than its hash is
// weaker than the signature it makes, RFC 7518 3.2).
Result<Config::SsoSite> ParseSsoSite(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "expected ORIGIN=SECRET");
  }
  auto origin = NormaliseOrigin(text.substr(0, eq));
  if (!origin) {
    return Fail(ErrorCode::kInvalidArgument, "ORIGIN: " + origin.error().message);
  }
  Config::SsoSite site{std::move(*origin), std::string(text.substr(eq + 1))};
  if (site.secret.size() < 32) {
    return Fail(ErrorCode::kInvalidArgument, "SECRET must be at least 32 bytes");
  }
  return site;
}

bool ProviderName(std::string_view name) {
  if (name.empty() || name.size() > 32) {
    return false;
  }
  for (char ch : name) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-')) {
      return false;
    }
  }
  return true;
}

// CLIENT_ID,CLIENT_SECRET: both non-empty, the id without commas.
Status ParseClient(std::string_view text, Config::OidcProvider& p) {
  const size_t comma = text.find(',');
  if (comma == std::string_view::npos || comma == 0 || comma + 1 == text.size()) {
    return Fail(ErrorCode::kInvalidArgument, "expected CLIENT_ID,CLIENT_SECRET");
  }
  p.client_id = std::string(text.substr(0, comma));
  p.client_secret = std::string(text.substr(comma + 1));
  return {};
}

// --oidc NAME=ISSUER_URL,CLIENT_ID,CLIENT_SECRET
Result<Config::OidcProvider> ParseOidc(std::string_view text) {
  const size_t eq = text.find('=');
  Config::OidcProvider p;
  if (eq == std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "expected NAME=ISSUER_URL,CLIENT_ID,CLIENT_SECRET");
  }
  p.name = std::string(text.substr(0, eq));
  if (!ProviderName(p.name) || p.name == "github" || p.name == "sso") {
    return Fail(ErrorCode::kInvalidArgument,
                "NAME must be 1-32 of a-z, 0-9 and '-' (not github or sso)");
  }
  const std::string_view rest = text.substr(eq + 1);
  const size_t comma = rest.find(',');
  if (comma == std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "expected NAME=ISSUER_URL,CLIENT_ID,CLIENT_SECRET");
  }
  p.issuer = std::string(rest.substr(0, comma));
  if (!(p.issuer.starts_with("https://") || p.issuer.starts_with("http://127.0.0.1") ||
        p.issuer.starts_with("http://localhost"))) {
    return Fail(ErrorCode::kInvalidArgument, "ISSUER_URL must be https (http only on loopback)");
  }
  PL_CHECK(ParseClient(rest.substr(comma + 1), p));
  return p;
}

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

// Checks between settings, once all are known.
Status CheckTogether(const Config& c) {
  if (!c.smtp.empty() && (c.mail_from.empty() || c.public_url.empty())) {
    return Fail(ErrorCode::kInvalidArgument,
                "--smtp: needs --mail-from and --public-url (a mail's links are absolute)");
  }
  if (!c.webhooks.empty() && c.webhook_secret.size() < 16) {
    return Fail(ErrorCode::kInvalidArgument,
                "--webhook: needs --webhook-secret of 16 bytes or more");
  }
  for (const auto& p : c.oidc) {
    for (const auto& other : c.oidc) {
      if (&other != &p && other.name == p.name) {
        return Fail(ErrorCode::kInvalidArgument, "--oidc: " + p.name + " given twice");
      }
    }
  }
  for (const auto& site : c.sso) {
    if (!c.sites.Allows(site.origin)) {
      return Fail(ErrorCode::kInvalidArgument, "--sso: " + site.origin + " is not one of --sites");
    }
    for (const auto& other : c.sso) {
      if (&other != &site && other.origin == site.origin) {
        return Fail(ErrorCode::kInvalidArgument, "--sso: " + site.origin + " given twice");
      }
    }
  }
  if (c.database && c.database->in_memory() && c.sql_pool_size > 1) {
    return Fail(ErrorCode::kInvalidArgument,
                "--database: an in-memory SQLite database needs --sql-pool-size 1");
  }
  return {};
}

}  // namespace

std::optional<Invocation> Parse(int argc, const char* const* argv, int& exit_code) {
  Invocation inv;
  Config& c = inv.config;
  CLI::App app{"plauditd — comments, likes and view counts for blogs and forums"};
  app.set_config("--config", "", "TOML file with the same keys as the long flags");
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.fallthrough();
  app.require_subcommand(0, 1);

  AddParsed(app, "--host", c.host, ParseHost, "listen address (an IP address)")
      ->envname("PLAUDIT_HOST")
      ->default_str(c.host.to_string());
  app.add_option("--port", c.port, "listen port (0 picks a free one)")
      ->envname("PLAUDIT_PORT")
      ->capture_default_str();
  app.add_option("--data-dir", c.data_dir, "where the embedded Redis and SQLite live")
      ->envname("PLAUDIT_DATA_DIR")
      ->capture_default_str();
  AddParsed(app, "--redis", c.redis, EmptyMeansNone(ParseRedisUrl),
            "redis://host:port[/db], unix:///path, redis-cluster://host:port[,host:port...] or "
            "redis-sentinel://host:port[,host:port...]/service; absent: embedded redis-server")
      ->envname("PLAUDIT_REDIS");
  AddParsed(app, "--database", c.database, EmptyMeansNone(ParseDatabaseUrl),
            "sqlite:///path/file.db, postgresql://user:pass@host:port/db or "
            "mysql://user:pass@host:port/db (mariadb:// too)")
      ->envname("PLAUDIT_DATABASE");
  app.add_option("--flush-interval-ms", c.flush_interval_ms, "write-behind period")
      ->envname("PLAUDIT_FLUSH_INTERVAL_MS")
      ->check(CLI::Range(10, 3'600'000))
      ->capture_default_str();
  AddParsed(app, "--bootstrap-admin", c.bootstrap_admin, EmptyMeansNone(ParseCredentials),
            "name:password, created if missing")
      ->envname("PLAUDIT_BOOTSTRAP_ADMIN");
  AddParsed(app, "--log-level", c.log_level, ParseLogLevel, "debug, info, warn, error")
      ->envname("PLAUDIT_LOG_LEVEL")
      ->default_str(std::string(LogLevelName(c.log_level)));
  AddParsed(app, "--rate-limits", c.rate_limits, ParseOnOff, "on or off")
      ->envname("PLAUDIT_RATE_LIMITS")
      ->default_str(c.rate_limits ? "on" : "off");
  app.add_option("--max-body", c.max_body, "request body limit in bytes")
      ->envname("PLAUDIT_MAX_BODY")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--max-connections", c.max_connections,
                 "open client connections at most; at the cap the one waiting longest without "
                 "a request is closed for a newcomer (0: the open-file limit less 256, at most "
                 "10000)")
      ->envname("PLAUDIT_MAX_CONNECTIONS")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000}))
      ->capture_default_str();
  app.add_option("--body-memory-mb", c.body_memory_mb,
                 "MiB of request bodies read at once over all clients; beyond it 503")
      ->envname("PLAUDIT_BODY_MEMORY_MB")
      ->check(CLI::Range(int64_t{1}, int64_t{64} * 1024))
      ->capture_default_str();
  app.add_option("--redis-server-bin", c.redis_server_bin,
                 "redis-server executable for the embedded mode")
      ->envname("PLAUDIT_REDIS_SERVER_BIN")
      ->capture_default_str();
  app.add_option("--redis-wait-replicas", c.redis_wait_replicas,
                 "answer a like only once this many replicas of its Redis primary have it "
                 "(WAIT), else 503; 0: once the primary has it")
      ->envname("PLAUDIT_REDIS_WAIT_REPLICAS")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  app.add_option("--redis-wait-timeout-ms", c.redis_wait_timeout_ms,
                 "how long a like waits for --redis-wait-replicas acknowledgements (it holds "
                 "every command behind it on that Redis connection as long)")
      ->envname("PLAUDIT_REDIS_WAIT_TIMEOUT_MS")
      ->check(CLI::Range(1, 500))
      ->capture_default_str();
  app.add_option("--sql-pool-size", c.sql_pool_size, "SQL connections (one thread each)")
      ->envname("PLAUDIT_SQL_POOL_SIZE")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();

  app.add_option("--session-ttl-s", c.session_ttl_s, "session lifetime, sliding, in seconds")
      ->envname("PLAUDIT_SESSION_TTL_S")
      ->check(CLI::Range(int64_t{1}, int64_t{366} * 24 * 3600))
      ->capture_default_str();
  app.add_option("--session-cache-ms", c.session_cache_ms,
                 "how long a process may reuse a session it read from Redis; 0 = never "
                 "(logout and role changes reach every process at once either way)")
      ->envname("PLAUDIT_SESSION_CACHE_MS")
      ->check(CLI::Range(0, 60'000))
      ->capture_default_str();
  AddParsed(app, "--password-hash", c.password_hash, ParsePasswordCost,
            "Argon2id cost: interactive (64 MiB, ~0.1 s) or minimal (tests only)")
      ->envname("PLAUDIT_PASSWORD_HASH")
      ->default_str(std::string(PasswordCostName(c.password_hash)));
  app.add_option("--password-hash-threads", c.password_hash_threads, "concurrent password hashes")
      ->envname("PLAUDIT_PASSWORD_HASH_THREADS")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--password-hash-queue", c.password_hash_queue,
                 "password hashes waiting or running before logins get 429")
      ->envname("PLAUDIT_PASSWORD_HASH_QUEUE")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--comment-edit-window-s", c.comment_edit_window_s,
                 "seconds after posting during which an author may edit a comment")
      ->envname("PLAUDIT_COMMENT_EDIT_WINDOW_S")
      ->check(CLI::Range(int64_t{0}, int64_t{366} * 24 * 3600))
      ->capture_default_str();
  AddParsed(
      app, "--moderation", c.moderation,
      [](const std::string& text) -> Result<std::string> {
        if (text == "off" || text == "first" || text == "all") {
          return text;
        }
        return Fail(ErrorCode::kInvalidArgument, "must be off, first or all");
      },
      "when comments wait for a moderator: off (never), first (until one of the writer's was "
      "approved) or all")
      ->envname("PLAUDIT_MODERATION")
      ->default_str(c.moderation);
  AddParsed(
      app, "--guests", c.guests,
      [](const std::string& text) -> Result<std::string> {
        if (text == "off" || text == "moderated" || text == "on") {
          return text;
        }
        return Fail(ErrorCode::kInvalidArgument, "must be off, moderated or on");
      },
      "comments without an account: off, moderated (held for a moderator) or on")
      ->envname("PLAUDIT_GUESTS")
      ->default_str(c.guests);
  app.add_option("--max-links", c.max_links, "links a comment may carry before it is held")
      ->envname("PLAUDIT_MAX_LINKS")
      ->check(CLI::Range(int64_t{0}, int64_t{1000}))
      ->capture_default_str();
  app.add_option("--spam-words", c.spam_words,
                 "a file of words, one a line, that hold a comment containing one "
                 "(case-insensitive)")
      ->envname("PLAUDIT_SPAM_WORDS");
  app.add_option("--report-threshold", c.report_threshold,
                 "distinct readers' reports that send an approved comment back to pending; 0: "
                 "reports never hold one")
      ->envname("PLAUDIT_REPORT_THRESHOLD")
      ->check(CLI::Range(int64_t{0}, int64_t{1000}))
      ->capture_default_str();
  app.add_option("--duplicate-window-s", c.duplicate_window_s,
                 "seconds within which the same comment body from the same writer is refused "
                 "(409 duplicate); 0: never")
      ->envname("PLAUDIT_DUPLICATE_WINDOW_S")
      ->check(CLI::Range(int64_t{0}, int64_t{7} * 24 * 3600))
      ->capture_default_str();
  struct NamedLimit {
    const char* flag;
    const char* env;
    RateLimit& limit;
    const char* help;
  };
  for (const NamedLimit& l :
       {NamedLimit{"--limit-login-user", "PLAUDIT_LIMIT_LOGIN_USER", c.limit_login_user,
                   "failed logins per username"},
        NamedLimit{"--limit-login-address", "PLAUDIT_LIMIT_LOGIN_ADDRESS", c.limit_login_address,
                   "failed logins per client address"},
        NamedLimit{"--limit-signup-address", "PLAUDIT_LIMIT_SIGNUP_ADDRESS", c.limit_signup_address,
                   "accounts created per client address"},
        NamedLimit{"--limit-writes-user", "PLAUDIT_LIMIT_WRITES_USER", c.limit_writes_user,
                   "writes per user"},
        NamedLimit{"--limit-requests-address", "PLAUDIT_LIMIT_REQUESTS_ADDRESS",
                   c.limit_requests_address, "requests per client address"},
        NamedLimit{"--limit-pages-user", "PLAUDIT_LIMIT_PAGES_USER", c.limit_pages_user,
                   "page threads created per user"},
        NamedLimit{"--limit-pages-address", "PLAUDIT_LIMIT_PAGES_ADDRESS", c.limit_pages_address,
                   "page threads created per client address"},
        NamedLimit{"--limit-new-writer", "PLAUDIT_LIMIT_NEW_WRITER", c.limit_new_writer,
                   "comments of an account younger than the period"},
        NamedLimit{"--limit-guest-address", "PLAUDIT_LIMIT_GUEST_ADDRESS", c.limit_guest_address,
                   "guest comments per client address"}}) {
    AddParsed(app, l.flag, l.limit, ParseRateLimit, std::string(l.help) + ": COUNT/PERIOD or off")
        ->envname(l.env)
        ->default_str(FormatRateLimit(l.limit));
  }

  AddParsed(app, "--metrics-allow", c.metrics_allow, AddressSet::Parse,
            "who may read /metrics and /readyz: comma-separated CIDRs or addresses; "
            "requests that came through a proxy are refused whatever their address")
      ->envname("PLAUDIT_METRICS_ALLOW")
      ->default_str(c.metrics_allow.ToString());
  app.add_option("--metrics-token", c.metrics_token,
                 "when set, /metrics and /readyz also need `Authorization: Bearer <token>` "
                 "(for a scraper behind a proxy on the same host)")
      ->envname("PLAUDIT_METRICS_TOKEN");

  AddParsed(app, "--sites", c.sites, SiteList::Parse,
            "origins that may embed Plaudit, comma-separated (https://blog.example,...): "
            "CORS and page threads")
      ->envname("PLAUDIT_SITES");
  app.add_option_function<std::vector<std::string>>(
         "--sso",
         [&c](const std::vector<std::string>& items) {
           for (const auto& item : items) {
             auto site = ParseSsoSite(item);
             if (!site) {
               throw CLI::ValidationError("--sso", site.error().message);
             }
             c.sso.push_back(std::move(*site));
           }
         },
         "site sign-in: ORIGIN=SECRET (repeatable; ORIGIN one of --sites, SECRET its HS256 key "
         "of 32 bytes or more)")
      ->envname("PLAUDIT_SSO");
  app.add_option_function<std::vector<std::string>>(
         "--oidc",
         [&c](const std::vector<std::string>& items) {
           for (const auto& item : items) {
             auto p = ParseOidc(item);
             if (!p) {
               throw CLI::ValidationError("--oidc", p.error().message);
             }
             c.oidc.push_back(std::move(*p));
           }
         },
         "OpenID Connect sign-in: NAME=ISSUER_URL,CLIENT_ID,CLIENT_SECRET (repeatable); register "
         "<plauditd origin>/api/v1/auth/NAME/callback as its redirect URI")
      ->envname("PLAUDIT_OIDC");
  app.add_option_function<std::string>(
         "--github",
         [&c](const std::string& text) {
           Config::OidcProvider p;
           p.name = "github";
           if (auto st = ParseClient(text, p); !st) {
             throw CLI::ValidationError("--github", st.error().message);
           }
           c.github = std::move(p);
         },
         "GitHub sign-in: CLIENT_ID,CLIENT_SECRET of an OAuth app whose callback URL is "
         "<plauditd origin>/api/v1/auth/github/callback")
      ->envname("PLAUDIT_GITHUB");
  app.add_option("--github-url", c.github_url, "GitHub's web origin (GitHub Enterprise: yours)")
      ->envname("PLAUDIT_GITHUB_URL")
      ->capture_default_str();
  app.add_option("--github-api-url", c.github_api_url, "GitHub's API origin")
      ->envname("PLAUDIT_GITHUB_API_URL")
      ->capture_default_str();
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
  app.add_option_function<std::vector<std::string>>(
         "--webhook",
         [&c](const std::vector<std::string>& urls) {
           for (const auto& u : urls) {
             if (!(u.starts_with("https://") || u.starts_with("http://"))) {
               throw CLI::ValidationError("--webhook", "must be an http(s) URL");
             }
             // The outbox keeps it as a row's recipient (MySQL: a 512-character column).
             if (u.size() > 500) {
               throw CLI::ValidationError("--webhook", "must be at most 500 characters");
             }
             c.webhooks.push_back(u);
           }
         },
         "URL that receives every notice as a signed JSON POST (repeatable)")
      ->envname("PLAUDIT_WEBHOOK");
  app.add_option("--webhook-secret", c.webhook_secret,
                 "HMAC-SHA256 key of the Plaudit-Signature header of webhooks")
      ->envname("PLAUDIT_WEBHOOK_SECRET");
  AddParsed(app, "--trusted-proxies", c.trusted_proxies, AddressSet::Parse,
            "proxies whose X-Forwarded-For/Forwarded/X-Forwarded-Proto are believed: "
            "comma-separated CIDRs or addresses (none by default)")
      ->envname("PLAUDIT_TRUSTED_PROXIES");
  AddParsed(app, "--proxy-header", c.proxy_forwarded, ParseProxyHeader,
            "which headers the trusted proxies write: x-forwarded (X-Forwarded-For/-Proto/-Host) "
            "or forwarded (RFC 7239); the other family is ignored")
      ->envname("PLAUDIT_PROXY_HEADER")
      ->default_str("x-forwarded");
  AddParsed(app, "--cookie-secure", c.cookie_secure, ParseOnOff,
            "on: the session cookie always carries Secure (off: only over HTTPS)")
      ->envname("PLAUDIT_COOKIE_SECURE")
      ->default_str("off");

  app.add_option("--page-cache-mb", c.page_cache_mb,
                 "MiB of rendered comment pages and article lists kept in memory (0: none)")
      ->envname("PLAUDIT_PAGE_CACHE_MB")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 20))
      ->capture_default_str();
  app.add_option("--list-views-max-age-ms", c.list_views_max_age_ms,
                 "ms the view counts of a kept article list page may lag (0: never)")
      ->envname("PLAUDIT_LIST_VIEWS_MAX_AGE_MS")
      ->check(CLI::Range(int64_t{0}, int64_t{3'600'000}))
      ->capture_default_str();
  app.add_option("--shared-max-age-s", c.shared_max_age_s,
                 "seconds a CDN may serve a public comment page without asking (s-maxage)")
      ->envname("PLAUDIT_SHARED_MAX_AGE_S")
      ->check(CLI::Range(int64_t{0}, int64_t{86400}))
      ->capture_default_str();
  app.add_option("--stale-while-revalidate-s", c.stale_while_revalidate_s,
                 "seconds a CDN may serve a stale public page while it revalidates")
      ->envname("PLAUDIT_STALE_WHILE_REVALIDATE_S")
      ->check(CLI::Range(int64_t{0}, int64_t{86400}))
      ->capture_default_str();

  auto* serve = app.add_subcommand("serve", "run the server (the default)");
  auto* migrate = app.add_subcommand("migrate", "apply database migrations and exit");
  auto* flush = app.add_subcommand("flush", "run one write-behind pass and exit");
  auto* notify = app.add_subcommand("notify", "deliver the notices that are due and exit");
  auto* rebuild = app.add_subcommand("rebuild-cache", "reload Redis from SQL and exit");
  auto* user = app.add_subcommand("user", "manage users");
  user->require_subcommand(1);
  auto* user_add = user->add_subcommand("add", "create a user; the password is read from stdin");
  user_add->add_option("name", inv.user_name, "username")->required();
  user_add->add_option("--role", inv.user_role, "user, author, moderator or admin")
      ->check(CLI::IsMember({"user", "author", "moderator", "admin"}))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help (and --help-all) come here too, with exit code 0.
    const bool help = e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success);
    exit_code = help ? app.exit(e) : ReportBadValue(e.what());
    return std::nullopt;
  }
  if (auto st = CheckTogether(c); !st) {
    exit_code = ReportBadValue(st.error().message);
    return std::nullopt;
  }
  if (migrate->parsed()) {
    inv.command = Command::kMigrate;
  }
  if (flush->parsed()) {
    inv.command = Command::kFlush;
  }
  if (notify->parsed()) {
    inv.command = Command::kNotify;
  }
  if (rebuild->parsed()) {
    inv.command = Command::kRebuildCache;
  }
  if (user_add->parsed()) {
    inv.command = Command::kUserAdd;
  }
  (void)serve;
  exit_code = 0;
  return inv;
}

int ReportBadValue(std::string_view message) {
  // One line whatever the value held (a newline in a TOML string, say).
  std::string line(message);
  for (char& ch : line) {
    if (ch == '\n' || ch == '\r') {
      ch = ' ';
    }
  }
  std::cerr << "plauditd: " << line << '\n';
  return kBadValueExitCode;
}

DatabaseUrl DefaultDatabaseUrl(const Config& config) {
  std::filesystem::path p = std::filesystem::absolute(config.data_dir) / "plaudit.db";
  return DatabaseUrl{Dialect::kSqlite, p.lexically_normal().string()};
}

}  // namespace plaudit::config
