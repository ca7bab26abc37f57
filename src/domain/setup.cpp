#include "domain/setup.hpp"

#include <sodium.h>

#include "common/time.hpp"
#include "domain/user.hpp"

namespace plaudit::domain {
namespace {

constexpr size_t kTokenBytes = 32;
// The budget wrong setup tokens count against: the failed-login one of the address.
constexpr std::string_view kScope = "login-addr";

std::string NewSetupToken() {
  unsigned char bytes[kTokenBytes];
  randombytes_buf(bytes, sizeof(bytes));
  char hex[kTokenBytes * 2 + 1];
  sodium_bin2hex(hex, sizeof(hex), bytes, sizeof(bytes));
  return std::string(hex, kTokenBytes * 2);
}

}  // namespace

FirstRunSetup::FirstRunSetup(UserService& users, sql::UserTable& table, PasswordHasher& hasher,
                             redis::RateLimiter& limiter, RateLimit per_address)
    : users_(users),
      table_(table),
      hasher_(hasher),
      limiter_(limiter),
      per_address_(per_address),
      token_(NewSetupToken()) {}

bool FirstRunSetup::TokenMatches(std::string_view token) const {
  // The length is no secret; the bytes are compared in constant time.
  return !used_ && token.size() == token_.size() &&
         sodium_memcmp(token.data(), token_.data(), token_.size()) == 0;
}

Awaitable<Result<bool>> FirstRunSetup::Needed() {
  PL_CO_TRY(auto has, co_await table_.HasAdmin(std::string(RoleName(Role::kAdmin))));
  co_return !has;
}

Awaitable<Result<Session>> FirstRunSetup::CreateAdmin(std::string token, FirstAdmin admin,
                                                      std::string client_address) {
  // An attempt is reserved before the token is looked at, and given back only when it was
  // right: wrong guesses use up the address's budget like wrong passwords.
  if (per_address_.enabled()) {
    PL_CO_TRY(auto d,
              co_await limiter_.Check(kScope, client_address, per_address_, /*consume=*/true));
    if (!d.allowed) {
      Error e{ErrorCode::kRateLimited, "too many failed attempts; try again later",
              static_cast<int>((d.retry_after_ms + 999) / 1000)};
      co_return tl::unexpected(e);
    }
  }
  if (!TokenMatches(token)) {
    co_return Fail(ErrorCode::kPermissionDenied,
                   "wrong or expired setup token (a restart logs a new one)");
  }
  if (per_address_.enabled()) {
    (void)co_await limiter_.Refund(kScope, client_address, per_address_);
  }

  PL_CO_CHECK(ValidateUsername(admin.username));
  PL_CO_CHECK(ValidatePassword(admin.password));
  PL_CO_TRY(auto display, NormalizeDisplayName(admin.display_name, admin.username));
  // Refused before paying for a hash; InsertFirstAdmin still decides races.
  PL_CO_TRY(auto needed, co_await Needed());
  if (!needed) {
    co_return Fail(ErrorCode::kAlreadyExists, "setup is done: an admin exists already");
  }

  PL_CO_TRY(auto hash, co_await hasher_.Hash(std::move(admin.password)));
  sql::UserRow row = NewUserRow(admin.username, std::move(display), std::move(hash), Role::kAdmin);
  PL_CO_TRY(auto inserted, co_await table_.InsertFirstAdmin(std::move(row)));
  used_ = true;
  co_return co_await users_.OpenSession(inserted.id);
}

}  // namespace plaudit::domain
