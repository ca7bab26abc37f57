// The real plauditd binary as a child process: zero-configuration embedded mode, crash and
// restart on the same data dir, graceful SIGTERM, configuration sources, subcommands.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "plauditd_process.hpp"

namespace plaudit::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class PlauditdTest : public PlauditdProcessTest {
 protected:
  PlauditdTest() : PlauditdProcessTest("plaudit-app") {}

  // Runs plauditd to completion and returns its exit status.
  int RunToEnd(std::vector<std::string> args) {
    std::vector<std::string> argv = {PLAUDITD_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    Process p(argv, log_path());
    return p.Wait(30s).value_or(-1);
  }
};

TEST_F(PlauditdTest, ZeroConfigEmbeddedModeServesAndStopsCleanly) {
  int port = FreeTcpPort();
  auto p = Start({}, port);
  ASSERT_TRUE(Ready(port)) << Log();
  EXPECT_TRUE(fs::exists(fs::path(data_dir()) / "plaudit.db"));
  EXPECT_TRUE(fs::exists(fs::path(data_dir()) / "redis/redis.sock"));
  pid_t child = RedisChildPid();
  ASSERT_GT(child, 0);
  EXPECT_TRUE(Alive(child));
  EXPECT_EQ(RedisCli("CONFIG GET appendonly"), "appendonly\nyes");
  EXPECT_EQ(RedisCli("CONFIG GET appendfsync"), "appendfsync\neverysec");
  EXPECT_EQ(RedisCli("CONFIG GET latency-tracking"), "latency-tracking\nno");

  p->Signal(SIGTERM);
  auto status = p->Wait(15s);
  ASSERT_TRUE(status.has_value()) << Log();
  EXPECT_EQ(*status, 0) << Log();
  EXPECT_TRUE(WaitFor([&] { return !Alive(child); }, 10s)) << "embedded redis lingered";
}

TEST_F(PlauditdTest, SigkillThenRestartKeepsRedisDataAndLeavesNoStaleChild) {
  int port = FreeTcpPort();
  auto p = Start({}, port);
  ASSERT_TRUE(Ready(port)) << Log();
  pid_t child = RedisChildPid();
  ASSERT_EQ(RedisCli("SET plaudit:test:durable hello"), "OK");

  p->Signal(SIGKILL);
  p->Wait(10s);
  // The child must not go on serving a stale socket: it shuts down (persisting) by itself.
  EXPECT_TRUE(WaitFor([&] { return !Alive(child); }, 10s)) << "embedded redis lingered";

  // Same port, right away (SO_REUSEADDR), same data dir.
  auto again = Start({}, port);
  ASSERT_TRUE(Ready(port)) << Log();
  EXPECT_NE(RedisChildPid(), child);
  EXPECT_EQ(RedisCli("GET plaudit:test:durable"), "hello");
  EXPECT_EQ(again->Stop(15s), 0);
}

TEST_F(PlauditdTest, SigkillRightAfterAcknowledgedLikesLosesNone) {
  // No periodic flush during the test: the likes live only in Redis when plauditd dies.
  const std::vector<std::string> flags = {"--password-hash",     "minimal", "--rate-limits", "off",
                                          "--flush-interval-ms", "3600000"};
  int port = FreeTcpPort();
  auto p = Start(flags, port);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c("127.0.0.1", port);
  std::vector<std::string> tokens;
  for (std::string name : {"alpha", "bravo"}) {
    ASSERT_EQ(c.Post("/api/v1/users", R"({"username":")" + name + R"(","password":"password123"})")
                  .status,
              201);
    auto s =
        c.Post("/api/v1/sessions", R"({"username":")" + name + R"(","password":"password123"})");
    tokens.emplace_back(s.Json().at("token").as_string());
  }
  auto post = c.Post("/api/v1/articles", R"({"title":"t","content":"c","status":"published"})",
                     {{"Authorization", "Bearer " + tokens[0]}});
  ASSERT_EQ(post.status, 201) << post.body;
  std::string like =
      "/api/v1/articles/" + std::to_string(post.Json().at("id").as_int64()) + "/like";
  for (const auto& t : tokens) {
    ASSERT_EQ(c.Put(like, "", {{"Authorization", "Bearer " + t}}).status, 200);
  }
  pid_t child = RedisChildPid();
  p->Signal(SIGKILL);
  p->Wait(10s);
  ASSERT_TRUE(WaitFor([&] { return !Alive(child); }, 10s));

  auto again = Start(flags, port);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c2("127.0.0.1", port);
  EXPECT_EQ(c2.Get(like).body, R"({"liked":false,"likeCount":2})");
  // A repeat like after the crash is still one like.
  EXPECT_EQ(c2.Put(like, "", {{"Authorization", "Bearer " + tokens[1]}}).body,
            R"({"liked":true,"likeCount":2})");
  EXPECT_EQ(again->Stop(15s), 0);  // drains and runs the final flush into SQL

  // With Redis emptied, the likes come back from SQL.
  auto third = Start(flags, port);
  ASSERT_TRUE(Ready(port)) << Log();
  ASSERT_EQ(RedisCli("FLUSHALL"), "OK");
  HttpClient c3("127.0.0.1", port);
  EXPECT_EQ(c3.Get(like).body, R"({"liked":false,"likeCount":2})");
  EXPECT_EQ(third->Stop(15s), 0);
}

TEST_F(PlauditdTest, ReplacesALeftoverRedisServerWithoutLosingItsData) {
  // A redis-server from an earlier run that is still alive (as if it had missed its
  // parent's death) holds the socket and pidfile.
  fs::path rdir = fs::path(data_dir()) / "redis";
  fs::create_directories(rdir);
  auto stale = std::make_unique<Process>(
      std::vector<std::string>{"redis-server", "--port", "0", "--unixsocket",
                               (rdir / "redis.sock").string(), "--dir", rdir.string(), "--pidfile",
                               (rdir / "redis.pid").string(), "--appendonly", "yes", "--save", ""},
      (dir_.path() / "stale.log").string());
  ASSERT_TRUE(WaitFor([&] { return UnixSocketAccepts((rdir / "redis.sock").string()); }, 10s));
  ASSERT_TRUE(WaitFor([&] { return RedisChildPid() == stale->pid(); }, 5s));
  ASSERT_EQ(RedisCli("SET plaudit:test:left over"), "OK");

  int port = FreeTcpPort();
  auto p = Start({}, port);
  ASSERT_TRUE(Ready(port)) << Log();
  EXPECT_TRUE(stale->Wait(10s).has_value()) << "the leftover server was not stopped";
  EXPECT_NE(RedisChildPid(), stale->pid());
  EXPECT_EQ(RedisCli("GET plaudit:test:left"), "over");
  EXPECT_EQ(p->Stop(15s), 0);
}

TEST_F(PlauditdTest, ConfigFileEnvAndFlagsInThatPrecedence) {
  int file_port = FreeTcpPort();
  fs::path cfg = dir_.path() / "plaudit.toml";
  std::ofstream(cfg) << "port = " << file_port << "\nlog-level = \"debug\"\n";
  std::vector<std::string> argv = {PLAUDITD_PATH, "--config", cfg.string(), "--data-dir",
                                   data_dir()};
  {
    Process p(argv, log_path());
    EXPECT_TRUE(Ready(file_port)) << Log();
    EXPECT_EQ(p.Stop(15s), 0);
  }
  int flag_port = FreeTcpPort();
  argv.push_back("--port");
  argv.push_back(std::to_string(flag_port));
  {
    Process p(argv, log_path());
    EXPECT_TRUE(Ready(flag_port)) << Log();
    EXPECT_EQ(p.Stop(15s), 0);
  }
  int env_port = FreeTcpPort();
  ::setenv("PLAUDIT_PORT", std::to_string(env_port).c_str(), 1);
  {
    Process p({PLAUDITD_PATH, "--data-dir", data_dir()}, log_path());
    EXPECT_TRUE(Ready(env_port)) << Log();
    EXPECT_EQ(p.Stop(15s), 0);
  }
  ::unsetenv("PLAUDIT_PORT");
}

TEST_F(PlauditdTest, UnknownFlagOrConfigKeyFailsStartUp) {
  EXPECT_NE(RunToEnd({"--data-dir", data_dir(), "--no-such-flag", "1"}), 0);
  fs::path cfg = dir_.path() / "bad.toml";
  std::ofstream(cfg) << "prot = 9000\n";
  EXPECT_NE(RunToEnd({"--config", cfg.string(), "--data-dir", data_dir()}), 0);
  EXPECT_NE(RunToEnd({"--data-dir", data_dir(), "--log-level", "loud"}), 0);
  EXPECT_NE(RunToEnd({"--data-dir", data_dir(), "--rate-limits", "maybe"}), 0);
  EXPECT_FALSE(fs::exists(fs::path(data_dir()) / "plaudit.db"));  // nothing was started
}

// A bad value stops plauditd before it touches anything: exit 2 and one line on stderr naming
// the flag, with no data dir created (so no migration ran and no redis-server child started).
TEST_F(PlauditdTest, BadRedisUrlExitsTwoBeforeTouchingAnything) {
  const fs::path d = dir_.path() / "d";
  EXPECT_EQ(RunToEnd({"serve", "--redis", "http://x", "--data-dir", d.string()}), 2);
  EXPECT_EQ(Log(),
            "plauditd: --redis: unsupported scheme \"http\" (want redis://, unix://, "
            "redis-cluster:// or redis-sentinel://)\n");
  EXPECT_FALSE(fs::exists(d));
}

TEST_F(PlauditdTest, BadBootstrapAdminOrEnvironmentValueExitsTwoBeforeTouchingAnything) {
  const fs::path d = dir_.path() / "d";
  EXPECT_EQ(RunToEnd({"--bootstrap-admin", "root:short", "--data-dir", d.string()}), 2);
  EXPECT_EQ(Log().rfind("plauditd: --bootstrap-admin: ", 0), 0u) << Log();
  ::setenv("PLAUDIT_LIMIT_LOGIN_USER", "10/15x", 1);
  const int env_code = RunToEnd({"migrate", "--data-dir", d.string()});
  ::unsetenv("PLAUDIT_LIMIT_LOGIN_USER");
  EXPECT_EQ(env_code, 2);
  EXPECT_NE(Log().find("plauditd: --limit-login-user: invalid rate limit"), std::string::npos)
      << Log();
  EXPECT_FALSE(fs::exists(d));
}

TEST_F(PlauditdTest, MigrateIsIdempotent) {
  EXPECT_EQ(RunToEnd({"migrate", "--data-dir", data_dir()}), 0) << Log();
  EXPECT_TRUE(fs::exists(fs::path(data_dir()) / "plaudit.db"));
  EXPECT_EQ(RunToEnd({"migrate", "--data-dir", data_dir()}), 0) << Log();
  EXPECT_NE(Log().find("migrations applied: 0"), std::string::npos) << Log();
}

TEST_F(PlauditdTest, UserAddReadsThePasswordFromStdinAndTheUserCanLogIn) {
  auto run_sh = [&](const std::string& cmd) {
    Process p({"sh", "-c", cmd}, log_path());
    return p.Wait(30s).value_or(-1);
  };
  std::string base = std::string("printf 'pass-from-stdin\\n' | '") + PLAUDITD_PATH +
                     "' user add writer --role author --password-hash minimal --data-dir '" +
                     data_dir() + "'";
  EXPECT_EQ(run_sh(base), 0) << Log();
  EXPECT_EQ(run_sh(base), 1) << "a second add of the same user must fail";
  EXPECT_NE(run_sh(std::string("printf 'short\\n' | '") + PLAUDITD_PATH +
                   "' user add other --data-dir '" + data_dir() + "'"),
            0);
  EXPECT_EQ(Log().find("pass-from-stdin"), std::string::npos);  // never logged

  int port = FreeTcpPort();
  auto p = Start({"--bootstrap-admin", "boss:boss-password", "--password-hash", "minimal"}, port);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c("127.0.0.1", port);
  auto r = c.Post("/api/v1/sessions", R"({"username":"writer","password":"pass-from-stdin"})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json().at("user").at("role").as_string(), "author");
  r = c.Post("/api/v1/sessions", R"({"username":"boss","password":"boss-password"})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json().at("user").at("role").as_string(), "admin");
  EXPECT_EQ(p->Stop(15s), 0);
}

TEST_F(PlauditdTest, FlushAndRebuildCacheRunOnceAndExit) {
  // With no server running they start the embedded Redis from its AOF themselves...
  EXPECT_EQ(RunToEnd({"flush", "--data-dir", data_dir()}), 0) << Log();
  EXPECT_EQ(RunToEnd({"rebuild-cache", "--data-dir", data_dir()}), 0) << Log();
  // ...and with one running they use its Redis instead of replacing it.
  int port = FreeTcpPort();
  auto p = Start({}, port);
  ASSERT_TRUE(Ready(port)) << Log();
  pid_t child = RedisChildPid();
  EXPECT_EQ(RunToEnd({"flush", "--data-dir", data_dir()}), 0) << Log();
  EXPECT_EQ(RedisChildPid(), child);
  EXPECT_TRUE(Alive(child));
  EXPECT_EQ(HttpClient("127.0.0.1", port).Get("/readyz").status, 200);
  EXPECT_EQ(p->Stop(15s), 0);
}

TEST_F(PlauditdTest, RebuildSearchBuildsTheIndexFromSqlBesideARunningServer) {
  // The server's indexer waits an hour after its start-up pass: what is found after the
  // article below is published is what the command built.
  int port = FreeTcpPort();
  auto p = Start({"--bootstrap-admin", "boss:boss-password", "--password-hash", "minimal",
                  "--search-interval-ms", "3600000"},
                 port);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c("127.0.0.1", port);
  auto s = c.Post("/api/v1/sessions", R"({"username":"boss","password":"boss-password"})");
  ASSERT_EQ(s.status, 201) << s.body;
  const std::string bearer = "Bearer " + std::string(s.Json().at("token").as_string());
  auto post = c.Post("/api/v1/articles",
                     R"({"title":"Quokka","content":"<p>quokkas smile</p>","status":"published"})",
                     {{"Authorization", bearer}});
  ASSERT_EQ(post.status, 201) << post.body;
  auto found = [&] {
    auto r = c.Get("/api/v1/search?q=quokkas");
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? r.Json().at("total").as_int64() : -1;
  };
  EXPECT_EQ(found(), 0);
  EXPECT_EQ(RunToEnd({"rebuild-search", "--data-dir", data_dir()}), 0) << Log();
  EXPECT_NE(Log().find("search index rebuilt"), std::string::npos) << Log();
  EXPECT_EQ(found(), 1);
  EXPECT_EQ(p->Stop(15s), 0);
}

TEST_F(PlauditdTest, ASecondServeOnTheSameDataDirIsRefusedAndLeavesTheFirstsRedisAlone) {
  // Two of these processes at once (an operator's second start, a unit file run twice): the
  // second used to take the first's live redis-server for a leftover and stop it.
  int port = FreeTcpPort();
  auto first = Start({}, port);
  ASSERT_TRUE(Ready(port)) << Log();
  const pid_t child = RedisChildPid();
  ASSERT_EQ(RedisCli("SET plaudit:test:first mine"), "OK");

  EXPECT_EQ(RunToEnd({"--data-dir", data_dir(), "--port", std::to_string(FreeTcpPort())}), 1);
  EXPECT_NE(Log().find("another plauditd (pid " + std::to_string(first->pid()) +
                       ") runs the embedded Redis of"),
            std::string::npos)
      << Log();
  EXPECT_TRUE(Alive(child));
  EXPECT_EQ(RedisChildPid(), child);
  EXPECT_EQ(RedisCli("GET plaudit:test:first"), "mine");
  EXPECT_EQ(HttpClient("127.0.0.1", port).Get("/readyz").status, 200);
  EXPECT_EQ(first->Stop(15s), 0);

  // Once the first is gone (however it went), the data dir is free again.
  auto again = Start({}, port);
  ASSERT_TRUE(Ready(port)) << Log();
  EXPECT_EQ(RedisCli("GET plaudit:test:first"), "mine");
  EXPECT_EQ(again->Stop(15s), 0);
}

TEST_F(PlauditdTest, PortInUseFailsStartUpWithAClearError) {
  int port = FreeTcpPort();
  auto first = Start({}, port);
  ASSERT_TRUE(Ready(port)) << Log();
  std::string other = (dir_.path() / "other").string();
  EXPECT_EQ(RunToEnd({"--data-dir", other, "--port", std::to_string(port)}), 1);
  EXPECT_NE(Log().find("cannot listen"), std::string::npos) << Log();
  EXPECT_EQ(first->Stop(15s), 0);
}

}  // namespace
}  // namespace plaudit::testing
