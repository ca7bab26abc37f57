// RateLimiter (GCRA in one Lua script) against a real redis-server: bursts,
// check-only calls, refill, key layout and TTL, concurrency and failures. Periods are kept
// tiny wherever the test has to wait for a refill, so the suite stays fast.
#include "redis/rate_limiter.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fixture.hpp"

namespace plaudit::redis::test {
namespace {

class RedisRateLimiter : public RedisTest {
 protected:
  void SetUp() override {
    RedisTest::SetUp();
    client_ = Connect(Server().unix_url());
    limiter_.emplace(*client_);
  }

  Result<RateDecision> Consume(std::string_view scope, std::string_view id, RateLimit limit) {
    return Run(limiter_->Check(scope, id, limit, /*consume=*/true));
  }
  Result<RateDecision> Peek(std::string_view scope, std::string_view id, RateLimit limit) {
    return Run(limiter_->Check(scope, id, limit, /*consume=*/false));
  }
  // The number of allowed calls among `n` sequential consumes; every call must succeed.
  int CountAllowed(std::string_view scope, std::string_view id, RateLimit limit, int n) {
    int allowed = 0;
    for (int i = 0; i < n; ++i) {
      auto d = Consume(scope, id, limit);
      EXPECT_TRUE(d) << d.error().message;
      allowed += (d && d->allowed) ? 1 : 0;
    }
    return allowed;
  }

  // Starts `n` consumes at once (they share round trips) and waits for all of them.
  std::vector<std::optional<Result<RateDecision>>> ConsumeConcurrently(std::string scope,
                                                                       std::string id,
                                                                       RateLimit limit, int n) {
    std::vector<std::optional<Result<RateDecision>>> out(n);
    int finished = 0;
    for (int i = 0; i < n; ++i) {
      net::co_spawn(
          ctx_,
          [this, &out, &scope, &id, limit, i]() -> Awaitable<void> {
            out[i] = co_await limiter_->Check(scope, id, limit, /*consume=*/true);
          },
          [&finished](std::exception_ptr) { ++finished; });
    }
    auto deadline = Clock::now() + 20s;
    while (finished < n && Clock::now() < deadline) {
      RunFor(5ms);
    }
    EXPECT_EQ(finished, n);
    return out;
  }

  int64_t Pttl(const std::string& key) {
    auto r = Do(*client_, {"PTTL", key});
    EXPECT_TRUE(r);
    return r ? r->integer : -100;
  }

