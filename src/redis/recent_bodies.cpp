#include "redis/recent_bodies.hpp"

#include "redis/digest.hpp"
#include "redis/keys.hpp"

namespace plaudit::redis {
namespace {

std::string Key(std::string_view writer, std::string_view body) {
  return keys::RecentBody(writer, ShortDigest(body));
}

}  // namespace

Awaitable<Result<bool>> RecentBodies::Claim(std::string_view writer, std::string_view body,
                                            std::chrono::milliseconds window) {
  std::vector<std::string> argv{
      "SET", Key(writer, body), "1", "NX", "PX", std::to_string(window.count())};
  PL_CO_TRY(const Reply r, co_await client_.Command(std::move(argv)));
  if (r.is_error()) {
    co_return Fail(ErrorCode::kInternal, "redis SET NX failed: " + r.str);
  }
  co_return !r.is_nil();  // nil: the key was there
}

Awaitable<Status> RecentBodies::Release(std::string_view writer, std::string_view body) {
  std::vector<std::string> argv{"DEL", Key(writer, body)};
  co_return ReplyOk(co_await client_.Command(std::move(argv)));
}

}  // namespace plaudit::redis
