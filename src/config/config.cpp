#include "config/config.hpp"

#include <filesystem>

#include <CLI/CLI.hpp>

namespace plaudit::config {

std::optional<Invocation> Parse(int argc, const char* const* argv, int& exit_code) {
  Invocation inv;
  Config& c = inv.config;
  CLI::App app{"plauditd — comments, likes and view counts for blogs and forums"};
  app.set_config("--config", "", "TOML file with the same keys as the long flags");
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.fallthrough();
  app.require_subcommand(0, 1);

  app.add_option("--host", c.host, "listen address")->envname("PLAUDIT_HOST")->capture_default_str();
  app.add_option("--port", c.port, "listen port (0 picks a free one)")
      ->envname("PLAUDIT_PORT")
      ->capture_default_str();
  app.add_option("--data-dir", c.data_dir, "where the embedded Redis and SQLite live")
      ->envname("PLAUDIT_DATA_DIR")
      ->capture_default_str();
  app.add_option("--redis", c.redis_url,
                 "redis://host:port[/db] or unix:///path; absent: embedded redis-server")
      ->envname("PLAUDIT_REDIS");
  app.add_option("--database", c.database_url,
                 "sqlite:///path/file.db or postgresql://user:pass@host:port/db")
      ->envname("PLAUDIT_DATABASE");
  app.add_option("--flush-interval-ms", c.flush_interval_ms, "write-behind period")
      ->envname("PLAUDIT_FLUSH_INTERVAL_MS")
      ->check(CLI::Range(10, 3'600'000))
      ->capture_default_str();
  app.add_option("--bootstrap-admin", c.bootstrap_admin, "name:password, created if missing")
      ->envname("PLAUDIT_BOOTSTRAP_ADMIN");
  app.add_option("--log-level", c.log_level, "debug, info, warn, error")
      ->envname("PLAUDIT_LOG_LEVEL")
      ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
      ->capture_default_str();
  std::string rate_limits = "on";
  app.add_option("--rate-limits", rate_limits, "on or off")
      ->envname("PLAUDIT_RATE_LIMITS")
      ->check(CLI::IsMember({"on", "off"}))
      ->capture_default_str();
  app.add_option("--max-body", c.max_body, "request body limit in bytes")
      ->envname("PLAUDIT_MAX_BODY")
      ->check(CLI::Range(size_t{1}, size_t{1} << 30))
      ->capture_default_str();
  app.add_option("--redis-server-bin", c.redis_server_bin,
                 "redis-server executable for the embedded mode")
      ->envname("PLAUDIT_REDIS_SERVER_BIN")
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
  app.add_option("--password-hash", c.password_hash,
                 "Argon2id cost: interactive (64 MiB, ~0.1 s) or minimal (tests only)")
      ->envname("PLAUDIT_PASSWORD_HASH")
      ->check(CLI::IsMember({"interactive", "minimal"}))
      ->capture_default_str();
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
  app.add_option("--limit-login-user", c.limit_login_user, "failed logins per username")
      ->envname("PLAUDIT_LIMIT_LOGIN_USER")
      ->capture_default_str();
  app.add_option("--limit-login-address", c.limit_login_address,
                 "failed logins per client address")
      ->envname("PLAUDIT_LIMIT_LOGIN_ADDRESS")
      ->capture_default_str();
  app.add_option("--limit-writes-user", c.limit_writes_user, "writes per user")
      ->envname("PLAUDIT_LIMIT_WRITES_USER")
      ->capture_default_str();
  app.add_option("--limit-requests-address", c.limit_requests_address,
                 "requests per client address")
      ->envname("PLAUDIT_LIMIT_REQUESTS_ADDRESS")
      ->capture_default_str();

  app.add_option("--metrics-allow", c.metrics_allow,
                 "who may read /metrics and /readyz: comma-separated CIDRs or addresses; "
                 "requests that came through a proxy are refused whatever their address")
      ->envname("PLAUDIT_METRICS_ALLOW")
      ->capture_default_str();
  app.add_option("--metrics-token", c.metrics_token,
                 "when set, /metrics and /readyz also need `Authorization: Bearer <token>` "
                 "(for a scraper behind a proxy on the same host)")
      ->envname("PLAUDIT_METRICS_TOKEN");

  auto* serve = app.add_subcommand("serve", "run the server (the default)");
  auto* migrate = app.add_subcommand("migrate", "apply database migrations and exit");
  auto* flush = app.add_subcommand("flush", "run one write-behind pass and exit");
  auto* rebuild = app.add_subcommand("rebuild-cache", "reload Redis from SQL and exit");
  auto* user = app.add_subcommand("user", "manage users");
  user->require_subcommand(1);
  auto* user_add = user->add_subcommand("add", "create a user; the password is read from stdin");
  user_add->add_option("name", inv.user_name, "username")->required();
  user_add->add_option("--role", inv.user_role, "user, author or admin")
      ->check(CLI::IsMember({"user", "author", "admin"}))
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    exit_code = app.exit(e);
    return std::nullopt;
  }
  c.rate_limits = rate_limits == "on";
  if (migrate->parsed()) inv.command = Command::kMigrate;
  if (flush->parsed()) inv.command = Command::kFlush;
  if (rebuild->parsed()) inv.command = Command::kRebuildCache;
  if (user_add->parsed()) inv.command = Command::kUserAdd;
  (void)serve;
  exit_code = 0;
  return inv;
}

std::string DefaultDatabaseUrl(const Config& config) {
  std::filesystem::path p = std::filesystem::absolute(config.data_dir) / "plaudit.db";
  return "sqlite://" + p.lexically_normal().string();
}

}  // namespace plaudit::config
