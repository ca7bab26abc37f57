// The cluster client (redis-cluster://) against a real 3-primary Redis Cluster: routing by
// slot, batches split between nodes and put back in order, scripts on every node, MOVED after
// a slot moved, ASK and TRYAGAIN while one moves (scripts waiting it out), SCAN of every primary,
// and a primary that fails over while the client runs.
#include "redis/client/cluster_client.hpp"

#include <map>
#include <set>

#include "fixture.hpp"
#include "redis/client/cluster_slots.hpp"
#include "redis/client/resp.hpp"
#include "redis/client/scan.hpp"
#include "redis/client/subscriber.hpp"
#include "support/redis_cluster.hpp"

namespace plaudit::redis::test {
namespace {

using plaudit::testing::RedisCluster;

RedisCluster& Cluster() {
  static RedisCluster cluster(3, 0);
  return cluster;
}

class RedisClusterClient : public RedisTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(Cluster().WaitHealthy());
    Cluster().FlushAll();
  }

  std::shared_ptr<Client> ConnectCluster(ClientOptions options = {}) {
    return Connect(Cluster().url(), options);
  }

  static std::string Key(int i) { return "k" + std::to_string(i); }
  // A key of each primary.
  static std::map<size_t, std::string> KeyPerPrimary() {
    std::map<size_t, std::string> out;
    for (int i = 0; out.size() < Cluster().Primaries().size(); ++i) {
      out.emplace(Cluster().OwnerOf(cluster::KeySlot(Key(i))), Key(i));
    }
    return out;
  }
};

TEST_F(RedisClusterClient, RoutesEachKeyToItsPrimaryAndKeepsBatchOrder) {
  auto client = ConnectCluster();
  std::vector<std::vector<std::string>> sets;
  for (int i = 0; i < 300; ++i) {
    sets.push_back({"SET", Key(i), "v" + std::to_string(i)});
  }
  auto set = Run(client->Pipeline(std::move(sets)));
  ASSERT_TRUE(set);
  for (const auto& r : *set) {
    ASSERT_EQ(r.str, "OK") << r.str;
  }
  // Every primary holds a share: the batch was split between them.
  for (size_t p : Cluster().Primaries()) {
    EXPECT_GT(std::stoi(Cluster().node(p).Cli("DBSIZE")), 50) << "primary " << p;
  }
  // Interleaved reads and writes of keys on all nodes come back in the batch's order.
  std::vector<std::vector<std::string>> mixed;
  for (int i = 0; i < 300; ++i) {
    mixed.push_back({"GET", Key(i)});
    mixed.push_back({"INCR", "n" + std::to_string(i)});
  }
  auto got = Run(client->Pipeline(std::move(mixed)));
  ASSERT_TRUE(got);
  ASSERT_EQ(got->size(), 600u);
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ((*got)[2 * i].str, "v" + std::to_string(i));
    EXPECT_EQ((*got)[2 * i + 1].integer, 1);
  }
  // Framed by the caller (a comment page's HMGETs): the same.
  FramedCommands framed;
  for (int i = 299; i >= 0; --i) {
    framed.Begin("GET", 2);
    framed.Arg(Key(i));
    framed.End();
  }
  auto f = Run(client->PipelineFramed(std::move(framed)));
  ASSERT_TRUE(f);
  ASSERT_EQ(f->size(), 300u);
  for (int i = 0; i < 300; ++i) {
    EXPECT_EQ((*f)[i].str, "v" + std::to_string(299 - i));
  }
  // One command, and one of no key.
  EXPECT_EQ(Do(*client, {"GET", Key(7)})->str, "v7");
  EXPECT_EQ(Do(*client, {"PING"})->str, "PONG");
  // A multi-key command across slots is Redis's to refuse, as on any cluster.
  auto cross = Do(*client, {"MGET", Key(0), Key(1)});
  ASSERT_TRUE(cross);
  EXPECT_TRUE(cross->str.starts_with("CROSSSLOT")) << cross->str;
}

