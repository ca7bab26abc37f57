#include "redis/reply.hpp"

#include <charconv>

#include "redis/fields.hpp"

namespace plaudit::redis {

std::optional<int64_t> Reply::AsInt() const {
  if (type == Type::kInteger) {
    return integer;
  }
  if (type != Type::kString || str.empty()) {
    return std::nullopt;
  }
  if (auto v = ShortDecimal(str)) return v;
  int64_t value = 0;
  const char* end = str.data() + str.size();
  auto [ptr, ec] = std::from_chars(str.data(), end, value);
  if (ec != std::errc() || ptr != end) {
    return std::nullopt;
  }
  return value;
}

Status ReplyOk(const Result<Reply>& r) {
  if (!r) return tl::unexpected(r.error());
  if (r->is_error()) return Fail(ErrorCode::kInternal, "redis: " + r->str);
  return {};
}

Status AllOk(const Result<std::vector<Reply>>& r) {
  if (!r) return tl::unexpected(r.error());
  for (const auto& x : *r) {
    if (x.is_error()) return Fail(ErrorCode::kInternal, "redis: " + x.str);
  }
  return {};
}

}  // namespace plaudit::redis
