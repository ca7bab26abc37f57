#include "config/config.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "app/app.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::config {
namespace {

std::optional<Invocation> ParseArgs(std::vector<std::string> args, int& code) {
  args.insert(args.begin(), "plauditd");
  std::vector<const char*> argv;
  for (auto& a : args) {
    argv.push_back(a.c_str());
  }
  return Parse(static_cast<int>(argv.size()), argv.data(), code);
}

struct Rejection {
  int code = -1;
  std::string message;  // what went to stderr
};

// Parses `args`, which must be rejected, and returns what plauditd would print and exit with.
Rejection ParseBad(std::vector<std::string> args) {
  Rejection r;
  ::testing::internal::CaptureStderr();
  auto inv = ParseArgs(std::move(args), r.code);
  r.message = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(inv) << "parsed";
  return r;
}

// Exit code 2 and one line on stderr, `plauditd: ` and then a message naming `flag`.
void ExpectRejectedNaming(const Rejection& r, const std::string& flag) {
  EXPECT_EQ(r.code, kBadValueExitCode) << r.message;
  EXPECT_EQ(r.message.rfind("plauditd: ", 0), 0u) << r.message;
  EXPECT_NE(r.message.find(flag), std::string::npos) << r.message;
  EXPECT_EQ(std::count(r.message.begin(), r.message.end(), '\n'), 1) << r.message;
  EXPECT_EQ(r.message.back(), '\n') << r.message;
}

TEST(Config, DefaultsMatchApiMd) {
  int code = -1;
  auto inv = ParseArgs({}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->command, Command::kServe);
  const Config& c = inv->config;
  EXPECT_EQ(c.host.to_string(), "127.0.0.1");
  EXPECT_EQ(c.port, 8080);
  EXPECT_EQ(c.data_dir, "./var");
  EXPECT_EQ(c.redis, std::nullopt);     // embedded
  EXPECT_EQ(c.database, std::nullopt);  // SQLite in the data dir
  EXPECT_EQ(c.flush_interval_ms, 1000);
  EXPECT_EQ(c.log_level, spdlog::level::info);
  EXPECT_TRUE(c.rate_limits);
  EXPECT_EQ(c.max_body, 1048576u);
  EXPECT_EQ(c.metrics_allow.ToString(), "127.0.0.0/8,::1/128");  // operations data: loopback only
  EXPECT_EQ(c.guests, "off");                                    // API.md "Guests": off by default
  EXPECT_EQ(FormatRateLimit(c.limit_guest_address), "10/10m");
}

TEST(Config, GuestsTakeThreeValuesAndTheirLimitIsARate) {
  int code = -1;
  auto inv = ParseArgs({"--guests", "moderated", "--limit-guest-address", "3/1h"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.guests, "moderated");
  EXPECT_EQ(FormatRateLimit(inv->config.limit_guest_address), "3/1h");
  ExpectRejectedNaming(ParseBad({"--guests", "maybe"}), "--guests");
}

TEST(Config, SsoNamesSitesOfSitesWithLongSecrets) {
  int code = -1;
  const std::string secret(32, 's');
  auto inv =
      ParseArgs({"--sites", "https://a.example,https://b.example", "--sso",
                 "HTTPS://A.example:443=" + secret, "--sso", "https://b.example=" + secret + "=x"},
                code);
  ASSERT_TRUE(inv);
  ASSERT_EQ(inv->config.sso.size(), 2u);
  EXPECT_EQ(inv->config.sso[0].origin, "https://a.example");
  EXPECT_EQ(inv->config.sso[0].secret, secret);
  EXPECT_EQ(inv->config.sso[1].secret, secret + "=x");  // everything after the first '='
  ExpectRejectedNaming(
      ParseBad({"--sites", "https://a.example", "--sso", "https://a.example=short"}), "--sso");
  ExpectRejectedNaming(ParseBad({"--sites", "https://a.example", "--sso", "no-equals-sign"}),
                       "--sso");
  ExpectRejectedNaming(
      ParseBad({"--sites", "https://a.example", "--sso", "https://c.example=" + secret}), "--sso");
  ExpectRejectedNaming(
      ParseBad({"--sites", "https://a.example", "--sso", "https://a.example=" + secret, "--sso",
                "https://a.example=" + secret}),
      "--sso");
}

TEST(Config, MailNeedsItsSenderAndPublicUrlAndWebhooksTheirSecret) {
  int code = -1;
  auto inv = ParseArgs(
      {"--smtp", "smtp://u:p@127.0.0.1:2525", "--mail-from", "Plaudit <c@b.example>",
       "--public-url", "HTTPS://Comments.example:443", "--webhook", "https://hooks.example/a",
       "--webhook", "http://127.0.0.1:9/b", "--webhook-secret", "0123456789abcdef"},
      code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.public_url, "https://comments.example");
  EXPECT_EQ(inv->config.webhooks.size(), 2u);
  ExpectRejectedNaming(ParseBad({"--smtp", "smtp://127.0.0.1:2525"}), "--smtp");
  ExpectRejectedNaming(ParseBad({"--smtp", "http://127.0.0.1:2525"}), "--smtp");
  ExpectRejectedNaming(ParseBad({"--webhook", "ftp://x.example/"}), "--webhook");
  // The outbox keeps the URL as a recipient (MySQL: 512 characters).
  ExpectRejectedNaming(ParseBad({"--webhook", "https://x.example/" + std::string(483, 'a')}),
                       "--webhook");
  ExpectRejectedNaming(ParseBad({"--webhook", "https://x.example/", "--webhook-secret", "short"}),
                       "--webhook");
  ExpectRejectedNaming(ParseBad({"--public-url", "not a url"}), "--public-url");
}

TEST(Config, MetricsAllowHasAFlagAndAnEnvironmentTwin) {
  int code = -1;
  auto inv = ParseArgs({"--metrics-allow", "10.0.0.0/8"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.metrics_allow.ToString(), "10.0.0.0/8");
  ::setenv("PLAUDIT_METRICS_ALLOW", "192.0.2.0/24", 1);
  inv = ParseArgs({}, code);
  ::unsetenv("PLAUDIT_METRICS_ALLOW");
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.metrics_allow.ToString(), "192.0.2.0/24");
}

TEST(Config, FlagsAreParsed) {
  int code = -1;
  auto inv = ParseArgs({"--port", "0", "--redis", "unix:///tmp/r.sock", "--rate-limits", "off",
                        "--max-body", "4096", "--flush-interval-ms", "250"},
                       code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.port, 0);
  EXPECT_EQ(inv->config.redis, RedisEndpoint::Unix("/tmp/r.sock"));
  EXPECT_FALSE(inv->config.rate_limits);
  EXPECT_EQ(inv->config.max_body, 4096u);
  EXPECT_EQ(inv->config.flush_interval_ms, 250);
}

TEST(Config, EnvironmentTwinIsUsedAndFlagWins) {
  ::setenv("PLAUDIT_FLUSH_INTERVAL_MS", "333", 1);
  int code = -1;
  auto inv = ParseArgs({}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.flush_interval_ms, 333);
  inv = ParseArgs({"--flush-interval-ms", "444"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.flush_interval_ms, 444);
  ::unsetenv("PLAUDIT_FLUSH_INTERVAL_MS");
}

TEST(Config, TomlFileKeysAndUnknownKeyFails) {
  testing::TempDir dir;
  auto path = (dir.path() / "p.toml").string();
  std::ofstream(path) << "port = 9001\ndata-dir = \"/srv/plaudit\"\nrate-limits = \"off\"\n";
  int code = -1;
  auto inv = ParseArgs({"--config", path}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.port, 9001);
  EXPECT_EQ(inv->config.data_dir, "/srv/plaudit");
  EXPECT_FALSE(inv->config.rate_limits);

  std::ofstream(path) << "port = 9001\ncolour = \"blue\"\n";
  inv = ParseArgs({"--config", path}, code);
  EXPECT_FALSE(inv);
  EXPECT_NE(code, 0);
}

TEST(Config, BadValuesFail) {
  for (auto args : std::vector<std::vector<std::string>>{{"--port", "70000"},
                                                         {"--port", "x"},
                                                         {"--flush-interval-ms", "0"},
                                                         {"--log-level", "chatty"},
                                                         {"--rate-limits", "yes"},
                                                         {"--max-body", "0"},
                                                         {"--bogus"},
                                                         {"frobnicate"}}) {
    int code = 0;
    EXPECT_FALSE(ParseArgs(args, code)) << args[0];
    EXPECT_NE(code, 0) << args[0];
  }
}

TEST(Config, GoodValuesParseToTypedFields) {
  int code = -1;
  std::vector<std::string> args;
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--host", "::1"},
           {"--redis", "redis://cache:6380/2"},
           {"--database", "postgresql://u:p@db:5432/plaudit"},
           {"--bootstrap-admin", "root:pa:ss word"},
           {"--log-level", "warn"},
           {"--password-hash", "minimal"},
           {"--limit-login-user", "3/500ms"},
           {"--limit-login-address", "9/2h"},
           {"--limit-writes-user", "off"},
           {"--limit-requests-address", "0"},
           {"--metrics-allow", "10.0.0.0/8, fd00::/8"},
           {"--rate-limits", "on"}}) {
    args.push_back(flag);
    args.push_back(value);
  }
  auto inv = ParseArgs(args, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(code, 0);
  const Config& c = inv->config;
  EXPECT_EQ(c.host, boost::asio::ip::address_v6::loopback());
  EXPECT_EQ(c.redis, RedisEndpoint::Tcp("cache", 6380, 2));
  EXPECT_EQ(c.database, (DatabaseUrl{Dialect::kPostgres, "postgresql://u:p@db:5432/plaudit"}));
  EXPECT_EQ(c.bootstrap_admin, (Credentials{"root", "pa:ss word"}));  // split at the first colon
  EXPECT_EQ(c.log_level, spdlog::level::warn);
  EXPECT_EQ(c.password_hash, PasswordCost::kMinimal);
  EXPECT_EQ(c.limit_login_user, (RateLimit{3, 500}));
  EXPECT_EQ(c.limit_login_address, (RateLimit{9, 2 * 3'600'000}));
  EXPECT_FALSE(c.limit_writes_user.enabled());
  EXPECT_FALSE(c.limit_requests_address.enabled());
  EXPECT_EQ(c.metrics_allow.ToString(), "10.0.0.0/8,fd00::/8");
  EXPECT_TRUE(c.rate_limits);

  inv = ParseArgs({"--database", "sqlite:///srv/p.db", "--redis", "unix:///run/r.sock?db=3"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.database, (DatabaseUrl{Dialect::kSqlite, "/srv/p.db"}));
  EXPECT_EQ(inv->config.redis, RedisEndpoint::Unix("/run/r.sock", 3));

  inv = ParseArgs({"--redis", "redis-cluster://10.0.0.1:7000,[::1]:7001,r3:7002"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.redis,
            RedisEndpoint::Cluster({{"10.0.0.1", 7000}, {"::1", 7001}, {"r3", 7002}}));
  EXPECT_EQ(inv->config.redis->Describe(), "cluster 10.0.0.1:7000,::1:7001,r3:7002");
  inv = ParseArgs({"--redis", "redis-sentinel://s1:26379,s2:26380/plaudit?db=2"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.redis,
            RedisEndpoint::Sentinel({{"s1", 26379}, {"s2", 26380}}, "plaudit", 2));
  EXPECT_EQ(inv->config.redis->Describe(), "sentinel s1:26379,s2:26380 service plaudit db 2");
}

TEST(Config, DefaultRateLimitsAndPasswordCost) {
  int code = -1;
  auto inv = ParseArgs({}, code);
  ASSERT_TRUE(inv);
  const Config& c = inv->config;
  EXPECT_EQ(FormatRateLimit(c.limit_login_user), "10/15m");
  EXPECT_EQ(FormatRateLimit(c.limit_login_address), "50/15m");
  EXPECT_EQ(FormatRateLimit(c.limit_writes_user), "120/1m");
  EXPECT_EQ(FormatRateLimit(c.limit_requests_address), "1200/1m");
  EXPECT_EQ(c.password_hash, PasswordCost::kInteractive);
  EXPECT_EQ(c.bootstrap_admin, std::nullopt);
}

// An empty --redis, --database or --bootstrap-admin is as if absent (as an empty string was).
TEST(Config, EmptyValuesMeanTheDefault) {
  int code = -1;
  auto inv = ParseArgs(
      {"--redis", "", "--database", "", "--bootstrap-admin", "", "--metrics-allow", ""}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.redis, std::nullopt);
  EXPECT_EQ(inv->config.database, std::nullopt);
  EXPECT_EQ(inv->config.bootstrap_admin, std::nullopt);
  EXPECT_EQ(inv->config.metrics_allow.ToString(), "");  // nobody
}

TEST(Config, EmbeddingSettings) {
  int code = -1;
  auto inv = ParseArgs({}, code);
  ASSERT_TRUE(inv);
  EXPECT_TRUE(inv->config.sites.empty());  // API.md: none besides plauditd's own pages
  EXPECT_EQ(inv->config.trusted_proxies.ToString(), "");
  EXPECT_FALSE(inv->config.cookie_secure);
  EXPECT_FALSE(inv->config.proxy_forwarded);  // X-Forwarded-* by default
  inv = ParseArgs(
      {"--sites", "https://Docs.Example:443/, http://blog.example:8080", "--trusted-proxies",
       "127.0.0.1,10.0.0.0/8", "--cookie-secure", "on", "--proxy-header", "forwarded"},
      code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.sites.ToString(), "http://blog.example:8080,https://docs.example");
  EXPECT_TRUE(inv->config.sites.Allows("https://docs.example"));
  EXPECT_EQ(inv->config.trusted_proxies.ToString(), "127.0.0.1/32,10.0.0.0/8");
  EXPECT_TRUE(inv->config.cookie_secure);
  EXPECT_TRUE(inv->config.proxy_forwarded);
  ::setenv("PLAUDIT_SITES", "https://a.example", 1);
  inv = ParseArgs({}, code);
  ::unsetenv("PLAUDIT_SITES");
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.sites.ToString(), "https://a.example");
}

TEST(Config, EachBadValueExitsTwoWithOneLineNamingTheFlag) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--host", "localhost"},
      {"--port", "70000"},
      {"--redis", "redis://cache:6379/x"},
      {"--redis", "redis://:secret@cache:6379"},
      {"--redis", "unix://"},
      {"--redis", "redis-cluster://"},
      {"--redis", "redis-cluster://a:7000,b"},
      {"--redis", "redis-cluster://a:7000/1"},
      {"--redis", "redis-cluster://u:p@a:7000"},
      {"--redis", "redis-sentinel://s1:26379"},
      {"--redis", "redis-sentinel://s1:26379/"},
      {"--redis", "redis-sentinel://s1:26379/a/b"},
      {"--redis", "redis-sentinel://s1:26379/plaudit?db=x"},
      {"--redis", "not a url"},
      {"--database", "mysql://db/plaudit"},
      {"--database", "postgresql://db/plaudit?no_such_option=1"},
      {"--database", "sqlite://"},
      {"--flush-interval-ms", "0"},
      {"--bootstrap-admin", "root"},
      {"--log-level", "chatty"},
      {"--rate-limits", "yes"},
      {"--max-body", "0"},
      {"--sql-pool-size", "0"},
      {"--session-ttl-s", "0"},
      {"--session-cache-ms", "60001"},
      {"--password-hash", "fast"},
      {"--password-hash-threads", "0"},
      {"--password-hash-queue", "0"},
      {"--comment-edit-window-s", "99999999999"},
      {"--limit-login-user", "10/15x"},
      {"--limit-login-address", "lots"},
      {"--limit-writes-user", "0/1m"},
      {"--limit-requests-address", "1/745h"},
      {"--metrics-allow", "10.0.0.0/33"},
      {"--sites", "blog.example"},
      {"--sites", "https://blog.example/posts"},
      {"--sites", "ftp://blog.example"},
      {"--sites", "https://user@blog.example"},
      {"--trusted-proxies", "10.0.0.1/40"},
      {"--cookie-secure", "maybe"},
      {"--proxy-header", "x-forwarded-for"},
  };
  for (const auto& [flag, value] : cases) {
    SCOPED_TRACE(flag + " " + value);
    ExpectRejectedNaming(ParseBad({flag, value}), flag);
  }
}

TEST(Config, BadRedisUrlSaysWhichSchemesWork) {
  auto r = ParseBad({"--redis", "http://x"});
  ExpectRejectedNaming(r, "--redis");
  EXPECT_EQ(r.message,
            "plauditd: --redis: unsupported scheme \"http\" (want redis://, unix://, "
            "redis-cluster:// or redis-sentinel://)\n");
}

TEST(Config, BadValuesNeverEchoASecret) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--bootstrap-admin", "root-s3cret"},
                                             {"--redis", "redis://:s3cret@cache:6379"},
                                             {"--database", "oracle://u:s3cret@db/plaudit"},
                                             {"--database", "mysql://u:s3cret@db/plaudit?tls=no"},
                                             {"--database", "mysql://u:s3cret@db:99999/plaudit"},
                                             {"--database", "mysql://u:s3cret@db/a/b"}}) {
    auto r = ParseBad(args);
    ExpectRejectedNaming(r, args[0]);
    EXPECT_EQ(r.message.find("s3cret"), std::string::npos) << r.message;
  }
}

