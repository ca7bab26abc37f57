// The cluster client's pure parts, held to the Redis Cluster specification's examples.
#include "redis/client/cluster_slots.hpp"

#include <gtest/gtest.h>

#include "redis/client/resp.hpp"
#include "redis/keys.hpp"

namespace plaudit::redis::cluster {
namespace {

TEST(ClusterSlots, KeySlotIsTheSpecificationsHashSlot) {
  // CRC16/XMODEM("123456789") = 0x31C3 (the specification's check value): slot 12739.
  EXPECT_EQ(KeySlot("123456789"), 0x31C3 & 16383);
  EXPECT_EQ(KeySlot("foo"), 12182);  // redis-cli CLUSTER KEYSLOT foo
  EXPECT_EQ(KeySlot(""), 0);
  // Hash tags: the first {...} that is not empty.
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("user1000"));
  EXPECT_EQ(KeySlot("{user1000}.followers"), KeySlot("user1000"));
  EXPECT_EQ(KeySlot("foo{}{bar}"), KeySlot("foo{}{bar}"));  // empty tag: the whole key
  EXPECT_NE(KeySlot("foo{}{bar}"), KeySlot("bar"));
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), KeySlot("{bar"));
  EXPECT_EQ(KeySlot("foo{bar}{zap}"), KeySlot("bar"));
  EXPECT_EQ(KeySlot("{l7}"), KeySlot(keys::ListVersion(7)));
}

// The guard a script's keys end with on a cluster must hash with its first key (else Redis
// answers CROSSSLOT), and be no key Plaudit writes.
TEST(ClusterSlots, TheSlotGuardHashesWithTheKeyItGuards) {
  for (const std::string& key :
       {keys::LikeDirty(7), keys::ListVersion(255), std::string("pl:seq:article"),
        std::string("foo{{bar}}zap"), std::string("{")}) {
    const std::string guard = SlotGuardKey(key);
    ASSERT_FALSE(guard.empty()) << key;
    EXPECT_EQ(KeySlot(guard), KeySlot(key)) << key << " guarded by " << guard;
    EXPECT_TRUE(guard.starts_with(keys::kSlotGuardPrefix)) << guard;
    EXPECT_NE(guard, key);
  }
  EXPECT_EQ(SlotGuardKey(keys::LikeDirty(7)), "pl:guard:{l7}");
  // No tag and a '}' in the key: no guard key hashes alike, so none (Plaudit builds none).
  EXPECT_EQ(SlotGuardKey("a}b"), "");
  EXPECT_EQ(SlotGuardKey("foo{}{bar}"), "");
}

TEST(ClusterSlots, CommandKeyIsTheKeyARouterMustUse) {
  EXPECT_EQ(CommandKey({"GET", "a"}), "a");
  EXPECT_EQ(CommandKey({"MGET", "a", "b"}), "a");
  EXPECT_EQ(CommandKey({"EVALSHA", "sha", "2", "k1", "k2", "arg"}), "k1");
  EXPECT_EQ(CommandKey({"EVAL", "return 1", "0", "arg"}), std::nullopt);
  EXPECT_EQ(CommandKey({"EVALSHA", "sha", "x", "k"}), std::nullopt);
  EXPECT_EQ(CommandKey({"PING"}), std::nullopt);
  EXPECT_EQ(CommandKey({"INFO", "server"}), std::nullopt);
  EXPECT_EQ(CommandKey({"PUBLISH", "channel", "m"}), std::nullopt);
  EXPECT_EQ(CommandKey({"SCAN", "0", "MATCH", "pl:*"}), std::nullopt);
  EXPECT_EQ(CommandSlot({"GET", "foo"}), 12182);
  EXPECT_EQ(CommandSlot({"TIME"}), -1);
}

TEST(ClusterSlots, FramedCommandKeyReadsTheSameKeyFromRespBytes) {
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {"HMGET", "pl:c:{c9}:12", "a", "b"},
           {"EVALSHA", "0123456789abcdef", "1", "pl:x:{y}", "arg"},
           {"EVALSHA", "0123456789abcdef", "0", "arg"},
           {"PING"},
           {"GET", std::string("bin\r\n\0key", 10)}}) {
    std::string resp;
    FormatCommand(argv, resp);
    EXPECT_EQ(FramedCommandKey(resp), CommandKey(argv)) << resp;
  }
  EXPECT_EQ(FramedCommandKey("*2\r\n$3\r\nGET\r\n$9\r\nshort"), std::nullopt);
  EXPECT_EQ(FramedCommandKey("GET a"), std::nullopt);
}

