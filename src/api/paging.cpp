#include "api/paging.hpp"

#include <charconv>

namespace plaudit::api {

Result<int64_t> IntParam(const http::Request& req, std::string_view name, int64_t fallback,
                         int64_t min, int64_t max) {
  auto raw = req.Query(name);
  if (!raw) {
    return fallback;
  }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(raw->data(), raw->data() + raw->size(), v);
  if (raw->empty() || ec != std::errc() || ptr != raw->data() + raw->size() || v < min || v > max) {
    return Fail(ErrorCode::kInvalidArgument, std::string(name) + " must be an integer from " +
                                                 std::to_string(min) + " to " +
                                                 std::to_string(max));
  }
  return v;
}

Result<domain::PageRequest> ParsePaging(const http::Request& req, int64_t default_size,
                                        int64_t max_size) {
  domain::PageRequest p;
  auto size = IntParam(req, "size", default_size, 1, max_size);
  PL_CHECK(size);
  p.size = *size;
  // Deep offsets are allowed (ranks cost the same at any depth) but bounded in magnitude.
  auto page = IntParam(req, "page", 1, 1, 10'000'000);
  PL_CHECK(page);
  p.page = *page;
  if (auto cursor = req.Query("cursor")) {
    if (req.Query("page")) {
      return Fail(ErrorCode::kInvalidArgument, "give either page or cursor, not both");
    }
    if (cursor->empty()) {
      return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
    }
    p.cursor = std::move(*cursor);
  }
  return p;
}

}  // namespace plaudit::api