TEST(Config, AMessageStaysOneLineWhateverTheValue) {
  ExpectRejectedNaming(ParseBad({"--log-level", "loud\nand clear"}), "--log-level");
}

TEST(Config, BadValueFromTheEnvironmentNamesTheFlag) {
  ::setenv("PLAUDIT_REDIS", "http://x", 1);
  auto r = ParseBad({});
  ::unsetenv("PLAUDIT_REDIS");
  ExpectRejectedNaming(r, "--redis");

  ::setenv("PLAUDIT_LIMIT_WRITES_USER", "many", 1);
  r = ParseBad({});
  ::unsetenv("PLAUDIT_LIMIT_WRITES_USER");
  ExpectRejectedNaming(r, "--limit-writes-user");
}

TEST(Config, BadValueFromTheConfigFileNamesTheFlag) {
  testing::TempDir dir;
  auto path = (dir.path() / "p.toml").string();
  for (const auto& [line, flag] : std::vector<std::pair<std::string, std::string>>{
           {"redis = \"http://x\"", "--redis"},
           {"password-hash = \"fast\"", "--password-hash"},
           {"metrics-allow = \"everyone\"", "--metrics-allow"},
           {"colour = \"blue\"", "colour"}}) {
    SCOPED_TRACE(line);
    std::ofstream(path) << line << "\n";
    ExpectRejectedNaming(ParseBad({"--config", path}), flag);
  }
}

