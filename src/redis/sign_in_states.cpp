#include "redis/sign_in_states.hpp"

#include <vector>

#include "redis/digest.hpp"
#include "redis/keys.hpp"

namespace plaudit::redis {
namespace {

std::string Key(std::string_view state) { return keys::SignIn(ShortDigest(state)); }

}  // namespace

Awaitable<Status> SignInStates::Put(std::string_view state, std::string value,
                                    std::chrono::milliseconds ttl) {
  std::vector<std::string> argv{"SET", Key(state), std::move(value), "PX",
                                std::to_string(ttl.count())};
  co_return ReplyOk(co_await client_.Command(std::move(argv)));
}

Awaitable<Result<std::optional<std::string>>> SignInStates::Take(std::string_view state) {
  std::vector<std::string> argv{"GETDEL", Key(state)};
  PL_CO_TRY(const Reply r, co_await client_.Command(std::move(argv)));
  if (r.is_error()) {
    co_return Fail(ErrorCode::kInternal, "redis GETDEL failed: " + r.str);
  }
  if (r.is_nil()) {
    co_return std::optional<std::string>{};
  }
  co_return std::optional<std::string>(r.str);
}

}  // namespace plaudit::redis
