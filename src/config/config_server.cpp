// The options of the process itself: where plauditd listens, its Redis (embedded or not) and
// SQL database, the write-behind flusher, the log, and the bounds on what it may hold (request
// bodies, connections, SQL connections).
#include "config/config_detail.hpp"

namespace plaudit::config::detail {

void AddServerOptions(CLI::App& app, Config& c) {
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
  app.add_option("--search-interval-ms", c.search_interval_ms,
                 "how often the search index takes up what changed (API.md \"Search\")")
      ->envname("PLAUDIT_SEARCH_INTERVAL_MS")
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
  app.add_option("--live-streams", c.live_streams,
                 "open live-update streams (API.md \"Live updates\") at most; beyond it 503 "
                 "(each is a connection that is never idle: lowered to half of --max-connections)")
      ->envname("PLAUDIT_LIVE_STREAMS")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000}))
      ->capture_default_str();
  app.add_option("--live-streams-per-address", c.live_streams_per_address,
                 "open live-update streams of one client address at most; beyond it 429")
      ->envname("PLAUDIT_LIVE_STREAMS_PER_ADDRESS")
      ->check(CLI::Range(int64_t{1}, int64_t{100'000}))
      ->capture_default_str();
  app.add_option("--max-in-flight", c.max_in_flight,
                 "requests handled at once at most; beyond it 503 with Retry-After at once, "
                 "rather than queued (0: no bound; /healthz, /readyz and /metrics are never shed)")
      ->envname("PLAUDIT_MAX_IN_FLIGHT")
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
}

}  // namespace plaudit::config::detail
