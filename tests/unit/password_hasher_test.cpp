// Argon2id through libsodium, and the bound on concurrent hashing.
#include <gtest/gtest.h>

#include "domain/password_hasher.hpp"

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

}  // namespace
}  // namespace plaudit::domain
