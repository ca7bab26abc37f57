// The client against a real redis-server: commands, reply types, URLs, pipelining.
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixture.hpp"

namespace plaudit::redis::test {
namespace {

using RedisClient = RedisTest;

TEST_F(RedisClient, SetGetIsBinarySafe) {
  auto client = Connect(Server().unix_url());
  std::string tricky("a\0b\r\n$3\r\n\xff\0", 12);
  std::string big(1 << 20, '\0');
  std::mt19937 rng(42);
  for (auto& c : big) {
    c = static_cast<char>(rng());
  }

  ASSERT_TRUE(Do(*client, {"SET", std::string("k\0ey", 4), tricky}));
  ASSERT_TRUE(Do(*client, {"SET", "big", big}));
  auto got = Do(*client, {"GET", std::string("k\0ey", 4)});
  ASSERT_TRUE(got);
  EXPECT_EQ(got->type, Reply::Type::kString);
  EXPECT_EQ(got->str, tricky);
  auto got_big = Do(*client, {"GET", "big"});
  ASSERT_TRUE(got_big);
  EXPECT_EQ(got_big->str.size(), big.size());
  EXPECT_TRUE(got_big->str == big);
}

TEST_F(RedisClient, ReturnsEveryReplyType) {
  auto client = Connect(Server().unix_url());

  auto status = Do(*client, {"PING"});
  ASSERT_TRUE(status);
  EXPECT_EQ(status->type, Reply::Type::kStatus);
  EXPECT_EQ(status->str, "PONG");

  auto integer = Do(*client, {"INCRBY", "n", "41"});
  ASSERT_TRUE(integer);
  EXPECT_EQ(integer->type, Reply::Type::kInteger);
  EXPECT_EQ(integer->AsInt(), 41);

  auto nil = Do(*client, {"GET", "missing"});
  ASSERT_TRUE(nil);
  EXPECT_TRUE(nil->is_nil());
  EXPECT_EQ(nil->AsInt(), std::nullopt);

  ASSERT_TRUE(Do(*client, {"RPUSH", "list", "x", "12", ""}));
  auto array = Do(*client, {"LRANGE", "list", "0", "-1"});
  ASSERT_TRUE(array);
  ASSERT_EQ(array->type, Reply::Type::kArray);
  ASSERT_EQ(array->elements.size(), 3u);
  EXPECT_EQ(array->elements[0].str, "x");
  EXPECT_EQ(array->elements[1].AsInt(), 12);
  EXPECT_EQ(array->elements[2].str, "");
  EXPECT_EQ(array->elements[0].AsInt(), std::nullopt);

  auto empty = Do(*client, {"LRANGE", "nothing", "0", "-1"});
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->type, Reply::Type::kArray);
  EXPECT_TRUE(empty->elements.empty());

  // A Redis error reply is a reply, not a transport failure.
  auto error = Do(*client, {"INCR", "list"});
  ASSERT_TRUE(error);
  EXPECT_TRUE(error->is_error());
  EXPECT_TRUE(error->str.starts_with("WRONGTYPE")) << error->str;