  std::shared_ptr<Client> client_;
  std::optional<RateLimiter> limiter_;
};

TEST_F(RedisRateLimiter, AllowsABurstOfCountThenDenies) {
  const RateLimit limit{5, 60'000};
  for (int i = 0; i < 5; ++i) {
    auto d = Consume("burst", "1.2.3.4", limit);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_TRUE(d->allowed) << "call " << i;
    EXPECT_EQ(d->retry_after_ms, 0);
  }
  auto denied = Consume("burst", "1.2.3.4", limit);
  ASSERT_TRUE(denied);
  EXPECT_FALSE(denied->allowed);
  // The next event frees up one emission interval (60 s / 5) after the first one.
  EXPECT_GT(denied->retry_after_ms, 0);
  EXPECT_LE(denied->retry_after_ms, 12'000);
  EXPECT_GT(denied->retry_after_ms, 10'000);
}

TEST_F(RedisRateLimiter, FractionalIntervalsAllowExactlyCount) {
  // 1000 ms / 3 and 1 h / 7 or / 999 are not whole milliseconds: rounding must not cost the
  // last event of a burst, nor grant one more.
  EXPECT_EQ(CountAllowed("frac", "a", RateLimit{3, 1000}, 5), 3);
  for (int64_t count : {7, 999}) {
    const RateLimit limit{count, 3'600'000};
    auto results = ConsumeConcurrently("frac", "c" + std::to_string(count), limit,
                                       static_cast<int>(count) + 3);
    int allowed = 0;
    for (const auto& r : results) {
      ASSERT_TRUE(r && *r);
      allowed += (*r)->allowed ? 1 : 0;
    }
    EXPECT_EQ(allowed, count);
  }
}

TEST_F(RedisRateLimiter, CheckOnlyNeverUsesBudget) {
  const RateLimit limit{5, 60'000};
  const std::string key = limiter_->Key("login-fail", "alice");
  for (int i = 0; i < 10; ++i) {
    auto d = Peek("login-fail", "alice", limit);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_TRUE(d->allowed);
  }
  EXPECT_EQ(Do(*client_, {"EXISTS", key})->integer, 0);
  EXPECT_EQ(CountAllowed("login-fail", "alice", limit, 5), 5);

  // Exhausted: a check reports the denial but leaves the state alone.
  auto before = Do(*client_, {"GET", key});
  ASSERT_TRUE(before);
  auto peek = Peek("login-fail", "alice", limit);
  ASSERT_TRUE(peek);
  EXPECT_FALSE(peek->allowed);
  EXPECT_GT(peek->retry_after_ms, 0);
  EXPECT_EQ(Do(*client_, {"GET", key})->str, before->str);
  EXPECT_FALSE(Consume("login-fail", "alice", limit)->allowed);
}

// A refund gives back exactly one reserved event: reserve-then-refund leaves the budget as it
// was, a refund with nothing reserved gives nothing extra, and a refund never goes below a
// full budget (the key is dropped instead).
TEST_F(RedisRateLimiter, ARefundGivesBackOneReservedEventAndNoMore) {
  const RateLimit limit{3, 60'000};
  const std::string key = limiter_->Key("login-user", "bob");
  ASSERT_TRUE(Run(limiter_->Refund("login-user", "bob", limit)));  // nothing to give back
  EXPECT_EQ(Do(*client_, {"EXISTS", key})->integer, 0);
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(Consume("login-user", "bob", limit)->allowed);
    ASSERT_TRUE(Run(limiter_->Refund("login-user", "bob", limit)));
  }
  EXPECT_EQ(Do(*client_, {"EXISTS", key})->integer, 0);  // back to a full budget
  EXPECT_EQ(CountAllowed("login-user", "bob", limit, 5), 3);
  ASSERT_TRUE(Run(limiter_->Refund("login-user", "bob", limit)));
  EXPECT_EQ(CountAllowed("login-user", "bob", limit, 3), 1);
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(Run(limiter_->Refund("login-user", "bob", limit)));
  }
  EXPECT_EQ(Do(*client_, {"EXISTS", key})->integer, 0);
  EXPECT_EQ(CountAllowed("login-user", "bob", limit, 5), 3);  // never more than the limit
}

TEST_F(RedisRateLimiter, RefillsAfterTheWindow) {
  const RateLimit limit{2, 300};
  EXPECT_EQ(CountAllowed("refill", "x", limit, 3), 2);
  RunFor(350ms);
  EXPECT_EQ(CountAllowed("refill", "x", limit, 3), 2);
}

TEST_F(RedisRateLimiter, RetryAfterIsWhenTheCallIsAllowedAgain) {
  const RateLimit limit{2, 300};
  EXPECT_EQ(CountAllowed("retry", "x", limit, 2), 2);
  auto denied = Consume("retry", "x", limit);
  ASSERT_TRUE(denied);
  ASSERT_FALSE(denied->allowed);
  EXPECT_GT(denied->retry_after_ms, 0);
  EXPECT_LE(denied->retry_after_ms, 150);  // one interval: 300 ms / 2
  RunFor(std::chrono::milliseconds(denied->retry_after_ms + 10));
  auto again = Consume("retry", "x", limit);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->allowed);
}

TEST_F(RedisRateLimiter, IdsAndScopesAreIndependent) {
  const RateLimit limit{1, 60'000};
  const std::string ids[] = {
      "1.2.3.4", "::1", "2001:db8::1", std::string("a\0b", 3), std::string("a\0c", 3), "alice",
      "Alice",   ""};
  for (const auto& scope : {"s1", "s2"}) {
    for (const auto& id : ids) {
      auto d = Consume(scope, id, limit);
      ASSERT_TRUE(d) << d.error().message;
      EXPECT_TRUE(d->allowed) << scope << " / " << id;
    }
  }
  for (const auto& id : ids) {
    EXPECT_FALSE(Consume("s1", id, limit)->allowed) << id;
  }
}

TEST_F(RedisRateLimiter, KeyIsPrefixScopeIdAndExpiresWithinThePeriod) {
  const RateLimit limit{5, 60'000};
  ASSERT_TRUE(Consume("login", "2001:db8::1", limit)->allowed);
  const std::string key = "pl:rl:login:2001:db8::1";
  EXPECT_EQ(limiter_->Key("login", "2001:db8::1"), key);
  int64_t one = Pttl(key);
  EXPECT_GT(one, 0);
  EXPECT_LE(one, 12'000);  // one event: the limiter is full again after one interval
  EXPECT_EQ(CountAllowed("login", "2001:db8::1", limit, 4), 4);
  int64_t full = Pttl(key);
  EXPECT_GT(full, 12'000);
  EXPECT_LE(full, 60'000);

  // Binary ids are keyed byte for byte.
  const std::string binary("a\0:\xff", 4);
  ASSERT_TRUE(Consume("bin", binary, limit)->allowed);
  EXPECT_EQ(Do(*client_, {"EXISTS", "pl:rl:bin:" + binary})->integer, 1);
  EXPECT_GT(Pttl("pl:rl:bin:" + binary), 0);

  RateLimiter custom(*client_, "test:rl:");
  ASSERT_TRUE(Run(custom.Check("s", "i", limit))->allowed);
  EXPECT_EQ(Do(*client_, {"EXISTS", "test:rl:s:i"})->integer, 1);
}

TEST_F(RedisRateLimiter, LongIdsAreHashedIntoBoundedKeys) {
  const std::string exact(RateLimiter::kMaxIdBytes, 'x');
  EXPECT_EQ(limiter_->Key("s", exact), "pl:rl:s:" + exact);

  const std::string long_a = exact + std::string(1000, 'y') + "a";
  const std::string long_b = exact + std::string(1000, 'y') + "b";
  const std::string key_a = limiter_->Key("s", long_a);
  EXPECT_EQ(key_a, limiter_->Key("s", long_a));
  EXPECT_NE(key_a, limiter_->Key("s", long_b));
  EXPECT_EQ(key_a.size(), std::string("pl:rl:s:").size() + RateLimiter::kMaxIdBytes + 1 + 16);
  EXPECT_EQ(key_a.rfind("pl:rl:s:" + exact + "#", 0), 0u);

  const RateLimit limit{1, 60'000};
  EXPECT_TRUE(Consume("s", long_a, limit)->allowed);
  EXPECT_FALSE(Consume("s", long_a, limit)->allowed);
  EXPECT_TRUE(Consume("s", long_b, limit)->allowed);
  EXPECT_TRUE(Consume("s", exact, limit)->allowed);  // the verbatim prefix is another id
  // Nor can a short id spell out a long id's key.
  const std::string spelled = key_a.substr(std::string("pl:rl:s:").size());
  ASSERT_GT(spelled.size(), RateLimiter::kMaxIdBytes);
  EXPECT_NE(limiter_->Key("s", spelled.substr(0, RateLimiter::kMaxIdBytes)), key_a);
}

TEST_F(RedisRateLimiter, DisabledLimitMakesNoRedisCall) {
  auto before = client_->stats().commands_sent;
  for (RateLimit limit :
       {RateLimit{}, RateLimit{0, 1000}, RateLimit{5, 0}, RateLimit{-1, 1000}, RateLimit{5, -1}}) {
    for (bool consume : {true, false}) {
      auto d = Run(limiter_->Check("off", "x", limit, consume));
      ASSERT_TRUE(d);
      EXPECT_TRUE(d->allowed);
      EXPECT_EQ(d->retry_after_ms, 0);
    }
    EXPECT_TRUE(Run(limiter_->Enforce("off", "x", limit, "no")));
  }
  EXPECT_EQ(client_->stats().commands_sent, before);
}

TEST_F(RedisRateLimiter, ConcurrentConsumesAllowExactlyCount) {
  auto results = ConsumeConcurrently("conc", "10.0.0.1", RateLimit{10, 60'000}, 100);
  int allowed = 0;
  int denied = 0;
  for (const auto& r : results) {
    ASSERT_TRUE(r.has_value());
    ASSERT_TRUE(*r) << (*r).error().message;
    ((*r)->allowed ? allowed : denied)++;
  }
  EXPECT_EQ(allowed, 10);
  EXPECT_EQ(denied, 90);
}

TEST_F(RedisRateLimiter, EnforceMapsDenialToRateLimited) {
  const RateLimit per_minute{1, 60'000};
  EXPECT_TRUE(Run(limiter_->Enforce("enf", "u1", per_minute, "slow down")));
  auto st = Run(limiter_->Enforce("enf", "u1", per_minute, "slow down"));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kRateLimited);
  EXPECT_EQ(st.error().message, "slow down");
  EXPECT_GE(st.error().retry_after_seconds, 59);
  EXPECT_LE(st.error().retry_after_seconds, 60);

  // Under a second to wait still says 1 s, never 0.
  const RateLimit short_limit{1, 300};
  EXPECT_TRUE(Run(limiter_->Enforce("enf", "u2", short_limit, "later")));
  auto brief = Run(limiter_->Enforce("enf", "u2", short_limit, "later"));
  ASSERT_FALSE(brief);
  EXPECT_EQ(brief.error().code, ErrorCode::kRateLimited);
  EXPECT_EQ(brief.error().retry_after_seconds, 1);
}

TEST_F(RedisRateLimiter, ShorterPeriodAfterALongerOneDoesNotWaitOutTheOldOne) {
  // Configuration changed from 1/1h to 1/300ms: the old state must not block for an hour.
  ASSERT_TRUE(Consume("cfg", "x", RateLimit{1, 3'600'000})->allowed);
  auto d = Consume("cfg", "x", RateLimit{1, 300});
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->allowed);
  EXPECT_LE(d->retry_after_ms, 300);
  RunFor(std::chrono::milliseconds(d->retry_after_ms + 10));
  EXPECT_TRUE(Consume("cfg", "x", RateLimit{1, 300})->allowed);
}

TEST_F(RedisRateLimiter, ForeignValuesStartAfreshAndWrongTypeIsInternal) {
  const RateLimit limit{1, 60'000};
  for (const char* junk : {"garbage", "nan", "-inf", ""}) {
    const std::string key = limiter_->Key("junk", junk);
    ASSERT_TRUE(Do(*client_, {"SET", key, junk}));
    auto d = Consume("junk", junk, limit);
    ASSERT_TRUE(d) << junk << ": " << d.error().message;
    EXPECT_TRUE(d->allowed) << junk;
    EXPECT_GT(Pttl(key), 0) << junk;
  }
  // "inf" reads as a TAT far in the future: clamped to one period, not forever.
  ASSERT_TRUE(Do(*client_, {"SET", limiter_->Key("junk", "inf"), "inf"}));
  auto inf = Consume("junk", "inf", limit);
  ASSERT_TRUE(inf);
  EXPECT_FALSE(inf->allowed);
  EXPECT_GT(inf->retry_after_ms, 0);
  EXPECT_LE(inf->retry_after_ms, 60'000);

  ASSERT_TRUE(Do(*client_, {"HSET", limiter_->Key("junk", "hash"), "f", "v"}));
  auto wrong = Consume("junk", "hash", limit);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::kInternal);
}

TEST_F(RedisRateLimiter, RedisDownIsUnavailable) {
  const RateLimit limit{5, 60'000};
  ASSERT_TRUE(Consume("down", "x", limit));
  Server().Stop();
  for (bool consume : {true, false}) {
    auto d = Run(limiter_->Check("down", "x", limit, consume));
    ASSERT_FALSE(d);
    EXPECT_EQ(d.error().code, ErrorCode::kUnavailable);
  }
  auto st = Run(limiter_->Enforce("down", "x", limit, "no"));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace plaudit::redis::test
