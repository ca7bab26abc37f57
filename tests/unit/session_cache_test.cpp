// SessionCache's rules, without Redis: expiry, the epoch guard, invalidation messages, bounds.
#include "redis/session_cache.hpp"

#include <gtest/gtest.h>

namespace plaudit::redis {
namespace {

using namespace std::chrono_literals;
using Clock = SessionCache::Clock;

SessionData User(int64_t id) { return SessionData{id}; }

TEST(SessionCacheTest, AnEntryLivesUntilItsDeadlineOnly) {
  SessionCache cache(10);
  auto t0 = Clock::now();
  cache.Put("th1", "h1", User(1), t0 + 100ms, cache.epoch(), t0);
  ASSERT_NE(cache.Find("th1", t0 + 99ms), nullptr);
  EXPECT_EQ(cache.Find("th1", t0 + 99ms)->user_id, 1);
  EXPECT_EQ(cache.Find("th1", t0 + 100ms), nullptr);
  EXPECT_EQ(cache.size(), 0u);                             // dropped when found expired
  cache.Put("th2", "h2", User(2), t0, cache.epoch(), t0);  // already expired: not stored
  EXPECT_EQ(cache.size(), 0u);
}

TEST(SessionCacheTest, ALookupThatRacedAnInvalidationIsNotStored) {
  SessionCache cache(10);
  auto now = Clock::now();
  uint64_t before = cache.epoch();
  cache.EraseToken("unrelated");
  cache.Put("th1", "h1", User(1), now + 1s, before, now);
  EXPECT_EQ(cache.Find("th1", now), nullptr);
  cache.Put("th1", "h1", User(1), now + 1s, cache.epoch(), now);
  EXPECT_NE(cache.Find("th1", now), nullptr);
}

TEST(SessionCacheTest, MessagesEraseOneSessionOrAllOfAUser) {
  SessionCache cache(10);
  auto now = Clock::now();
  cache.Put("ta1", "a1", User(1), now + 1s, cache.epoch(), now);
  cache.Put("ta2", "a2", User(1), now + 1s, cache.epoch(), now);
  cache.Put("tb1", "b1", User(2), now + 1s, cache.epoch(), now);
  cache.Apply(SessionCache::TokenMessage("a1"));
  EXPECT_EQ(cache.Find("ta1", now), nullptr);
  EXPECT_NE(cache.Find("ta2", now), nullptr);
  cache.Apply(SessionCache::UserMessage(1));
  EXPECT_EQ(cache.Find("ta2", now), nullptr);
  EXPECT_NE(cache.Find("tb1", now), nullptr);
  // Anything unrecognised empties the cache rather than leave a stale entry.
  cache.Apply("u:not-a-number");
  EXPECT_EQ(cache.size(), 0u);
  cache.Put("tb1", "b1", User(2), now + 1s, cache.epoch(), now);
  cache.Apply("?");
  EXPECT_EQ(cache.size(), 0u);
}

TEST(SessionCacheTest, StaysWithinItsCapacity) {
  SessionCache cache(3);
  auto now = Clock::now();
  cache.Put("told", "old", User(9), now + 1ms, cache.epoch(), now);
  cache.Put("ta", "a", User(1), now + 1s, cache.epoch(), now);
  cache.Put("tb", "b", User(2), now + 1s, cache.epoch(), now);
  // Full: the expired entry makes room first.
  cache.Put("tc", "c", User(3), now + 1s, cache.epoch(), now + 2ms);
  EXPECT_EQ(cache.size(), 3u);
  EXPECT_NE(cache.Find("ta", now + 2ms), nullptr);
  // Full of live entries: emptied, then the new one stored.
  cache.Put("td", "d", User(4), now + 1s, cache.epoch(), now + 2ms);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_NE(cache.Find("td", now + 2ms), nullptr);
  SessionCache none(0);
  none.Put("ta", "a", User(1), now + 1s, none.epoch(), now);
  EXPECT_EQ(none.size(), 0u);
}

}  // namespace
}  // namespace plaudit::redis