TEST_F(RedisClusterClient, RunsScriptsOnEveryNodeAndLoadsThemAgainAfterScriptFlush) {
  auto client = ConnectCluster();
  static const Script incr("test_incr.lua", "return redis.call('INCR', KEYS[1])");
  const auto keys = KeyPerPrimary();
  ASSERT_EQ(keys.size(), 3u);
  for (const auto& [node, key] : keys) {
    auto r = Run(client->Eval(incr, {key}, {}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->integer, 1) << r->str;
  }
  for (const auto& [node, key] : keys) {
    Cluster().node(node).Cli("SCRIPT FLUSH");
  }
  const uint64_t loads = client->stats().script_loads;
  for (const auto& [node, key] : keys) {
    auto r = Run(client->Eval(incr, {key}, {}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->integer, 2) << r->str;
  }
  EXPECT_EQ(client->stats().script_loads, loads + 3);  // one NOSCRIPT, one load per node
}

TEST_F(RedisClusterClient, FollowsMovedWhenASlotHasMovedAndRoutesThereAfter) {
  auto client = ConnectCluster();
  const std::string key = "moving";
  ASSERT_EQ(Do(*client, {"SET", key, "here"})->str, "OK");
  const int slot = cluster::KeySlot(key);
  const size_t from = Cluster().OwnerOf(slot);
  const size_t to =
      Cluster().Primaries()[0] == from ? Cluster().Primaries()[1] : Cluster().Primaries()[0];
  const uint64_t generation = client->stats().reconnects;
  Cluster().MoveSlot(slot, to);
  // The client's map still names the old owner: MOVED, then the new one.
  auto r = Do(*client, {"GET", key});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->str, "here");
  EXPECT_GT(client->stats().reconnects, generation) << "a slot changing hands is a new generation";
  // Noted at once: the next command goes straight there (one command sent, no redirection).
  const uint64_t sent = client->stats().commands_sent;
  EXPECT_EQ(Do(*client, {"GET", key})->str, "here");
  EXPECT_EQ(client->stats().commands_sent, sent + 1);
  // A batch with it in is redirected too, the rest unharmed.
  auto batch = Run(client->Pipeline({{"SET", "other", "x"}, {"GET", key}, {"GET", "other"}}));
  ASSERT_TRUE(batch);
  EXPECT_EQ((*batch)[1].str, "here");
  EXPECT_EQ((*batch)[2].str, "x");
  Cluster().MoveSlot(slot, from);  // as it was
  EXPECT_EQ(Do(*client, {"GET", key})->str, "here");
}

// Commands follow ASK; scripts and split multi-key commands wait until the slot has moved.
TEST_F(RedisClusterClient, FollowsAskWhileASlotMigratesAndRetriesTryAgainUntilItEnds) {
  ClientOptions o;
  o.command_timeout = std::chrono::milliseconds(400);
  auto client = ConnectCluster(o);
  // A script that touches a key it was not given (as like_set.lua builds keys from its
  // first key's tag): it must run wholly on one node, never during the migration.
  static const Script get("test_get.lua",
                          "redis.call('INCR', '{mig}runs') return redis.call('GET', KEYS[1])");
  const std::vector<std::string> keys = {"{mig}a", "{mig}b", "{mig}c"};
  for (const auto& k : keys) {
    ASSERT_EQ(Do(*client, {"SET", k, "v" + k})->str, "OK");
  }
  const int slot = cluster::KeySlot(keys[0]);
  const size_t from = Cluster().OwnerOf(slot);
  const size_t to =
      Cluster().Primaries()[0] == from ? Cluster().Primaries()[1] : Cluster().Primaries()[0];
  Cluster().BeginMove(slot, to);
  Cluster().MoveKeys(slot, to, 1);  // one key has left, two have not
  for (const auto& k : keys) {
    auto r = Do(*client, {"GET", k});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->str, "v" + k);
    // A script waits the migration out, whether its key is still at the source or not.
    auto s = Run(client->Eval(get, {k}, {}));
    ASSERT_FALSE(s) << k << ": " << s->str;
    EXPECT_EQ(s.error().code, ErrorCode::kUnavailable) << s.error().message;
  }
  // A new key of the slot is made where the slot is going.
  ASSERT_EQ(Do(*client, {"SET", "{mig}new", "n"})->str, "OK");
  EXPECT_EQ(Cluster().node(to).Cli("CLUSTER COUNTKEYSINSLOT " + std::to_string(slot)), "2");
  // Keys split between the two nodes: TRYAGAIN until the command timeout, then unavailable.
  auto split = Do(*client, {"MGET", keys[0], keys[1], keys[2]});
  ASSERT_FALSE(split);
  EXPECT_EQ(split.error().code, ErrorCode::kUnavailable) << split.error().message;
  // ...or the answer, once the migration has ended within it.
  auto later =
      net::co_spawn(ctx_, client->Command({"MGET", keys[0], keys[1], keys[2]}), net::use_future);
  auto later_script = net::co_spawn(ctx_, client->Eval(get, {keys[1]}, {}), net::use_future);
  RunFor(std::chrono::milliseconds(50));
  Cluster().MoveKeys(slot, to);
  Cluster().FinishMove(slot, to);
  while (later.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    RunFor(5ms);
  }
  auto all = later.get();
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->elements.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(all->elements[i].str, "v" + keys[i]);
  }
  while (later_script.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    RunFor(5ms);
  }
  auto ran = later_script.get();
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_EQ(ran->str, "v" + keys[1]);
  // It ran once, at the slot's new owner; the old one holds nothing of the slot (a copy there
  // would stop the next migration: MIGRATE does not overwrite), and no guard key exists.
  EXPECT_EQ(Cluster().node(to).Cli("GET {mig}runs"), "1");
  EXPECT_EQ(Cluster().node(from).Cli("CLUSTER COUNTKEYSINSLOT " + std::to_string(slot)), "0");
  EXPECT_EQ(Cluster().node(to).Cli("EXISTS " + cluster::SlotGuardKey(keys[1])), "0");
  Cluster().MoveSlot(slot, from);
}

