// Lua scripts: embedded files, EVALSHA with SCRIPT LOAD on first use and after NOSCRIPT.
#include "redis/script.hpp"

#include <stdexcept>
#include <string>

#include "common/embedded.hpp"
#include "fixture.hpp"

namespace plaudit::redis::test {
namespace {

using RedisScript = RedisTest;

TEST_F(RedisScript, EmbeddedScriptsAreFoundByFileName) {
  const Script& ping = GetScript("ping.lua");
  EXPECT_EQ(ping.name, "ping.lua");
  EXPECT_NE(ping.source.find("return ARGV[1]"), std::string::npos);
  EXPECT_EQ(&ping, &GetScript("ping.lua"));
  EXPECT_THROW(GetScript("no-such-script.lua"), std::out_of_range);
}

// Every script Redis may be sent compiles there (a syntax error otherwise shows only when a
// write's cache step first needs the script, as a failed step repaired later).
TEST_F(RedisScript, EveryEmbeddedScriptCompiles) {
  auto client = Connect(Server().unix_url());
  int loaded = 0;
  for (const auto& f : lua::Files()) {
    if (f.name.starts_with("lib_")) {
      continue;  // spliced into others, not sent alone
    }
    auto r = Run(client->Command({"SCRIPT", "LOAD", GetScript(f.name).source}));
    ASSERT_TRUE(r) << f.name;
    EXPECT_NE(r->type, Reply::Type::kError) << f.name << ": " << r->str;
    ++loaded;
  }
  EXPECT_GT(loaded, 20);
}

TEST_F(RedisScript, EvalLoadsOnceThenUsesEvalsha) {
  auto client = Connect(Server().unix_url());
  const Script& ping = GetScript("ping.lua");
  auto before = client->stats();
  auto first = Run(client->Eval(ping, {}, {"hello"}));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->str, "hello");
  EXPECT_EQ(client->stats().commands_sent - before.commands_sent, 2u);  // SCRIPT LOAD, EVALSHA

  auto second = Run(client->Eval(ping, {}, {std::string("bin\0ary", 7)}));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->str, std::string("bin\0ary", 7));
  EXPECT_EQ(client->stats().commands_sent - before.commands_sent, 3u);
}

TEST_F(RedisScript, EvalPassesKeysAndArgs) {
  auto client = Connect(Server().unix_url());
  Script incr("incr_test.lua", "return redis.call('INCRBY', KEYS[1], ARGV[1]) + #KEYS");
  auto r = Run(client->Eval(incr, {"{t}:n", "{t}:other"}, {"40"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->type, Reply::Type::kInteger);
  EXPECT_EQ(r->integer, 42);
  EXPECT_EQ(Server().Cli("GET {t}:n"), "40");

  // A script error is an error reply, not a transport failure.
  Script broken("broken_test.lua", "return redis.call('NOPE')");
  auto err = Run(client->Eval(broken, {}, {}));
  ASSERT_TRUE(err);
  EXPECT_TRUE(err->is_error());
}

TEST_F(RedisScript, SameNameDifferentSourceIsNotConfused) {
  auto client = Connect(Server().unix_url());
  Script a("same.lua", "return 'a'");
  Script b("same.lua", "return 'b'");
  EXPECT_EQ(Run(client->Eval(a, {}, {}))->str, "a");
  EXPECT_EQ(Run(client->Eval(b, {}, {}))->str, "b");
  EXPECT_EQ(Run(client->Eval(a, {}, {}))->str, "a");
}

TEST_F(RedisScript, EvalSurvivesScriptFlush) {
  auto client = Connect(Server().unix_url());
  const Script& ping = GetScript("ping.lua");
  ASSERT_EQ(Run(client->Eval(ping, {}, {"one"}))->str, "one");
  EXPECT_EQ(Server().Cli("SCRIPT FLUSH"), "OK");

  auto before = client->stats();
  auto r = Run(client->Eval(ping, {}, {"two"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->str, "two");
  // EVALSHA -> NOSCRIPT, SCRIPT LOAD, EVALSHA.
  EXPECT_EQ(client->stats().commands_sent - before.commands_sent, 3u);
}

TEST_F(RedisScript, EvalSurvivesRedisRestart) {
  ClientOptions options;
  options.reconnect_max = 200ms;
  auto client = Connect(Server().unix_url(), options);
  const Script& ping = GetScript("ping.lua");
  ASSERT_EQ(Run(client->Eval(ping, {}, {"before"}))->str, "before");

  Server().Stop();
  auto down = Run(client->Eval(ping, {}, {"down"}));
  ASSERT_FALSE(down);
  EXPECT_EQ(down.error().code, ErrorCode::kUnavailable);

  Server().Start();  // empty script cache
  ASSERT_TRUE(Run(client->WaitConnected(10s)));
  auto r = Run(client->Eval(ping, {}, {"after"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->str, "after");
}

TEST_F(RedisScript, ConcurrentFirstEvalsAllSucceed) {
  auto client = Connect(Server().unix_url());
  const Script& ping = GetScript("ping.lua");
  constexpr int kCalls = 50;
  int ok = 0;
  int finished = 0;
  for (int i = 0; i < kCalls; ++i) {
    net::co_spawn(
        ctx_,
        [&client, &ping, &ok, i]() -> Awaitable<void> {
          std::vector<std::string> args{std::to_string(i)};  // GCC 12: no braced list in co_await
          auto r = co_await client->Eval(ping, {}, std::move(args));
          if (r && r->str == std::to_string(i)) {
            ++ok;
          }
        },
        [&finished](std::exception_ptr) { ++finished; });
  }
  auto deadline = Clock::now() + 10s;
  while (finished < kCalls && Clock::now() < deadline) {
    RunFor(5ms);
  }
  EXPECT_EQ(finished, kCalls);
  EXPECT_EQ(ok, kCalls);
}

}  // namespace
}  // namespace plaudit::redis::test