TEST(Config, UnknownFlagExitsTwoWithOneLine) {
  ExpectRejectedNaming(ParseBad({"--bogus"}), "--bogus");
}

TEST(Config, InMemorySqliteNeedsAPoolOfOne) {
  ExpectRejectedNaming(ParseBad({"--database", ":memory:"}), "--database");
  int code = -1;
  auto inv = ParseArgs({"--database", "sqlite::memory:", "--sql-pool-size", "1"}, code);
  ASSERT_TRUE(inv);
  EXPECT_TRUE(inv->config.database->in_memory());
}

TEST(Config, HelpExitsZero) {
  int code = -1;
  ::testing::internal::CaptureStdout();
  EXPECT_FALSE(ParseArgs({"--help"}, code));
  std::string help = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_NE(help.find("--limit-login-user"), std::string::npos);
  EXPECT_NE(help.find("10/15m"), std::string::npos);  // defaults are shown
}

// The account rules live in domain: app::CheckInvocation applies them to --bootstrap-admin and
// user add's NAME before anything starts (main exits 2 on its error, like on Parse's).
TEST(Config, BootstrapAdminFollowsTheAccountRulesBeforeAnythingStarts) {
  int code = -1;
  auto check = [&](std::vector<std::string> args) -> Status {
    auto inv = ParseArgs(std::move(args), code);
    if (!inv) {
      return Fail(ErrorCode::kInternal, "did not parse");
    }
    return app::CheckInvocation(*inv);
  };
  EXPECT_TRUE(check({"--bootstrap-admin", "root:rootpassword"}));
  EXPECT_TRUE(check({"user", "add", "alice"}));
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--bootstrap-admin", "ab:rootpassword"},
                                             {"--bootstrap-admin", ":rootpassword"},
                                             {"--bootstrap-admin", "root:short"}}) {
    auto st = check(args);
    ASSERT_FALSE(st) << args[1];
    EXPECT_EQ(st.error().code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(st.error().message.rfind("--bootstrap-admin: ", 0), 0u) << st.error().message;
  }
  auto st = check({"user", "add", "no spaces"});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message.rfind("user add NAME: ", 0), 0u) << st.error().message;
  EXPECT_TRUE(check({"user", "password", "alice"}));
  auto inv = ParseArgs({"user", "password", "alice"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->command, config::Command::kUserPassword);
  EXPECT_EQ(inv->user_name, "alice");
  st = check({"user", "password", "no spaces"});
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message.rfind("user password NAME: ", 0), 0u) << st.error().message;
}