TEST_F(RedisClusterClient, ScansEveryPrimary) {
  auto client = ConnectCluster();
  std::vector<std::vector<std::string>> sets;
  for (int i = 0; i < 500; ++i) {
    sets.push_back({"SET", "scan:" + std::to_string(i), "x"});
  }
  ASSERT_TRUE(Run(client->Pipeline(std::move(sets))));
  std::set<std::string> seen;
  std::function<Awaitable<Status>(std::vector<std::string>)> collect =
      [&seen](std::vector<std::string> keys) -> Awaitable<Status> {
    seen.insert(keys.begin(), keys.end());
    co_return Status{};
  };
  ASSERT_TRUE(Run(ScanKeys(*client, "scan:*", std::move(collect))));
  EXPECT_EQ(seen.size(), 500u);
  std::function<bool(std::string_view)> odd = [](std::string_view k) { return k.back() % 2 == 1; };
  ASSERT_TRUE(Run(UnlinkMatching(*client, "scan:*", std::move(odd))));
  int left = 0;
  for (size_t p : Cluster().Primaries()) {
    left += std::stoi(Cluster().node(p).Cli("DBSIZE"));
  }
  EXPECT_EQ(left, 250);
}

// Sharded pub/sub: every subscriber of a channel on the primary of its slot, where SPUBLISH
// counts them all; when the slot moves, Redis ends their subscription and they follow.
TEST_F(RedisClusterClient, ShardChannelSubscribersFollowTheirSlot) {
  auto client = ConnectCluster();
  const std::string channel = "pl:test:channel";
  const int slot = cluster::KeySlot(channel);
  EXPECT_TRUE(client->ShardedPubSub());
  EXPECT_EQ(client->PubSubEndpoint(channel).port, Cluster().node(Cluster().OwnerOf(slot)).port());
  std::vector<std::string> got;
  int ups = 0, downs = 0;
  auto sub = Subscriber::Create(ctx_.get_executor(),
                                [&] { return client->PubSubEndpoint(channel); }, channel, true,
                                {[&](std::string_view m) { got.emplace_back(m); },
                                 [&](bool up) { (up ? ups : downs) += 1; }});
  sub->Start();
  for (auto until = Clock::now() + 5s; !sub->subscribed() && Clock::now() < until;) {
    RunFor(5ms);
  }
  ASSERT_TRUE(sub->subscribed());
  auto n = Do(*client, {"SPUBLISH", channel, "one"});
  ASSERT_TRUE(n);
  EXPECT_EQ(n->integer, 1) << "SPUBLISH counts the subscriber";
  for (auto until = Clock::now() + 2s; got.size() < 1 && Clock::now() < until;) {
    RunFor(5ms);
  }
  EXPECT_EQ(got, std::vector<std::string>{"one"});
  // The slot moves: Redis ends the subscription (sunsubscribe), the subscriber says so and
  // subscribes again on the new owner, where SPUBLISH counts it again.
  const size_t from = Cluster().OwnerOf(slot);
  const size_t to =
      Cluster().Primaries()[0] == from ? Cluster().Primaries()[1] : Cluster().Primaries()[0];
  Cluster().MoveSlot(slot, to);
  for (auto until = Clock::now() + 2s; downs < 1 && Clock::now() < until;) {
    RunFor(5ms);
  }
  EXPECT_EQ(downs, 1);
  ASSERT_TRUE(Run(client->Command({"GET", channel})));  // MOVED: the client learns the move
  for (auto until = Clock::now() + 10s; ups < 2 && Clock::now() < until;) {
    RunFor(5ms);
  }
  ASSERT_EQ(ups, 2);
  auto again = Do(*client, {"SPUBLISH", channel, "two"});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->integer, 1);
  for (auto until = Clock::now() + 2s; got.size() < 2 && Clock::now() < until;) {
    RunFor(5ms);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"one", "two"}));
  sub->Stop();
  Cluster().MoveSlot(slot, from);
}

