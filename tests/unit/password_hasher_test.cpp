// Argon2id through libsodium, and the bound on concurrent hashing.
#include "domain/password_hasher.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace plaudit::domain {
namespace {

template <class T>
T RunSync(net::io_context& ioc, Awaitable<T> aw) {
  auto fut = net::co_spawn(ioc, std::move(aw), net::use_future);
  ioc.restart();
  ioc.run();
  return fut.get();
}

TEST(PasswordHasher, HashesAndVerifies) {
  PasswordHasher h(PasswordHashOptions::Minimal());
  net::io_context ioc;
  auto hash = RunSync(ioc, h.Hash("s3cret-password"));
  ASSERT_TRUE(hash);
  EXPECT_EQ(hash->rfind("$argon2id$", 0), 0u);
  EXPECT_EQ(hash->find("s3cret"), std::string::npos);
  EXPECT_TRUE(*RunSync(ioc, h.Verify(*hash, "s3cret-password")));
  EXPECT_FALSE(*RunSync(ioc, h.Verify(*hash, "s3cret-passworD")));
  EXPECT_FALSE(*RunSync(ioc, h.Verify("not a hash", "x")));
  EXPECT_FALSE(*RunSync(ioc, h.VerifyDummy("anything")));
  auto again = RunSync(ioc, h.Hash("s3cret-password"));
  EXPECT_NE(*again, *hash);  // salted
}

TEST(PasswordHasher, BoundsConcurrentHashesAndRefusesTheRest) {
  auto opts = PasswordHashOptions::Interactive();  // slow enough to pile up
  opts.threads = 1;
  opts.max_pending = 2;
  opts.max_pending_new = 2;
  PasswordHasher h(opts);
  net::io_context ioc;
  int ok = 0, refused = 0;
  for (int i = 0; i < 6; ++i) {
    net::co_spawn(
        ioc,
        [&, i]() -> Awaitable<void> {
          std::string password = "password-" + std::to_string(i);
          auto r = co_await h.Hash(std::move(password));
          if (r) {
            ++ok;
          } else {
            EXPECT_EQ(r.error().code, ErrorCode::kRateLimited);
            ++refused;
          }
        },
        net::detached);
  }
  ioc.run();
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(refused, 4);
  EXPECT_EQ(h.pending(), 0);
}

// Issue 41: a sign-up flood filled the one queue and every login got 429. New hashes have a
// budget of their own, and a free thread takes a waiting password check before them.
TEST(PasswordHasher, NewHashesHaveTheirOwnBudgetAndChecksGoFirst) {
  auto opts = PasswordHashOptions::Interactive();  // slow enough to pile up
  opts.threads = 1;
  opts.max_pending = 2;
  opts.max_pending_new = 3;
  PasswordHasher h(opts);
  net::io_context ioc;
  auto hash = RunSync(ioc, h.Hash("the-real-password"));
  ASSERT_TRUE(hash);
  std::vector<std::string> done;  // the order in which answers came back
  int refused_new = 0;
  for (int i = 0; i < 6; ++i) {  // 3 run or wait, 3 are refused
    net::co_spawn(
        ioc,
        [&, i]() -> Awaitable<void> {
          std::string password = "sign-up-" + std::to_string(i);
          auto r = co_await h.Hash(std::move(password));
          if (r) {
            done.push_back("new");
          } else {
            EXPECT_EQ(r.error().code, ErrorCode::kRateLimited);
            ++refused_new;
          }
        },
        net::detached);
  }
  // Queued behind three sign-ups, within its own budget: answered after the one running.
  net::co_spawn(
      ioc,
      [&]() -> Awaitable<void> {
        std::string encoded = *hash;
        auto r = co_await h.Verify(std::move(encoded), "the-real-password");
        EXPECT_TRUE(r && *r);
        done.push_back("check");
      },
      net::detached);
  ioc.restart();
  ioc.run();
  EXPECT_EQ(refused_new, 3);
  ASSERT_EQ(done.size(), 4u);
  // At most the one hash already running when it came (one thread) goes before it; before
  // the fix it came last ("new", "new", "new", "check").
  const auto at = std::find(done.begin(), done.end(), "check") - done.begin();
  EXPECT_LE(at, 1) << "the check waited for sign-ups queued before it";
  EXPECT_EQ(h.pending(), 0);
}

TEST(PasswordHasher, TheNewHashBudgetDefaultsToAQuarterOfTheQueue) {
  auto opts = PasswordHashOptions::Interactive();
  opts.threads = 1;
  opts.max_pending = 8;  // new hashes: 2
  PasswordHasher h(opts);
  net::io_context ioc;
  int ok = 0, refused = 0;
  for (int i = 0; i < 5; ++i) {
    net::co_spawn(
        ioc,
        [&, i]() -> Awaitable<void> {
          std::string password = "password-" + std::to_string(i);
          auto r = co_await h.Hash(std::move(password));
          ++(r ? ok : refused);
        },
        net::detached);
  }
  ioc.run();
  EXPECT_EQ(ok, 2);
  EXPECT_EQ(refused, 3);
}

}  // namespace
}  // namespace plaudit::domain
