#pragma once
// plauditd's settings (API.md "Running plauditd"). Each comes from, in order of precedence:
// the command-line flag, the TOML file given with --config, the PLAUDIT_* environment
// variable, the default. Unknown flags or file keys fail start-up.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace plaudit::config {

struct Config {
  std::string host = "127.0.0.1";
  uint16_t port = 8080;
  std::string data_dir = "./var";
  std::string redis_url;     // empty: start an embedded redis-server child
  std::string database_url;  // empty: SQLite at <data_dir>/plaudit.db
  int flush_interval_ms = 1000;
  std::string bootstrap_admin;  // "name:password" or empty
  std::string log_level = "info";
  bool rate_limits = true;
  size_t max_body = 1 << 20;
  std::string redis_server_bin = "redis-server";  // for embedded mode
  int sql_pool_size = 2;
  int64_t session_ttl_s = 30 * 24 * 3600;  // sliding
  // How long a session read from Redis may be reused by this process (redis/session_cache.hpp).
  int session_cache_ms = 1000;
  std::string password_hash = "interactive";  // Argon2id cost: interactive | minimal (tests)
  int password_hash_threads = 2;              // concurrent hashes (each 64 MiB at interactive)
  int password_hash_queue = 64;               // waiting + running; beyond it logins get 429
  int64_t comment_edit_window_s = 15 * 60;    // how long an author may edit a comment
  // Rate limits, "COUNT/PERIOD" (PERIOD: 500ms, 90s, 15m, 2h) or "off".
  std::string limit_login_user = "10/15m";      // failed logins per username
  std::string limit_login_address = "50/15m";   // failed logins per client address
  std::string limit_writes_user = "120/1m";     // writes per user
  std::string limit_requests_address = "1200/1m";  // requests per client address
  // Who may read GET /metrics and /readyz: comma-separated CIDRs (api/ops.hpp).
  std::string metrics_allow = "127.0.0.0/8,::1/128";
  std::string metrics_token;  // when set, /metrics and /readyz also need it as a bearer token
};

enum class Command { kServe, kMigrate, kFlush, kRebuildCache, kUserAdd };

struct Invocation {
  Config config;
  Command command = Command::kServe;
  std::string user_name;  // user add NAME
  std::string user_role = "user";
};

// Parses argv. On --help or a parse error, returns nullopt with `exit_code` set (0 for help)
// and the message already printed.
std::optional<Invocation> Parse(int argc, const char* const* argv, int& exit_code);

// The SQLite URL used when no --database is given.
std::string DefaultDatabaseUrl(const Config& config);

}  // namespace plaudit::config