  auto nested = Do(*client, {"EVAL", "return {1, {'a', false}, 'b'}", "0"});
  ASSERT_TRUE(nested);
  ASSERT_EQ(nested->elements.size(), 3u);
  EXPECT_EQ(nested->elements[0].integer, 1);
  ASSERT_EQ(nested->elements[1].elements.size(), 2u);
  EXPECT_EQ(nested->elements[1].elements[0].str, "a");
  EXPECT_TRUE(nested->elements[1].elements[1].is_nil());
  EXPECT_EQ(nested->elements[2].str, "b");
}

TEST_F(RedisClient, AsIntParsesOnlyWholeDecimalStrings) {
  Reply r;
  r.type = Reply::Type::kString;
  r.str = "-9223372036854775808";
  EXPECT_EQ(r.AsInt(), INT64_MIN);
  for (std::string bad : {"", "12a", " 1", "1.5", "99999999999999999999"}) {
    r.str = bad;
    EXPECT_EQ(r.AsInt(), std::nullopt) << bad;
  }
  r.type = Reply::Type::kStatus;
  r.str = "7";
  EXPECT_EQ(r.AsInt(), std::nullopt);
}

TEST_F(RedisClient, EmptyCommandIsInvalidArgument) {
  auto client = Connect(Server().unix_url());
  auto r = Do(*client, {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(RedisClient, ConcurrentCommandsShareWriteBatches) {
  auto client = Connect(Server().unix_url());
  auto before = client->stats();
  constexpr int kCoroutines = 1000;
  int finished = 0;
  int correct = 0;
  for (int i = 0; i < kCoroutines; ++i) {
    net::co_spawn(
        ctx_,
        [&client, &correct, i]() -> Awaitable<void> {
          // Named argv vectors: GCC 12 miscompiles braced lists inside co_await expressions.
          std::string key = "key:" + std::to_string(i);
          std::vector<std::string> set_argv{"SET", key, "value " + std::to_string(i)};
          std::vector<std::string> incr_argv{"INCR", "counter"};
          std::vector<std::string> get_argv{"GET", key};
          auto set = co_await client->Command(std::move(set_argv));
          auto incr = co_await client->Command(std::move(incr_argv));
          auto get = co_await client->Command(std::move(get_argv));
          if (set && incr && incr->type == Reply::Type::kInteger && get &&
              get->str == "value " + std::to_string(i)) {
            ++correct;
          }
        },
        [&finished](std::exception_ptr) { ++finished; });
  }
  auto deadline = Clock::now() + 30s;
  while (finished < kCoroutines && Clock::now() < deadline) {
    RunFor(5ms);
  }
  ASSERT_EQ(finished, kCoroutines);
  EXPECT_EQ(correct, kCoroutines);
  EXPECT_EQ(Do(*client, {"GET", "counter"})->AsInt(), kCoroutines);

  auto after = client->stats();
  uint64_t sent = after.commands_sent - before.commands_sent;
  uint64_t batches = after.batches_flushed - before.batches_flushed;
  EXPECT_GE(sent, 3u * kCoroutines);
  EXPECT_LT(batches, sent / 10) << sent << " commands in " << batches << " batches";
}

// eager_flush_requests: a burst of commands from many coroutines in one loop turn leaves in
// writes of that many commands (Redis starts on the first ones while the rest are still being
// produced); 0 keeps the whole burst in one end-of-turn write. Replies still pair up with
// their callers, and one Pipeline() always leaves in a single write.
TEST_F(RedisClient, EagerFlushSplitsABurstButNeverAPipeline) {
  constexpr int kBurst = 100;
  for (size_t eager : {size_t{0}, size_t{10}}) {
    ClientOptions options;
    options.eager_flush_requests = eager;
    auto client = Connect(Server().unix_url(), options);
    auto before = client->stats();
    int finished = 0;
    int correct = 0;
    for (int i = 0; i < kBurst; ++i) {
      net::co_spawn(
          ctx_,
          [&client, &correct, i, eager]() -> Awaitable<void> {
            std::vector<std::string> argv{"ECHO", std::to_string(eager) + ":" + std::to_string(i)};
            auto r = co_await client->Command(std::move(argv));
            if (r && r->str == std::to_string(eager) + ":" + std::to_string(i)) {
              ++correct;
            }
          },
          [&finished](std::exception_ptr) { ++finished; });
    }
    auto deadline = Clock::now() + 30s;
    while (finished < kBurst && Clock::now() < deadline) {
      RunFor(5ms);
    }
    ASSERT_EQ(finished, kBurst);
    EXPECT_EQ(correct, kBurst);
    auto after = client->stats();
    uint64_t batches = after.batches_flushed - before.batches_flushed;
    EXPECT_EQ(after.commands_sent - before.commands_sent, uint64_t{kBurst});
    if (eager == 0) {
      EXPECT_LE(batches, 2u) << "a burst in one loop turn should leave together";
    } else {
      // 10 eager writes of 10; at most one more for a remainder.
      EXPECT_GE(batches, uint64_t{kBurst} / eager);
      EXPECT_LE(batches, uint64_t{kBurst} / eager + 1);
    }

    std::vector<std::vector<std::string>> many;
    for (int i = 0; i < 40; ++i) {
      many.push_back({"ECHO", std::to_string(i)});
    }
    auto mid = client->stats();
    auto replies = Run(client->Pipeline(std::move(many)));
    ASSERT_TRUE(replies);
    ASSERT_EQ(replies->size(), 40u);
    EXPECT_EQ((*replies)[39].str, "39");
    EXPECT_EQ(client->stats().batches_flushed - mid.batches_flushed, 1u);
  }
}

// The adapter hands hiredis's reader each read 2 KiB at a time (asio_adapter.cpp): replies
// of every size, split across those pieces and across reads, come back whole and in order.
TEST_F(RedisClient, RepliesSpanningReadPiecesArriveWholeAndInOrder) {
  auto client = Connect(Server().unix_url());
  std::mt19937 rng(7);
  std::vector<std::string> values;
  std::vector<std::vector<std::string>> sets;
  std::vector<std::vector<std::string>> gets;
  for (int i = 0; i < 400; ++i) {
    // 0 B to ~6 KiB, so replies start and end anywhere in a 2 KiB piece and a 16 KiB read.
    std::string v(static_cast<size_t>(rng() % 6000), '\0');
    for (auto& c : v) {
      c = static_cast<char>(rng());
    }
    sets.push_back({"SET", "span:" + std::to_string(i), v});
    gets.push_back({"GET", "span:" + std::to_string(i)});
    gets.push_back({"ECHO", std::to_string(i)});  // small replies between the big ones
    values.push_back(std::move(v));
  }
  auto set = Run(client->Pipeline(std::move(sets)));
  ASSERT_TRUE(set);
  auto got = Run(client->Pipeline(std::move(gets)));
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), 2 * values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ((*got)[2 * i].type, Reply::Type::kString) << i;
    EXPECT_TRUE((*got)[2 * i].str == values[i]) << "value " << i << " differs";
    EXPECT_EQ((*got)[2 * i + 1].str, std::to_string(i));
  }
}

TEST_F(RedisClient, PipelineReturnsRepliesInOrder) {
  auto client = Connect(Server().unix_url());
  auto before = client->stats();
  auto replies = Run(client->Pipeline({{"SET", "p", "1"},
                                       {"INCR", "p"},
                                       {"GET", "p"},
                                       {"LPUSH", "p", "x"},
                                       {"GET", "nope"},
                                       {"ECHO", "last"}}));
  ASSERT_TRUE(replies);
  ASSERT_EQ(replies->size(), 6u);
  EXPECT_EQ((*replies)[0].str, "OK");
  EXPECT_EQ((*replies)[1].integer, 2);
  EXPECT_EQ((*replies)[2].str, "2");
  EXPECT_TRUE((*replies)[3].is_error());
  EXPECT_TRUE((*replies)[4].is_nil());
  EXPECT_EQ((*replies)[5].str, "last");
  auto after = client->stats();
  EXPECT_EQ(after.commands_sent - before.commands_sent, 6u);
  EXPECT_EQ(after.batches_flushed - before.batches_flushed, 1u);

  auto none = Run(client->Pipeline({}));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  auto bad = Run(client->Pipeline({{"PING"}, {}}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
}

TEST_F(RedisClient, AFramedPipelineIsAnsweredAsTheSameArgvPipeline) {
  auto client = Connect(Server().unix_url());
  ASSERT_TRUE(Do(*client, {"HSET", "h1", "a", "1", "b", "2"}));
  ASSERT_TRUE(Do(*client, {"HSET", "h2", "b", std::string("x\0\r\ny", 5)}));
  std::vector<std::string> seen;
  client->SetLatencyObserver(
      [&seen](std::string_view command, double) { seen.emplace_back(command); });
  const std::vector<std::string> fields{"a", "b", "c"};
  const std::string framed = FrameArgs(fields);
  FramedCommands cmds;
  for (const char* key : {"h1", "h2", "none"}) {
    cmds.Begin("HMGET", 2 + fields.size());
    cmds.Arg(key);
    cmds.Framed(framed);
    cmds.End();
  }
  cmds.Begin("ECHO", 2);
  cmds.Arg("");
  cmds.End();
  auto before = client->stats();
  auto framed_replies = Run(client->PipelineFramed(std::move(cmds)));
  auto after = client->stats();
  auto argv_replies = Run(client->Pipeline({{"HMGET", "h1", "a", "b", "c"},
                                            {"HMGET", "h2", "a", "b", "c"},
                                            {"HMGET", "none", "a", "b", "c"},
                                            {"ECHO", ""}}));
  ASSERT_TRUE(framed_replies);
  ASSERT_TRUE(argv_replies);
  ASSERT_EQ(framed_replies->size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const Reply& f = (*framed_replies)[i];
    const Reply& a = (*argv_replies)[i];
    EXPECT_EQ(f.type, a.type) << i;
    EXPECT_EQ(f.str, a.str) << i;
    ASSERT_EQ(f.elements.size(), a.elements.size()) << i;
    for (size_t j = 0; j < f.elements.size(); ++j) {
      EXPECT_EQ(f.elements[j].is_nil(), a.elements[j].is_nil()) << i << "." << j;
      EXPECT_EQ(f.elements[j].str, a.elements[j].str) << i << "." << j;
    }
  }
  EXPECT_EQ((*framed_replies)[1].elements[1].str, std::string("x\0\r\ny", 5));
  EXPECT_EQ(after.commands_sent - before.commands_sent, 4u);
  EXPECT_EQ(after.batches_flushed - before.batches_flushed, 1u);
  EXPECT_EQ(seen, (std::vector<std::string>{"HMGET", "HMGET", "HMGET", "ECHO", "HMGET", "HMGET",
                                            "HMGET", "ECHO"}));
  auto none = Run(client->PipelineFramed(FramedCommands{}));
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST_F(RedisClient, TcpUrlSelectsDatabase) {
  auto client = Connect(Server().tcp_url() + "/3");
  ASSERT_TRUE(Do(*client, {"SET", "where", "db3"}));
  EXPECT_EQ(Server().Cli("-n 3 GET where"), "db3");
  EXPECT_EQ(Server().Cli("-n 0 EXISTS where"), "0");

  auto db0 = Connect(Server().tcp_url());
  EXPECT_TRUE(Do(*db0, {"GET", "where"})->is_nil());
}

TEST_F(RedisClient, UnixUrlSelectsDatabase) {
  auto client = Connect(Server().unix_url() + "?db=5");
  ASSERT_TRUE(Do(*client, {"SET", "where", "db5"}));
  EXPECT_EQ(Server().Cli("-n 5 GET where"), "db5");

  auto db0 = Connect(Server().unix_url());
  ASSERT_TRUE(Do(*db0, {"SET", "where", "db0"}));
  EXPECT_EQ(Server().Cli("-n 0 GET where"), "db0");
  EXPECT_EQ(Do(*client, {"GET", "where"})->str, "db5");
}

TEST_F(RedisClient, BadSelectNeverConnects) {
  ClientOptions options;
  options.endpoint = ParseRedisUrl(Server().tcp_url() + "/100000").value();
  auto client = Client::Create(ctx_.get_executor(), options);
  clients_.push_back(client);
  client->Start();
  EXPECT_FALSE(Run(client->WaitConnected(500ms)));
  EXPECT_FALSE(client->connected());
  auto r = Do(*client, {"PING"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
}

// Client::Create takes a parsed endpoint: an unsupported URL never gets that far
// (config::Parse stops plauditd at start-up with the parser's message).
TEST(RedisUrl, RejectsUnsupportedUrls) {
  for (const char* url : {"http://127.0.0.1:6379", "redis://127.0.0.1:6379/x",
                          "redis://:secret@127.0.0.1:6379", "not a url", "unix://"}) {
    auto parsed = ParseRedisUrl(url);
    ASSERT_FALSE(parsed) << url;
    EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument) << url;
  }
  EXPECT_TRUE(ParseRedisUrl("redis://127.0.0.1"));
  EXPECT_TRUE(ParseRedisUrl("unix:///tmp/redis.sock?db=2"));
}

TEST_F(RedisClient, ReportsLatencyPerCommand) {
  auto client = Connect(Server().unix_url());
  std::vector<std::pair<std::string, double>> seen;
  client->SetLatencyObserver([&seen](std::string_view command, double seconds) {
    seen.emplace_back(std::string(command), seconds);
  });
  ASSERT_TRUE(Do(*client, {"SET", "a", "1"}));
  ASSERT_TRUE(Run(client->Pipeline({{"GET", "a"}, {"INCR", "a"}})));
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].first, "SET");
  EXPECT_EQ(seen[1].first, "GET");
  EXPECT_EQ(seen[2].first, "INCR");
  for (const auto& [name, seconds] : seen) {
    EXPECT_GE(seconds, 0.0);
    EXPECT_LT(seconds, 1.0);
  }
}

}  // namespace
}  // namespace plaudit::redis::test
