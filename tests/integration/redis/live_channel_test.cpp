// LiveChannel (redis/live_channel.hpp) against a real redis-server: what a subscriber hears,
// each thread's own gapless numbers, the likes gate, and what Decode refuses.
#include "redis/live_channel.hpp"

#include <string>
#include <vector>

#include "fixture.hpp"
#include "redis/client/subscriber.hpp"
#include "redis/keys.hpp"

namespace plaudit::redis::test {
namespace {

class RedisLiveChannel : public RedisTest {
 protected:
  void SetUp() override {
    RedisTest::SetUp();
    client_ = Connect(Server().unix_url());
    channel_.emplace(*client_);
    sub_ = Subscriber::Create(ctx_.get_executor(), ParseRedisUrl(Server().unix_url()).value(),
                              LiveChannel::Channel(),
                              {[this](std::string_view m) { heard_.emplace_back(m); }, {}});
    sub_->Start();
    for (auto until = Clock::now() + 5s; !sub_->subscribed() && Clock::now() < until;) {
      RunFor(5ms);
    }
    ASSERT_TRUE(sub_->subscribed());
  }
  void TearDown() override {
    sub_->Stop();
    RedisTest::TearDown();
  }
  void Hear(size_t n) {
    for (auto until = Clock::now() + 2s; heard_.size() < n && Clock::now() < until;) {
      RunFor(5ms);
    }
    ASSERT_EQ(heard_.size(), n);
  }

  std::shared_ptr<Client> client_;
  std::optional<LiveChannel> channel_;
  std::shared_ptr<Subscriber> sub_;
  std::vector<std::string> heard_;
};

TEST_F(RedisLiveChannel, EachThreadNumbersItsOwnEventsAndEveryListenerHearsThem) {
  const std::vector<int64_t> one{5};
  auto a = Run(channel_->Publish(7, "comment", one));
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(*a, 1u);
  auto b = Run(channel_->Publish(8, "deleted", one));
  ASSERT_TRUE(b);
  EXPECT_EQ(*b, 1u);  // another thread, its own numbers
  const std::vector<int64_t> many{0, 5, 9};
  auto c = Run(channel_->Publish(7, "likes", many));
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, 2u);
  Hear(3);
  EXPECT_EQ(heard_,
            (std::vector<std::string>{"7 1 comment 5", "8 1 deleted 5", "7 2 likes 0,5,9"}));
  auto m = LiveChannel::Decode(heard_[2]);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->article_id, 7);
  EXPECT_EQ(m->seq, 2u);
  EXPECT_EQ(m->kind, "likes");
  EXPECT_EQ(m->ids, many);
  // The counter lives a day past its last event.
  const int64_t ttl = std::stoll(Server().Cli("TTL " + keys::LiveSeq(7)));
  EXPECT_GT(ttl, 86000);
  EXPECT_LE(ttl, 86400);
}

TEST_F(RedisLiveChannel, TheGateLetsOneGatedPublishAGapThroughAndSaysHowLongToWait) {
  const std::vector<int64_t> ids{0};
  auto first = Run(channel_->PublishGated(7, "likes", ids, 1000ms));
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->seq, 1u);
  auto second = Run(channel_->PublishGated(7, "likes", ids, 1000ms));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->seq, 0u);  // nothing published, no number taken
  EXPECT_GT(second->wait.count(), 0);
  EXPECT_LE(second->wait.count(), 1000);
  // Ungated events go on meanwhile, and another thread has its own gate.
  auto plain = Run(channel_->Publish(7, "comment", std::vector<int64_t>{3}));
  ASSERT_TRUE(plain);
  EXPECT_EQ(*plain, 2u);
  auto other = Run(channel_->PublishGated(8, "likes", ids, 1000ms));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->seq, 1u);
  // Once the gate opens (its key expires), the next gated publish goes through.
  Server().Cli("DEL " + keys::LiveGate(7));
  auto third = Run(channel_->PublishGated(7, "likes", ids, 1000ms));
  ASSERT_TRUE(third);
  EXPECT_EQ(third->seq, 3u);
  Hear(4);
  EXPECT_EQ(heard_, (std::vector<std::string>{"7 1 likes 0", "7 2 comment 3", "8 1 likes 0",
                                              "7 3 likes 0"}));
}

TEST_F(RedisLiveChannel, NothingIsPublishedAboutNoIdsOrTooMany) {
  EXPECT_FALSE(Run(channel_->Publish(7, "likes", std::vector<int64_t>{})));
  EXPECT_FALSE(
      Run(channel_->Publish(7, "likes", std::vector<int64_t>(LiveChannel::kMaxIds + 1, 1))));
  EXPECT_EQ(Server().Cli("EXISTS " + keys::LiveSeq(7)), "0");
}

TEST(LiveChannelDecode, RefusesWhatItDidNotWrite) {
  for (const char* bad :
       {"", "7", "7 1", "7 1 comment", "0 1 comment 5", "7 0 comment 5", "-7 1 comment 5",
        "7 1 Comment 5", "7 1 comment -5", "7 1 comment 5,", "7 1 comment ,5", "7 1 comment 5 x",
        "7 1 comment 5  ", "7 1 abcdefghijklmnopq 5", "7 1 comment x", "7 1 comment 5,,6",
        "99999999999999999999 1 comment 5"}) {
    EXPECT_FALSE(LiveChannel::Decode(bad).has_value()) << bad;
  }
  std::string many = "7 1 likes 0";
  for (size_t i = 1; i < LiveChannel::kMaxIds; ++i) {
    many += "," + std::to_string(i);
  }
  EXPECT_TRUE(LiveChannel::Decode(many).has_value());
  EXPECT_FALSE(LiveChannel::Decode(many + ",99").has_value());
  auto m = LiveChannel::Decode("12 34 comment 56");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->ids, std::vector<int64_t>{56});
}

}  // namespace
}  // namespace plaudit::redis::test