// --redis-wait-replicas needs replicas, so an external Redis; its timeout must be above 0
// (WAIT 0 blocks forever) and short enough not to outlast the 1 s command deadline.
TEST(Config, RedisWaitReplicasNeedsAnExternalRedisAndABoundedTimeout) {
  int code = -1;
  auto inv = ParseArgs({"--redis", "redis://127.0.0.1:6379", "--redis-wait-replicas", "1",
                        "--redis-wait-timeout-ms", "100"},
                       code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.redis_wait_replicas, 1);
  EXPECT_EQ(inv->config.redis_wait_timeout_ms, 100);
  EXPECT_TRUE(app::CheckInvocation(*inv));
  inv = ParseArgs({}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.redis_wait_replicas, 0);
  inv = ParseArgs({"--redis-wait-replicas", "1"}, code);
  ASSERT_TRUE(inv);
  auto st = app::CheckInvocation(*inv);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message.rfind("--redis-wait-replicas: ", 0), 0u) << st.error().message;
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--redis-wait-replicas", "-1"},
                                             {"--redis-wait-timeout-ms", "0"},
                                             {"--redis-wait-timeout-ms", "501"}}) {
    EXPECT_FALSE(ParseArgs(args, code)) << args[0] << " " << args[1];
    EXPECT_NE(code, 0);
  }
}

TEST(Config, Subcommands) {
  int code = -1;
  EXPECT_EQ(ParseArgs({"migrate"}, code)->command, Command::kMigrate);
  EXPECT_EQ(ParseArgs({"flush"}, code)->command, Command::kFlush);
  EXPECT_EQ(ParseArgs({"rebuild-cache"}, code)->command, Command::kRebuildCache);
  auto inv = ParseArgs({"user", "add", "alice", "--role", "author"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->command, Command::kUserAdd);
  EXPECT_EQ(inv->user_name, "alice");
  EXPECT_EQ(inv->user_role, "author");
  // Global flags may follow the subcommand.
  inv = ParseArgs({"migrate", "--data-dir", "/tmp/x"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.data_dir, "/tmp/x");
  EXPECT_FALSE(ParseArgs({"user", "add", "bob", "--role", "root"}, code));
}

TEST(Config, DefaultDatabaseIsSqliteInDataDir) {
  Config c;
  c.data_dir = "/srv/p";
  EXPECT_EQ(DefaultDatabaseUrl(c), (DatabaseUrl{Dialect::kSqlite, "/srv/p/plaudit.db"}));
}

}  // namespace
}  // namespace plaudit::config
