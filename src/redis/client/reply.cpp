#include "redis/client/reply.hpp"

#include <charconv>
#include <string_view>

#include "common/decimal.hpp"

namespace plaudit::redis {

std::optional<int64_t> Reply::AsInt() const {
  if (type == Type::kInteger) {
    return integer;
  }
  if (type != Type::kString || str.empty()) {
    return std::nullopt;
  }
  if (auto v = ShortDecimal(str)) {
    return v;
  }
  int64_t value = 0;
  const char* end = str.data() + str.size();
  auto [ptr, ec] = std::from_chars(str.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return value;
}

std::optional<Error> UnavailableReply(const Reply& r) {
  if (!r.is_error()) {
    return std::nullopt;
  }
  // The error's code is its first word: BUSYKEY and BUSYGROUP are the caller's mistakes.
  const std::string_view code = std::string_view(r.str).substr(0, r.str.find(' '));
  std::string_view why;
  if (code == "LOADING") {
    why = "loading its data";
  } else if (code == "BUSY") {
    why = "busy running a script";
  } else if (code == "MASTERDOWN") {
    why = "its primary is down";
  } else {
    return std::nullopt;
  }
  return Error{ErrorCode::kUnavailable, "redis unavailable (" + std::string(why) + "); retry"};
}

namespace {

tl::unexpected<Error> ReplyError(const Reply& r) {
  if (auto e = UnavailableReply(r)) {
    return tl::unexpected(std::move(*e));
  }
  return Fail(ErrorCode::kInternal, "redis: " + r.str);
}

}  // namespace

Status ReplyOk(const Result<Reply>& r) {
  PL_CHECK(r);
  if (r->is_error()) {
    return ReplyError(*r);
  }
  return {};
}

Status AllOk(const Result<std::vector<Reply>>& r) {
  PL_CHECK(r);
  for (const auto& x : *r) {
    if (x.is_error()) {
      return ReplyError(x);
    }
  }
  return {};
}

}  // namespace plaudit::redis
