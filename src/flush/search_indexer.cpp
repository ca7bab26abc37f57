#include "flush/search_indexer.hpp"

#include <spdlog/spdlog.h>

#include "common/timed_pass.hpp"

namespace plaudit::flush {

void SearchIndexer::Start() {
  stopped_ = false;
  Arm(std::chrono::milliseconds(0));  // at start-up: a new index is built at once
}

void SearchIndexer::Stop() {
  stopped_ = true;
  timer_.cancel();
}

void SearchIndexer::Arm(std::chrono::milliseconds after) {
  SpawnAfter(timer_, stopped_, after, [this]() -> Awaitable<void> {
    auto done = co_await search_.Index(kStepsPerPass);
    if (!done) {
      spdlog::warn("search index pass failed: {}", done.error().message);
    }
    // A pass that did all it may do has more to do.
    const bool more = done && *done >= kStepsPerPass;
    Arm(more ? std::chrono::milliseconds(0) : interval_);
  });
}

}  // namespace plaudit::flush
