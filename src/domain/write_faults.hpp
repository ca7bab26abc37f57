#pragma once
// Where a test makes a committed write's Redis step fail, or runs something just before it. The
// wiring owns one, empty (every point unset: production never stops), and gives it to the
// article and comment services at construction; tests set points through App::write_faults()
// (as flush/fault_points.hpp does for the write-behind).
#include <cstdint>
#include <functional>

#include "common/net.hpp"

namespace plaudit::domain {

struct WriteFaults {
  // Awaited before a committed article write's Redis step (to land it behind another's).
  std::function<Awaitable<void>(int64_t article_id)> before_article_reflect;
  // True: a committed comment write's Redis step is skipped and treated as failed.
  std::function<bool()> comment_reflect_fails;
};

}  // namespace plaudit::domain
