#pragma once
// plauditd's settings (API.md "Running plauditd"), typed. Each comes from, in order of
// precedence: the command-line flag, the TOML file given with --config, the PLAUDIT_*
// environment variable, the default. Every value is parsed and checked here, before anything
// starts: a bad value, an unknown flag or an unknown file key stops plauditd with exit code 2
// and one line on stderr naming the flag, with no data dir created, no migration run and no
// Redis started. The layers below take the parsed values and never parse text again.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/address_set.hpp"
#include "common/database_url.hpp"
#include "common/rate_limit.hpp"
#include "common/redis_endpoint.hpp"
#include "common/web_origin.hpp"
#include "config/values.hpp"

namespace plaudit::config {

struct Config {
  boost::asio::ip::address host = boost::asio::ip::address_v4::loopback();
  uint16_t port = 8080;
  std::string data_dir = "./var";
  std::optional<RedisEndpoint> redis;   // none: start an embedded redis-server child
  std::optional<DatabaseUrl> database;  // none: SQLite at <data_dir>/plaudit.db
  int flush_interval_ms = 1000;
  int search_interval_ms = 1000;               // how often the search index follows the change feed
  std::optional<Credentials> bootstrap_admin;  // an admin created at start-up if missing
  spdlog::level::level_enum log_level = spdlog::level::info;
  bool rate_limits = true;  // false: every rate limit is off
  size_t max_body = 1 << 20;
  // Open client connections at most; 0: the open-file limit (raised to its hard limit at
  // start) less 256 for Redis, SQL and files, at most 10,000 (http/server.hpp).
  int64_t max_connections = 0;
  int64_t body_memory_mb = 32;  // bytes of request bodies being read at once, all clients
  // Requests handled at once, at most; beyond it 503 + Retry-After at once (0: no bound).
  // High enough that a flood of cheap requests is never shed (shedding one costs about half
  // of serving it: bench/overload.py), low enough to bound handlers piled up on a slow Redis
  // or database (docs/reliability.md "Overload").
  int64_t max_in_flight = 4096;
  // Live-update streams (render/live_streams.hpp): open at most, and from one client address.
  int64_t live_streams = 5000;
  int64_t live_streams_per_address = 8;
  std::string redis_server_bin = "redis-server";  // for embedded mode
  // A like is answered only once this many replicas of its Redis primary acknowledged it
  // (WAIT after the script), else 503 after redis_wait_timeout_ms; 0: once the primary has it.
  int redis_wait_replicas = 0;
  int redis_wait_timeout_ms = 250;
  int sql_pool_size = 2;
  int64_t session_ttl_s = int64_t{30} * 24 * 3600;  // sliding
  // How long a session read from Redis may be reused by this process (redis/session_cache.hpp).
  int session_cache_ms = 1000;
  PasswordCost password_hash = PasswordCost::kInteractive;
  int password_hash_threads = 2;  // concurrent hashes (each 64 MiB at interactive)
  int password_hash_queue = 64;   // waiting + running; beyond it logins get 429
  int64_t comment_edit_window_s = int64_t{15} * 60;  // how long an author may edit a comment
  // Moderation (API.md "Moderation"): when comments wait for a moderator (off, first, all),
  // the spam signals' settings, and the reports that hold an approved comment.
  std::string moderation = "off";
  int64_t max_links = 3;   // links a comment may carry before it is held
  std::string spam_words;  // a file of words (one a line) that hold a comment; empty: none
  int64_t report_threshold = 3;
  // The same body from the same writer within this is 409 duplicate; 0 (or --rate-limits
  // off): never.
  int64_t duplicate_window_s = 600;
  // Guests (API.md "Guests and sign-in from elsewhere"): whether a comment may come without a
  // session (off, moderated: held for a moderator, on).
  std::string guests = "off";
  // Whether images in a comment's Markdown are shown (else their alt text); applies to what is
  // written from then on (API.md "Comment text").
  bool comment_images = false;
  // Site sign-in (--sso ORIGIN=SECRET, repeatable): the host site at ORIGIN (one of --sites)
  // signs HS256 tokens with SECRET (API.md "Guests and sign-in from elsewhere").
  struct SsoSite {
    std::string origin;  // normalised (NormaliseOrigin)
    std::string secret;
  };
  std::vector<SsoSite> sso;
  // OpenID Connect providers (--oidc NAME=ISSUER_URL,CLIENT_ID,CLIENT_SECRET, repeatable) and
  // GitHub (--github CLIENT_ID,CLIENT_SECRET; --github-url/--github-api-url for GitHub
  // Enterprise): readers sign in there and come back signed in here.
  struct OidcProvider {
    std::string name;    // [a-z0-9-]{1,32}: the path segment of /api/v1/auth/{name}/...
    std::string issuer;  // https (or http on loopback), as its discovery document says
    std::string client_id;
    std::string client_secret;
  };
  std::vector<OidcProvider> oidc;
  std::optional<OidcProvider> github;  // name "github"; issuer unused
  std::string github_url = "https://github.com";
  std::string github_api_url = "https://api.github.com";
  // Rate limits, "COUNT/PERIOD" (PERIOD: 500ms, 90s, 15m, 2h) or "off" (a disabled RateLimit).
  RateLimit limit_login_user{10, int64_t{15} * 60'000};     // failed logins per username
  RateLimit limit_login_address{50, int64_t{15} * 60'000};  // failed logins per client address
  RateLimit limit_signup_address{5, int64_t{60} * 60'000};  // accounts created per client address
  RateLimit limit_writes_user{120, 60'000};                 // writes per user
  RateLimit limit_requests_address{1200, 60'000};           // requests per client address
  RateLimit limit_pages_user{20, 3'600'000};                // page threads created per user
  RateLimit limit_pages_address{60, 3'600'000};  // page threads created per client address
  // Comments of an account younger than the period (moderators and admins aside).
  RateLimit limit_new_writer{3, int64_t{10} * 60'000};
  RateLimit limit_guest_address{10, int64_t{10} * 60'000};  // guest comments per client address
  // Who may read GET /metrics and /readyz (api/ops.hpp).
  AddressSet metrics_allow = *AddressSet::Parse("127.0.0.0/8,::1/128");
  std::string metrics_token;  // when set, /metrics and /readyz also need it as a bearer token
  // Notifications (issue 44, API.md "Notifications"). Mail needs --smtp, --mail-from and
  // --public-url (the links in a mail are absolute); webhooks need --webhook-secret.
  std::string smtp;                    // smtp[s]://user:pass@host:port; "" = no mail
  std::string mail_from;               // "Plaudit <comments@blog.example>"
  int64_t smtp_timeout_ms = 30'000;    // one send, connect to last reply
  int64_t notify_interval_ms = 5'000;  // the delivery worker's due check
  int64_t notify_lease_ms = 60'000;    // a claimed notice's lease: longer than any send
  std::string public_url;  // plauditd's origin as readers reach it: https://comments.example
  std::vector<std::string> webhooks;  // http(s) URLs, from configuration only
  std::string webhook_secret;
  // API.md "Embedding on other sites": the origins that may embed Plaudit (CORS, page threads).
  SiteList sites;
  // Proxies whose X-Forwarded-For / Forwarded (and X-Forwarded-Proto) are believed: the
  // client address and scheme of a request they pass on. Empty: every header is ignored.
  AddressSet trusted_proxies;
  // Which headers those proxies write: X-Forwarded-* (false, the default) or RFC 7239
  // Forwarded (true); the other family is ignored (--proxy-header).
  bool proxy_forwarded = false;
  bool cookie_secure = false;  // the session cookie always gets Secure (else only over HTTPS)
  // Rendered comment pages and article lists kept in this process (render/page_cache.hpp); 0
  // turns it off.
  int64_t page_cache_mb = 64;
  // How old the view counts of a kept article list page may be when it is served again (every
  // other count and field is current: render/article_lists.cpp). 0: current too.
  int64_t list_views_max_age_ms = 1000;
  // Cache-Control of public pages: how long a shared cache (CDN) may serve one without asking
  // (s-maxage), and serve it stale while it asks (stale-while-revalidate). 0 and 0: no-cache.
  int64_t shared_max_age_s = 1;
  int64_t stale_while_revalidate_s = 10;
};

enum class Command {
  kServe,
  kMigrate,
  kFlush,
  kNotify,
  kRebuildCache,
  kRebuildSearch,
  kUserAdd,
  kUserPassword,
  kExport,
  kImport,
};

struct Invocation {
  Config config;
  Command command = Command::kServe;
  std::string user_name;  // user add NAME, user password NAME
  std::string user_role = "user";
  std::string export_out;              // export --out FILE ("": standard output)
  bool export_secrets = false;         // export --with-secrets
  std::string import_file;             // import FILE
  std::string import_from;             // import --from SYSTEM ("": Plaudit's own export)
  std::string import_site;             // import --site ORIGIN
  bool import_dry_run = false;         // import --dry-run
  bool import_users_by_email = false;  // import --users-by-email
};

// The exit code of a bad value, unknown flag or unknown key.
inline constexpr int kBadValueExitCode = 2;

// Parses argv (and --config, and the environment). On --help, returns nullopt with
// `exit_code` 0 and the help printed; on a bad value, nullopt with kBadValueExitCode and
// the message printed by ReportBadValue.
std::optional<Invocation> Parse(int argc, const char* const* argv, int& exit_code);

// Prints `plauditd: <message>` as one line on stderr; returns kBadValueExitCode. For the
// checks made after Parse that still come before anything starts (app::CheckInvocation).
int ReportBadValue(std::string_view message);

// The SQLite database used when no --database is given.
DatabaseUrl DefaultDatabaseUrl(const Config& config);

}  // namespace plaudit::config
