#pragma once
// What the tests of the `import --from` readers share: their sample files and a sink that
// keeps what a reader hands over.
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "transfer/foreign.hpp"

namespace plaudit::transfer::test {

// tests/data/import/`name`, whole.
inline std::string ImportSample(const std::string& name) {
  std::ifstream in(std::string(PLAUDIT_SOURCE_DIR) + "/tests/data/import/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every thread and comment a reader hands over, in its order.
class Collect : public ForeignSink {
 public:
  Status Thread(ForeignThread t) override {
    threads.push_back(std::move(t));
    return {};
  }
  Status Comment(ForeignComment c) override {
    comments.push_back(std::move(c));
    return {};
  }
  std::vector<ForeignThread> threads;
  std::vector<ForeignComment> comments;
};

// `text` through the reader of `source`.
inline Status ReadText(Source source, const std::string& text, Collect& got) {
  std::istringstream in(text);
  return ReadForeign(source, in, got);
}

}  // namespace plaudit::transfer::test
