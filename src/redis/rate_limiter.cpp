#include "redis/rate_limiter.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "redis/script.hpp"

namespace plaudit::redis {
namespace {

// FNV-1a, 64 bits: stable across builds and processes (std::hash is not promised to be), which
// all plauditd instances need to agree on a key. Not collision-resistant, which is acceptable
// here: see RateLimiter::Key.
uint64_t Fnv1a64(std::string_view data) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : data) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// Shortest text that reads back as the same double (the script's tonumber() is exact on it).
std::string FormatNumber(double value) {
  std::array<char, 64> buf{};
  auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
  return std::string(buf.data(), ec == std::errc() ? end : buf.data());
}

}  // namespace

RateLimiter::RateLimiter(Client& client, std::string key_prefix)
    : client_(client), key_prefix_(std::move(key_prefix)) {}

std::string RateLimiter::Key(std::string_view scope, std::string_view id) const {
  std::string key;
  key.reserve(key_prefix_.size() + scope.size() + 1 + kMaxIdBytes + 17);
  key.append(key_prefix_).append(scope).push_back(':');
  if (id.size() <= kMaxIdBytes) {
    key.append(id);
    return key;
  }
  // A long id keeps its first kMaxIdBytes (readable for operators) plus '#' and a hash of the
  // whole id. That form is longer than any id kept verbatim, so a short id can never be crafted
  // to share another id's budget; two long ids share one only if they have the same first
  // kMaxIdBytes and the same 64-bit hash. Plaudit's ids (addresses, user names, user ids) are
  // far shorter, so this only bounds what a hostile client can make Redis store.
  std::array<char, 16> hex{};
  auto [end, ec] = std::to_chars(hex.data(), hex.data() + hex.size(), Fnv1a64(id), 16);
  std::string digits(hex.data(), end);
  key.append(id.substr(0, kMaxIdBytes)).push_back('#');
  key.append(16 - digits.size(), '0').append(digits);
  return key;
}

Awaitable<Result<RateDecision>> RateLimiter::Check(std::string_view scope, std::string_view id,
                                                   RateLimit limit, bool consume) {
  if (!limit.enabled()) {
    co_return RateDecision{};
  }
  // Named vectors, not braced lists inside co_await (GCC 12 miscompiles those).
  std::vector<std::string> keys{Key(scope, id)};
  std::vector<std::string> args{
      FormatNumber(static_cast<double>(limit.period_ms) / static_cast<double>(limit.count)),
      std::to_string(limit.period_ms), consume ? "1" : "0"};
  auto reply = co_await client_.Eval(GetScript("rate_limit.lua"), std::move(keys), std::move(args));
  if (!reply) {
    co_return tl::unexpected(std::move(reply.error()));
  }
  if (reply->is_error()) {
    co_return Fail(ErrorCode::kInternal, "rate limit script failed: " + reply->str);
  }
  if (reply->type != Reply::Type::kArray || reply->elements.size() != 2 ||
      reply->elements[0].type != Reply::Type::kInteger ||
      reply->elements[1].type != Reply::Type::kInteger) {
    co_return Fail(ErrorCode::kInternal, "unexpected reply from rate_limit.lua");
  }
  RateDecision decision;
  decision.allowed = reply->elements[0].integer == 1;
  decision.retry_after_ms = decision.allowed ? 0 : std::max<int64_t>(1, reply->elements[1].integer);
  co_return decision;
}

Awaitable<Status> RateLimiter::Refund(std::string_view scope, std::string_view id,
                                      RateLimit limit) {
  if (!limit.enabled()) {
    co_return Status{};
  }
  std::vector<std::string> keys{Key(scope, id)};
  std::vector<std::string> args{
      FormatNumber(static_cast<double>(limit.period_ms) / static_cast<double>(limit.count)),
      std::to_string(limit.period_ms)};
  auto reply =
      co_await client_.Eval(GetScript("rate_refund.lua"), std::move(keys), std::move(args));
  if (!reply) {
    co_return tl::unexpected(std::move(reply.error()));
  }
  if (reply->is_error()) {
    co_return Fail(ErrorCode::kInternal, "rate refund script failed: " + reply->str);
  }
  co_return Status{};
}

Awaitable<Status> RateLimiter::Enforce(std::string_view scope, std::string_view id, RateLimit limit,
                                       std::string_view message) {
  if (!limit.enabled()) {
    co_return Status{};
  }
  auto decision = co_await Check(scope, id, limit, /*consume=*/true);
  if (!decision) {
    co_return tl::unexpected(std::move(decision.error()));
  }
  if (decision->allowed) {
    co_return Status{};
  }
  // Retry-After is in whole seconds: round up so a client that obeys it is not denied again.
  int64_t seconds = std::max<int64_t>(1, (decision->retry_after_ms + 999) / 1000);
  seconds = std::min<int64_t>(seconds, std::numeric_limits<int>::max());
  co_return tl::unexpected(
      Error{ErrorCode::kRateLimited, std::string(message), static_cast<int>(seconds)});
}

}  // namespace plaudit::redis
