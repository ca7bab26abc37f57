#pragma once
// A private directory under $TMPDIR, removed with everything in it on destruction.
#include <filesystem>
#include <string>

namespace plaudit::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "plaudit-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace plaudit::testing