// A primary dies: its commands fail at once (no hang), the others' go on; once the cluster
// has promoted its replica, they succeed again without a new client, in a new generation.
TEST(RedisClusterFailover, APrimaryThatFailsOverIsFollowedWithoutARestart) {
  RedisCluster cluster(3, 1);
  net::io_context ctx;
  ClientOptions o;
  o.endpoint = ParseRedisUrl(cluster.url()).value();
  auto client = Client::Create(ctx.get_executor(), o);
  client->Start();
  auto run = [&ctx](auto aw) {
    auto f = net::co_spawn(ctx, std::move(aw), net::use_future);
    while (f.wait_for(0s) != std::future_status::ready) {
      ctx.run_for(5ms);
    }
    return f.get();
  };
  ASSERT_TRUE(run(client->WaitConnected(10s)));
  std::map<size_t, std::string> keys;
  for (int i = 0; keys.size() < 3; ++i) {
    keys.emplace(cluster.OwnerOf(cluster::KeySlot("f" + std::to_string(i))),
                 "f" + std::to_string(i));
  }
  for (const auto& [node, key] : keys) {
    ASSERT_EQ(run(client->Command({"SET", key, "1"}))->str, "OK");
  }
  const auto [victim, lost_key] = *keys.begin();
  const std::string other_key = std::next(keys.begin())->second;
  const uint64_t generation = client->stats().reconnects;
  cluster.node(victim).Stop();
  const auto died = Clock::now();
  auto down = run(client->Command({"GET", lost_key}));
  EXPECT_FALSE(down && down->str == "1") << "a stopped primary answered";
  EXPECT_LT(Clock::now() - died, 2s) << "a dead node's command must fail fast";
  EXPECT_EQ(run(client->Command({"GET", other_key}))->str, "1");
  // Until the replica is promoted (node timeout 1 s), then the same client reads it again.
  Result<Reply> back = Fail(ErrorCode::kUnavailable, "not yet");
  for (auto until = Clock::now() + 20s; Clock::now() < until;) {
    back = run(client->Command({"GET", lost_key}));
    if (back && back->str == "1") {
      break;
    }
    ctx.run_for(50ms);
  }
  ASSERT_TRUE(back && back->str == "1") << (back ? back->str : back.error().message);
  EXPECT_GT(client->stats().reconnects, generation);
  const auto primaries = cluster.Primaries();
  EXPECT_EQ(std::count(primaries.begin(), primaries.end(), victim), 0);
  client->Stop();
  ctx.restart();
  ctx.poll();
}

}  // namespace
}  // namespace plaudit::redis::test
