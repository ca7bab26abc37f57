// Every suite binary prints its failures once more at the very end of its output, each cut
// short. A suite's output can run to megabytes (the fault tests print their fault sequences
// and plauditd's warnings), and a CI log that is shown by its head and tail would otherwise
// show that a test failed and not why (a FaultTest failure on PostgreSQL, 2026-12-07).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace plaudit::testing {
namespace {

constexpr size_t kMaxFailures = 10;
constexpr size_t kMaxMessage = 2000;  // bytes of each failure's message

class FailureSummary : public ::testing::EmptyTestEventListener {
 public:
  // The test's name from here: OnTestPartResult runs under the mutex of UnitTest, which
  // current_test_info() would take again (and wait for itself).
  void OnTestStart(const ::testing::TestInfo& test) override {
    const std::lock_guard lock(mu_);
    test_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestEnd(const ::testing::TestInfo& /*test*/) override {
    const std::lock_guard lock(mu_);
    test_ = "(outside any test)";
  }

  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) {
      return;
    }
    const std::lock_guard lock(mu_);  // a test's own threads may fail too
    ++failed_;
    if (failures_.size() >= kMaxFailures) {
      return;
    }
    std::string text = test_ + " at ";
    text += result.file_name() != nullptr ? result.file_name() : "?";
    text += ":" + std::to_string(result.line_number()) + "\n";
    const std::string message = result.message();
    size_t cut = std::min(kMaxMessage, message.size());
    while (cut > 0 && cut < message.size() &&
           (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80) {
      --cut;  // not inside a UTF-8 character
    }
    text += message.substr(0, cut);
    if (message.size() > kMaxMessage) {
      text += "\n  [... " + std::to_string(message.size() - kMaxMessage) +
              " more bytes: the whole message is in the output above]";
    }
    failures_.push_back(std::move(text));
  }

  void OnTestProgramEnd(const ::testing::UnitTest& /*unit*/) override {
    const std::lock_guard lock(mu_);
    if (failures_.empty()) {
      return;
    }
    std::printf("\n[failures, again: %zu, the first %zu cut to %zu bytes]\n", failed_,
                failures_.size(), kMaxMessage);
    for (const std::string& f : failures_) {
      std::printf("- %s\n", f.c_str());
    }
    std::fflush(stdout);
  }

 private:
  std::mutex mu_;
  std::string test_ = "(outside any test)";
  size_t failed_ = 0;
  std::vector<std::string> failures_;
};

// Before main (gtest_main's): the listeners take it before RUN_ALL_TESTS, which owns it.
[[maybe_unused]] const bool kRegistered = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new FailureSummary);
  return true;
}();

}  // namespace
}  // namespace plaudit::testing
