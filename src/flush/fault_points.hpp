#pragma once
// Where a test stops a flush pass as a crash would, or runs something between two of its
// steps. The wiring owns one, empty (every point unset: production never stops), and gives it
// to each flush at construction; tests set points through App::flush_faults().
#include <functional>

#include "common/net.hpp"

namespace plaudit::flush {

struct FaultPoints {
  // After a like batch's SQL commit, before its Redis cleanup: true aborts the pass there.
  std::function<bool()> like_after_commit;
  // Awaited after each like claim, before its SQL write (what else happens meanwhile).
  std::function<Awaitable<void>()> like_after_claim;
  // After a views claim, before its SQL commit: true aborts the pass there.
  std::function<bool()> view_after_claim;
};

}  // namespace plaudit::flush
