#include "redis/once_keys.hpp"

#include <sodium.h>

#include <array>
#include <string>
#include <vector>

#include "redis/keys.hpp"

namespace plaudit::redis {

Awaitable<Result<bool>> OnceKeys::Claim(std::string_view scope, std::string_view value,
                                        std::chrono::milliseconds ttl) {
  std::array<unsigned char, 16> digest{};
  crypto_generichash(digest.data(), digest.size(),
                     reinterpret_cast<const unsigned char*>(value.data()), value.size(), nullptr,
                     0);
  std::array<char, 33> hex{};
  sodium_bin2hex(hex.data(), hex.size(), digest.data(), digest.size());
  const int64_t ms = std::max<int64_t>(1, ttl.count());
  std::vector<std::string> argv{"SET", keys::Once(scope, std::string_view(hex.data(), 32)),
                                "1",   "NX",
                                "PX",  std::to_string(ms)};
  PL_CO_TRY(const Reply r, co_await client_.Command(std::move(argv)));
  if (r.is_error()) co_return Fail(ErrorCode::kInternal, "redis SET NX failed: " + r.str);
  co_return !r.is_nil();
}

}  // namespace plaudit::redis
