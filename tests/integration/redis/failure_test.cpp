// The client's failure model against a real redis-server: outages, a hung server, Stop(),
// destruction with commands in flight, connect timeouts.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "fixture.hpp"

namespace plaudit::redis::test {
namespace {

using RedisFailure = RedisTest;

TEST_F(RedisFailure, CommandBeforeStartFailsAtOnce) {
  ClientOptions options;
  options.endpoint = ParseRedisUrl(Server().unix_url()).value();
  auto client = Client::Create(ctx_.get_executor(), options);
  clients_.push_back(client);
  EXPECT_FALSE(client->connected());
  auto r = Do(*client, {"PING"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(r.error().message, "redis unavailable");
}

TEST_F(RedisFailure, FailsFastWhileRedisIsDownThenReconnectsByItself) {
  ClientOptions options;
  options.reconnect_max = 500ms;
  auto client = Connect(Server().unix_url(), options);
  ASSERT_TRUE(Do(*client, {"SET", "before", "1"}));

  Server().Stop();
  auto stopped_at = Clock::now();
  auto r = Do(*client, {"GET", "before"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  RunFor(50ms);
  EXPECT_FALSE(client->connected());
  auto again = Do(*client, {"GET", "before"});
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(again.error().message, "redis unavailable");
  EXPECT_LT(Clock::now() - stopped_at, 2s);

  // Let the reconnect loop fail a few times before Redis comes back.
  RunFor(300ms);
  EXPECT_FALSE(client->connected());
  Server().Start();
  ASSERT_TRUE(Run(client->WaitConnected(10s)));
  auto after = Do(*client, {"SET", "after", "2"});
  ASSERT_TRUE(after);
  EXPECT_EQ(after->str, "OK");
  EXPECT_GE(client->stats().reconnects, 1u);
}

TEST_F(RedisFailure, HungRedisTimesOutAndLateReplyIsDropped) {
  ClientOptions options;
  options.command_timeout = 1000ms;
  auto client = Connect(Server().unix_url(), options);
  ASSERT_TRUE(Do(*client, {"PING"}));
  {
    Frozen frozen(Server().pid());
    auto start = Clock::now();
    auto r = Do(*client, {"ECHO", "late"});
    auto elapsed = Clock::now() - start;
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
    EXPECT_EQ(r.error().message, "redis timeout");
    EXPECT_GE(elapsed, 900ms);
    EXPECT_LT(elapsed, 1500ms);
    EXPECT_EQ(client->stats().timeouts, 1u);
  }
  // The late "late" reply must not be handed to the next caller.
  auto next = Do(*client, {"ECHO", "fresh"});
  ASSERT_TRUE(next);
  EXPECT_EQ(next->str, "fresh");
  EXPECT_TRUE(client->connected());
}

TEST_F(RedisFailure, ManyCommandsTimeOutTogether) {
  ClientOptions options;
  options.command_timeout = 300ms;
  auto client = Connect(Server().unix_url(), options);
  std::vector<std::optional<Result<Reply>>> results;
  {
    Frozen frozen(Server().pid());
    std::vector<std::vector<std::string>> commands;
    for (int i = 0; i < 100; ++i) {
      commands.push_back({"ECHO", std::to_string(i)});
    }
    SpawnCommands(ctx_, *client, commands, results);
    auto start = Clock::now();
    while (CountDone(results) < results.size() && Clock::now() - start < 3s) {
      RunFor(5ms);
    }
    EXPECT_LT(Clock::now() - start, 1s);
  }
  ASSERT_EQ(CountDone(results), 100u);
  for (const auto& r : results) {
    ASSERT_FALSE(*r);
    EXPECT_EQ(r->error().code, ErrorCode::kUnavailable);
  }
  EXPECT_EQ(client->stats().timeouts, 100u);
  EXPECT_EQ(Do(*client, {"ECHO", "ok"})->str, "ok");
}

TEST_F(RedisFailure, StopFailsPendingCommands) {
  auto client = Connect(Server().unix_url());
  std::vector<std::optional<Result<Reply>>> results;
  Frozen frozen(Server().pid());
  SpawnCommands(ctx_, *client, std::vector<std::vector<std::string>>(20, {"PING"}), results);
  RunFor(50ms);  // written, unanswered
  EXPECT_EQ(CountDone(results), 0u);

  client->Stop();
  EXPECT_FALSE(client->connected());
  Drain();
  ASSERT_EQ(CountDone(results), 20u);
  for (const auto& r : results) {
    ASSERT_FALSE(*r);
    EXPECT_EQ(r->error().code, ErrorCode::kUnavailable);
  }
  // Stop() is final.
  client->Start();
  frozen.Thaw();
  RunFor(100ms);
  EXPECT_FALSE(client->connected());
  auto r = Do(*client, {"PING"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_FALSE(Run(client->WaitConnected(100ms)));
}

TEST_F(RedisFailure, DestroyingClientWithPendingCommandsIsSafe) {
  ClientOptions options;
  options.endpoint = ParseRedisUrl(Server().unix_url()).value();
  auto client = Client::Create(ctx_.get_executor(), options);
  client->Start();
  ASSERT_TRUE(Run(client->WaitConnected(10s)));
  std::vector<std::optional<Result<Reply>>> results;
  Frozen frozen(Server().pid());
  SpawnCommands(ctx_, *client, std::vector<std::vector<std::string>>(20, {"PING"}), results);
  RunFor(50ms);
  EXPECT_EQ(CountDone(results), 0u);

  // An awaitable created before destruction but awaited after must fail cleanly too.
  auto orphan = client->Command({"PING"});
  client.reset();
  Drain();
  ASSERT_EQ(CountDone(results), 20u);
  for (const auto& r : results) {
    ASSERT_FALSE(*r);
    EXPECT_EQ(r->error().code, ErrorCode::kUnavailable);
  }
  auto r = Run(std::move(orphan));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  frozen.Thaw();
  RunFor(50ms);  // late replies go to a closed socket; nothing must fire
}

TEST_F(RedisFailure, DestroyingClientWhileReconnectingIsSafe) {
  ClientOptions options;
  options.endpoint = ParseRedisUrl(Server().unix_url()).value();
  options.reconnect_min = 10ms;
  auto client = Client::Create(ctx_.get_executor(), options);
  client->Start();
  ASSERT_TRUE(Run(client->WaitConnected(10s)));
  Server().Stop();
  RunFor(100ms);
  EXPECT_FALSE(client->connected());
  client.reset();
  RunFor(100ms);
}

TEST_F(RedisFailure, ConnectTimeoutRetriesInBackground) {
  // A listener that never accepts: TCP connects, SELECT is never answered.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 64), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);

  ClientOptions options;
  options.endpoint =
      ParseRedisUrl("redis://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/1").value();
  options.connect_timeout = 100ms;
  options.reconnect_min = 10ms;
  options.reconnect_max = 50ms;
  auto client = Client::Create(ctx_.get_executor(), options);
  clients_.push_back(client);
  client->Start();
  auto start = Clock::now();
  EXPECT_FALSE(Run(client->WaitConnected(600ms)));
  EXPECT_FALSE(client->connected());
  auto r = Do(*client, {"PING"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_LT(Clock::now() - start, 2s);
  client->Stop();
  Drain();
  ::close(fd);
}

}  // namespace
}  // namespace plaudit::redis::test
