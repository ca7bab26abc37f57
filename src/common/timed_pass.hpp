#pragma once
// The timer step of the background loops (flush::Flusher, notify::Notifier): wait, then run one
// pass on the timer's executor; the pass arms the next wait when it is done, so passes never
// overlap. Stop() sets `stopped` and cancels the timer: a wait under way then ends with
// operation_aborted, and a pass already running arms nothing more.
#include <chrono>
#include <utility>

#include "common/net.hpp"

namespace plaudit {

// After `after`, spawns `pass()` (an Awaitable<void>) detached on `timer`'s executor; nothing
// when `stopped` is set, now or when the wait ends.
template <class Pass>
void SpawnAfter(net::steady_timer& timer, const bool& stopped, std::chrono::milliseconds after,
                Pass pass) {
  if (stopped) {
    return;
  }
  timer.expires_after(after);
  timer.async_wait(
      [&timer, &stopped, pass = std::move(pass)](boost::system::error_code ec) mutable {
        if (ec || stopped) {
          return;
        }
        net::co_spawn(timer.get_executor(), std::move(pass), net::detached);
      });
}

}  // namespace plaudit
