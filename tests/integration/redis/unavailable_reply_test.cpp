// Issue 41, item 8: replies that say the server cannot serve now (LOADING while a restarted
// Redis reads its data, BUSY while a script runs past its time limit) fail the call as
// kUnavailable, like a dropped connection, instead of reaching callers as error replies that
// they reported as internal errors (a 500 naming the reply).
#include <filesystem>

#include "fixture.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::redis::test {
namespace {

using plaudit::testing::Process;
using plaudit::testing::WaitFor;

using UnavailableReplyTest = RedisTest;

TEST_F(UnavailableReplyTest, ABusyScriptFailsCallsAsUnavailable) {
  auto client = Connect(Server().unix_url());
  ASSERT_EQ(Server().Cli("CONFIG SET busy-reply-threshold 100"), "OK");
  plaudit::testing::TempDir logs{"plaudit-busy"};
  Process script({"redis-cli", "-s", Server().socket_path(), "EVAL", "while true do end", "0"},
                 (logs.path() / "script.log").string());
  std::optional<Error> failed;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto r = Do(*client, {"PING"});
        if (r && r->is_error()) {
          failed = Error{ErrorCode::kInternal, "an error reply: " + r->str};
        }
        if (!r) {
          failed = r.error();
        }
        return failed.has_value();
      },
      10s));
  EXPECT_EQ(failed->code, ErrorCode::kUnavailable) << failed->message;
  EXPECT_EQ(failed->message, "redis unavailable (busy running a script); retry");
  // A pipeline and a script call fail alike.
  std::vector<std::vector<std::string>> two{{"SET", "k", "v"}, {"GET", "k"}};
  auto piped = Run(client->Pipeline(std::move(two)));
  ASSERT_FALSE(piped);
  EXPECT_EQ(piped.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(Server().Cli("SCRIPT KILL"), "OK");
  script.Wait(10s);
  ASSERT_EQ(Server().Cli("CONFIG SET busy-reply-threshold 5000"), "OK");
  auto after = Do(*client, {"PING"});
  ASSERT_TRUE(after);
  EXPECT_EQ(after->str, "PONG");  // the connection was kept
}

TEST_F(UnavailableReplyTest, ALoadingRedisFailsCallsAsUnavailable) {
  // Its own server: loading slowed to ~1 s (200 µs a key), serving clients while it loads.
  plaudit::testing::RedisServer slow({"--enable-debug-command", "local", "--key-load-delay", "200",
                                      "--loading-process-events-interval-bytes", "1024"});
  auto client = Connect(slow.unix_url());
  ASSERT_EQ(slow.Cli("DEBUG POPULATE 5000"), "OK");
  plaudit::testing::TempDir logs{"plaudit-loading"};
  Process reload({"redis-cli", "-s", slow.socket_path(), "DEBUG", "RELOAD"},
                 (logs.path() / "reload.log").string());
  std::optional<Error> failed;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto r = Do(*client, {"GET", "key:1"});
        if (r && r->is_error()) {
          failed = Error{ErrorCode::kInternal, "an error reply: " + r->str};
        }
        if (!r) {
          failed = r.error();
        }
        return failed.has_value();
      },
      10s));
  EXPECT_EQ(failed->code, ErrorCode::kUnavailable) << failed->message;
  EXPECT_EQ(failed->message, "redis unavailable (loading its data); retry");
  EXPECT_EQ(reload.Wait(30s).value_or(-1), 0);
  auto after = Do(*client, {"GET", "key:1"});
  ASSERT_TRUE(after);
  EXPECT_EQ(after->str, "value:1");
}

TEST(UnavailableReply, OnlyTheseErrorCodesAndNotTheirNamesakes) {
  auto error = [](std::string text) {
    Reply r;
    r.type = Reply::Type::kError;
    r.str = std::move(text);
    return r;
  };
  EXPECT_TRUE(UnavailableReply(error("LOADING Redis is loading the dataset in memory")));
  EXPECT_TRUE(UnavailableReply(error("BUSY Redis is busy running a script.")));
  EXPECT_TRUE(UnavailableReply(error("MASTERDOWN Link with MASTER is down")));
  EXPECT_FALSE(UnavailableReply(error("BUSYKEY Target key name already exists.")));
  EXPECT_FALSE(UnavailableReply(error("BUSYGROUP Consumer Group name already exists")));
  EXPECT_FALSE(UnavailableReply(error("WRONGTYPE Operation against a key")));
  Reply ok;
  ok.type = Reply::Type::kStatus;
  ok.str = "LOADING";
  EXPECT_FALSE(UnavailableReply(ok));
  // ReplyOk, for the callers that check replies themselves.
  const Result<Reply> loading = error("LOADING Redis is loading the dataset in memory");
  ASSERT_FALSE(ReplyOk(loading));
  EXPECT_EQ(ReplyOk(loading).error().code, ErrorCode::kUnavailable);
  const Result<Reply> wrong = error("WRONGTYPE Operation against a key");
  EXPECT_EQ(ReplyOk(wrong).error().code, ErrorCode::kInternal);
}

}  // namespace
}  // namespace plaudit::redis::test
