#pragma once
// The search index's background pass (domain/search.hpp): every `interval`, what the change
// feed says changed since the index's cursor, at most kStepsPerPass steps a pass (a pass that
// did that many comes again at once: a rebuild goes on without holding the executor long).
// Several instances may run it: each step locks the cursor (sql/search.hpp).
#include <chrono>

#include "common/net.hpp"
#include "domain/search.hpp"

namespace plaudit::flush {

class SearchIndexer {
 public:
  SearchIndexer(const net::any_io_executor& ex, domain::SearchService& search,
                std::chrono::milliseconds interval)
      : search_(search), interval_(interval), timer_(ex) {}

  static constexpr int64_t kStepsPerPass = 20;

  void Start();
  void Stop();

 private:
  void Arm(std::chrono::milliseconds after);

  domain::SearchService& search_;
  std::chrono::milliseconds interval_;
  net::steady_timer timer_;
  bool stopped_ = true;
};

}  // namespace plaudit::flush