Reply Error(std::string s) {
  Reply r;
  r.type = Reply::Type::kError;
  r.str = std::move(s);
  return r;
}

TEST(ClusterSlots, RedirectsAreParsed) {
  auto moved = ParseRedirect(Error("MOVED 3999 127.0.0.1:6381"));
  EXPECT_EQ(moved.kind, Redirect::Kind::kMoved);
  EXPECT_EQ(moved.slot, 3999);
  EXPECT_EQ(moved.node, (RedisEndpoint::Node{"127.0.0.1", 6381}));
  auto ask = ParseRedirect(Error("ASK 12182 [::1]:7002"));
  EXPECT_EQ(ask.kind, Redirect::Kind::kAsk);
  EXPECT_EQ(ask.node, (RedisEndpoint::Node{"[::1]", 7002}));
  auto nohost = ParseRedirect(Error("MOVED 1 :7003"));
  EXPECT_EQ(nohost.kind, Redirect::Kind::kMoved);
  EXPECT_EQ(nohost.node.host, "");
  EXPECT_EQ(ParseRedirect(Error("TRYAGAIN Multiple keys request during rehashing of slot")).kind,
            Redirect::Kind::kTryAgain);
  EXPECT_EQ(ParseRedirect(Error("CLUSTERDOWN The cluster is down")).kind,
            Redirect::Kind::kTryAgain);
  EXPECT_EQ(ParseRedirect(Error("ERR wrong number of arguments")).kind, Redirect::Kind::kNone);
  EXPECT_EQ(ParseRedirect(Error("MOVED 16384 a:1")).kind, Redirect::Kind::kNone);
  EXPECT_EQ(ParseRedirect(Error("MOVED 1 a:0")).kind, Redirect::Kind::kNone);
  Reply ok;
  ok.type = Reply::Type::kString;
  ok.str = "MOVED 1 a:1";  // a value, not an error
  EXPECT_EQ(ParseRedirect(ok).kind, Redirect::Kind::kNone);
}

Reply Int(int64_t v) {
  Reply r;
  r.type = Reply::Type::kInteger;
  r.integer = v;
  return r;
}
Reply Str(std::string s) {
  Reply r;
  r.type = Reply::Type::kString;
  r.str = std::move(s);
  return r;
}
Reply Arr(std::vector<Reply> e) {
  Reply r;
  r.type = Reply::Type::kArray;
  r.elements = std::move(e);
  return r;
}

TEST(ClusterSlots, ClusterSlotsBecomesAMapOfEverySlot) {
  const Reply reply = Arr({
      Arr({Int(0), Int(5460), Arr({Str("127.0.0.1"), Int(7000), Str("id0")}),
           Arr({Str("127.0.0.1"), Int(7003), Str("id3")})}),
      Arr({Int(5461), Int(10922), Arr({Str(""), Int(7001), Str("id1")})}),
      Arr({Int(10923), Int(16383), Arr({Str("127.0.0.1"), Int(7002), Str("id2")})}),
      Arr({Int(100), Int(100), Arr({Str("127.0.0.1"), Int(7002), Str("id2")})}),
  });
  auto map = ParseClusterSlots(reply, "10.0.0.9");
  ASSERT_TRUE(map);
  ASSERT_EQ(map->primaries.size(), 3u);
  EXPECT_EQ(map->primaries[1], (RedisEndpoint::Node{"10.0.0.9", 7001}));  // empty host: asked one
  EXPECT_EQ(map->owner[0], 0);
  EXPECT_EQ(map->owner[99], 0);
  EXPECT_EQ(map->owner[100], 2);
  EXPECT_EQ(map->owner[5461], 1);
  EXPECT_EQ(map->owner[16383], 2);
  const Reply partial = Arr({Arr({Int(0), Int(10), Arr({Str("h"), Int(1), Str("i")})})});
  auto some = ParseClusterSlots(partial, "h");
  ASSERT_TRUE(some);
  EXPECT_EQ(some->owner[11], -1);
  EXPECT_FALSE(ParseClusterSlots(Error("ERR This instance has cluster support disabled"), "h"));
  EXPECT_FALSE(ParseClusterSlots(Arr({Arr({Int(5), Int(2), Arr({Str("h"), Int(1)})})}), "h"));
}

}  // namespace
}  // namespace plaudit::redis::cluster
