#include "redis/once_keys.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "redis/digest.hpp"
#include "redis/keys.hpp"

namespace plaudit::redis {

Awaitable<Result<bool>> OnceKeys::Claim(std::string_view scope, std::string_view value,
                                        std::chrono::milliseconds ttl) {
  const int64_t ms = std::max<int64_t>(1, ttl.count());
  std::vector<std::string> argv{
      "SET", keys::Once(scope, ShortDigest(value)), "1", "NX", "PX", std::to_string(ms)};
  PL_CO_TRY(const Reply r, co_await client_.Command(std::move(argv)));
  if (r.is_error()) {
    co_return Fail(ErrorCode::kInternal, "redis SET NX failed: " + r.str);
  }
  co_return !r.is_nil();
}

}  // namespace plaudit::redis
