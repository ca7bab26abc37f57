#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "config/config.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::config {
namespace {

std::optional<Invocation> ParseArgs(std::vector<std::string> args, int& code) {
  args.insert(args.begin(), "plauditd");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  return Parse(static_cast<int>(argv.size()), argv.data(), code);
}

TEST(Config, DefaultsMatchApiMd) {
  int code = -1;
  auto inv = ParseArgs({}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->command, Command::kServe);
  const Config& c = inv->config;
  EXPECT_EQ(c.host, "127.0.0.1");
  EXPECT_EQ(c.port, 8080);
  EXPECT_EQ(c.data_dir, "./var");
  EXPECT_EQ(c.redis_url, "");
  EXPECT_EQ(c.database_url, "");
  EXPECT_EQ(c.flush_interval_ms, 1000);
  EXPECT_EQ(c.log_level, "info");
  EXPECT_TRUE(c.rate_limits);
  EXPECT_EQ(c.max_body, 1048576u);
  EXPECT_EQ(c.metrics_allow, "127.0.0.0/8,::1/128");  // operations data: loopback only
}

TEST(Config, MetricsAllowHasAFlagAndAnEnvironmentTwin) {
  int code = -1;
  auto inv = ParseArgs({"--metrics-allow", "10.0.0.0/8"}, code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.metrics_allow, "10.0.0.0/8");
  ::setenv("PLAUDIT_METRICS_ALLOW", "192.0.2.0/24", 1);
  inv = ParseArgs({}, code);
  ::unsetenv("PLAUDIT_METRICS_ALLOW");
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.metrics_allow, "192.0.2.0/24");
}

TEST(Config, FlagsAreParsed) {
  int code = -1;
  auto inv = ParseArgs({"--port", "0", "--redis", "unix:///tmp/r.sock", "--rate-limits", "off",
                        "--max-body", "4096", "--flush-interval-ms", "250"},
                       code);
  ASSERT_TRUE(inv);
  EXPECT_EQ(inv->config.port, 0);
  EXPECT_EQ(inv->config.redis_url, "unix:///tmp/r.sock");
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
  for (auto args : std::vector<std::vector<std::string>>{
           {"--port", "70000"},
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
  EXPECT_EQ(DefaultDatabaseUrl(c), "sqlite:///srv/p/plaudit.db");
}

}  // namespace
}  // namespace plaudit::config
