#include "common/fd_limit.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace plaudit {

size_t RaiseOpenFileLimit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    return 1024;
  }
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      lim = raised;
    }
  }
  return lim.rlim_cur == RLIM_INFINITY ? size_t{1} << 20 : static_cast<size_t>(lim.rlim_cur);
}

size_t DefaultMaxConnections(size_t open_file_limit) {
  constexpr size_t kReserved = 256;
  const size_t room = open_file_limit > kReserved ? open_file_limit - kReserved : 0;
  return std::clamp<size_t>(room, 16, 10'000);
}

}  // namespace plaudit
