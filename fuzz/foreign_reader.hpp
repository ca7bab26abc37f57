#pragma once
// One foreign reader (transfer/foreign.hpp) on any bytes, as `import --from` runs it: records
// go to a sink that checks what every reader promises (a comment's text kept to
// kMaxForeignText bytes). An error for bad input
// is the reader's answer, not a finding; a crash, a sanitizer report or a broken promise is.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "transfer/foreign.hpp"

namespace plaudit::fuzz {

class CheckingSink : public transfer::ForeignSink {
 public:
  Status Thread(transfer::ForeignThread thread) override { return {}; }
  Status Comment(transfer::ForeignComment comment) override {
    if (comment.text.size() > transfer::kMaxForeignText) {
      Fail("a comment's text of " + std::to_string(comment.text.size()) + " bytes");
    }
    return {};
  }

 private:
  [[noreturn]] static void Fail(const std::string& what) {
    std::fprintf(stderr, "broken promise: %s\n", what.c_str());
    std::abort();
  }
};

inline int ReadAll(transfer::Source source, const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  CheckingSink sink;
  (void)transfer::ReadForeign(source, in, sink);
  return 0;
}

}  // namespace plaudit::fuzz
