// The embedded redis-server child under the real plauditd binary (issue 41): a child killed
// with SIGKILL is reaped and started again from its AOF, /healthz fails while it cannot come
// back, a restarted child still goes with its parent; and the data dir's files are for the
// owner only, whatever the umask.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "plauditd_process.hpp"

namespace plaudit::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

mode_t Mode(const fs::path& p) {
  struct stat st{};
  if (::stat(p.c_str(), &st) != 0) {
    return 07777;  // no such file: matches no expectation
  }
  return st.st_mode & 07777;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

class RedisChildTest : public PlauditdProcessTest {
 protected:
  RedisChildTest() : PlauditdProcessTest("plaudit-child") {}

  std::unique_ptr<Process> Start(int port) {
    return PlauditdProcessTest::Start({"--password-hash", "minimal", "--rate-limits", "off"}, port);
  }

  // A redis-server other than `old` serves the data dir's socket.
  bool Replaced(pid_t old) {
    const pid_t now = RedisChildPid();
    return now > 0 && now != old && Alive(now) && RedisCli("PING") == "PONG";
  }
};

// Issue 41, item 7: after `kill -9` of the child it stayed a zombie, every API call answered
// 503 for as long as it was watched, and /healthz stayed 200.
TEST_F(RedisChildTest, AKilledRedisIsReapedAndRestartedFromItsAof) {
  const int port = FreeTcpPort();
  auto p = Start(port);
  ASSERT_TRUE(Ready(port)) << Log();
  // Every write on disk before its reply, so the restart must find all of them.
  ASSERT_EQ(RedisCli("CONFIG SET appendfsync always"), "OK");
  HttpClient c("127.0.0.1", port);
  ASSERT_EQ(c.Post("/api/v1/users", R"({"username":"alpha","password":"password123"})").status,
            201);
  auto login = c.Post("/api/v1/sessions", R"({"username":"alpha","password":"password123"})");
  ASSERT_EQ(login.status, 201) << login.body;
  const HttpClient::Headers bearer{
      {"Authorization", "Bearer " + std::string(login.Json().at("token").as_string())}};
  ASSERT_EQ(c.Get("/api/v1/users/me", bearer).status, 200);

  const pid_t child = RedisChildPid();
  ASSERT_TRUE(Alive(child));
  const auto killed_at = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  EXPECT_TRUE(WaitFor([&] { return !Alive(child); }, 10s)) << "the dead child is a zombie";
  ASSERT_TRUE(WaitFor([&] { return Replaced(child); }, 20s)) << Log();
  // The session lives only in Redis: it came back from the AOF, and the API serves again.
  ASSERT_TRUE(WaitFor([&] { return c.Get("/api/v1/users/me", bearer).status == 200; }, 20s))
      << Log();
  const auto back_after = std::chrono::steady_clock::now() - killed_at;
  std::cout << "[ measured ] kill -9 to the API serving again: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(back_after).count() << " ms\n";
  EXPECT_EQ(c.Get("/healthz").status, 200);
  EXPECT_EQ(Status(port, "/readyz"), 200);
  EXPECT_NE(Log().find("embedded redis-server (pid " + std::to_string(child) +
                       ") was killed by signal 9"),
            std::string::npos)
      << Log();

  // A stop is not a crash: the restarted child is stopped with plauditd and not restarted.
  const pid_t second = RedisChildPid();
  p->Signal(SIGTERM);
  auto status = p->Wait(20s);
  ASSERT_TRUE(status.has_value()) << Log();
  EXPECT_EQ(*status, 0) << Log();
  EXPECT_FALSE(Alive(second)) << "the restarted child outlived plauditd";
  EXPECT_EQ(Count(Log(), "embedded redis-server restarted"), 1u) << Log();
}

// Issue 41, item 7: a restarted child is forked by the watcher thread; it must still go when
// plauditd dies by SIGKILL (its death signal), as the first child does.
TEST_F(RedisChildTest, ARestartedRedisStillGoesWhenPlauditdIsKilled) {
  const int port = FreeTcpPort();
  auto p = Start(port);
  ASSERT_TRUE(Ready(port)) << Log();
  const pid_t child = RedisChildPid();
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  ASSERT_TRUE(WaitFor([&] { return Replaced(child); }, 20s)) << Log();
  const pid_t second = RedisChildPid();
  p->Signal(SIGKILL);
  p->Wait(10s);
  EXPECT_TRUE(WaitFor([&] { return !Alive(second); }, 10s)) << "the restarted child lingered";
}

// Issue 41, item 7: a child that cannot start again (here its AOF manifest is garbage) makes
// /healthz 503, so a supervisor acts; restarts go on with backoff and, once the AOF is
// whole again, it comes back and /healthz is 200 again.
TEST_F(RedisChildTest, ARedisThatCannotRestartFailsHealthzUntilItComesBack) {
  const int port = FreeTcpPort();
  auto p = Start(port);
  ASSERT_TRUE(Ready(port)) << Log();
  ASSERT_EQ(Status(port, "/healthz"), 200);
  const fs::path manifest = fs::path(data_dir()) / "redis/appendonlydir/appendonly.aof.manifest";
  ASSERT_TRUE(fs::exists(manifest));
  const std::string good = ReadFile(manifest);
  std::ofstream(manifest, std::ios::trunc) << "garbage\n";
  const pid_t child = RedisChildPid();
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  ASSERT_TRUE(WaitFor([&] { return Status(port, "/healthz") == 503; }, 20s)) << Log();
  auto h = HttpClient("127.0.0.1", port).Get("/healthz");
  EXPECT_EQ(h.ErrorCode(), "unavailable") << h.body;
  EXPECT_NE(Log().find("could not be restarted (attempt 1)"), std::string::npos) << Log();
  EXPECT_EQ(Status(port, "/readyz"), 503);

  std::ofstream(manifest, std::ios::trunc) << good;
  ASSERT_TRUE(WaitFor([&] { return Status(port, "/healthz") == 200; }, 30s)) << Log();
  EXPECT_TRUE(Ready(port)) << Log();
  EXPECT_EQ(p->Stop(20s), 0) << Log();
}

// Issue 41, item 13: under umask 022 the data dir was 0755 and plaudit.db (password hashes)
// and the AOF 0644. Now dirs are 0700 and files 0600, whatever the umask.
TEST_F(RedisChildTest, DataFilesAreForTheOwnerOnlyWhateverTheUmask) {
  const mode_t old_umask = ::umask(022);  // the child process inherits it
  const int port = FreeTcpPort();
  auto p = Start(port);
  ::umask(old_umask);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c("127.0.0.1", port);
  ASSERT_EQ(c.Post("/api/v1/users", R"({"username":"alpha","password":"password123"})").status,
            201);
  const fs::path d = data_dir();
  EXPECT_EQ(Mode(d), 0700u);
  for (const char* f : {"plaudit.db", "plaudit.db-wal", "plaudit.db-shm"}) {
    EXPECT_EQ(Mode(d / f), 0600u) << f;
  }
  EXPECT_EQ(Mode(d / "redis"), 0700u);
  EXPECT_EQ(Mode(d / "redis/appendonlydir"), 0700u);
  size_t aof_files = 0;
  for (const auto& e : fs::directory_iterator(d / "redis/appendonlydir")) {
    EXPECT_EQ(Mode(e.path()), 0600u) << e.path();
    ++aof_files;
  }
  EXPECT_GE(aof_files, 2u);
  for (const char* f : {"redis.log", "redis.pid", "owner.lock"}) {
    EXPECT_EQ(Mode(d / "redis" / f), 0600u) << f;
  }
  EXPECT_EQ(p->Stop(20s), 0) << Log();
}

// Issue 41, item 13: a data dir an older version left readable by all is tightened at start,
// and the log says what changed.
TEST_F(RedisChildTest, ADataDirFromAnOlderVersionIsTightenedAtStart) {
  const int port = FreeTcpPort();
  {
    auto p = Start(port);
    ASSERT_TRUE(Ready(port)) << Log();
    HttpClient c("127.0.0.1", port);
    ASSERT_EQ(c.Post("/api/v1/users", R"({"username":"alpha","password":"password123"})").status,
              201);
    ASSERT_EQ(p->Stop(20s), 0) << Log();
  }
  const fs::path d = data_dir();
  const auto loose = fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                     fs::perms::others_read;
  const auto loose_dir =
      loose | fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(d)) {
    if (e.is_directory()) {
      fs::permissions(e.path(), loose_dir);
    } else if (e.is_regular_file()) {
      fs::permissions(e.path(), loose);
      files.push_back(e.path());
    }
  }
  fs::permissions(d, loose_dir);
  ASSERT_EQ(Mode(d / "plaudit.db"), 0644u);

  auto p = Start(port);
  ASSERT_TRUE(Ready(port)) << Log();
  EXPECT_EQ(Mode(d), 0700u);
  EXPECT_EQ(Mode(d / "redis"), 0700u);
  EXPECT_EQ(Mode(d / "redis/appendonlydir"), 0700u);
  for (const auto& f : files) {
    if (fs::exists(f)) {
      EXPECT_EQ(Mode(f), 0600u) << f;
    }
  }
  EXPECT_NE(Log().find("plaudit.db from 0644 to 0600"), std::string::npos) << Log();
  HttpClient c("127.0.0.1", port);
  EXPECT_EQ(c.Post("/api/v1/sessions", R"({"username":"alpha","password":"password123"})").status,
            201);
  EXPECT_EQ(p->Stop(20s), 0) << Log();
}

}  // namespace
}  // namespace plaudit::testing
