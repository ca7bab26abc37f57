#include "app/private_files.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cerrno>
#include <system_error>

namespace plaudit::app {
namespace {

namespace fs = std::filesystem;

// Drops the group and other bits of `path` (a dir keeps u+rwx); true when it changed them.
bool Tighten(const fs::path& path, const struct stat& st) {
  if ((st.st_mode & 077) == 0) {
    return false;
  }
  const mode_t mode = S_ISDIR(st.st_mode) ? 0700 : (st.st_mode & 0600);
  if (::chmod(path.c_str(), mode) != 0) {
    spdlog::warn("cannot restrict {} to {:o}: {}", path.string(), mode,
                 std::generic_category().message(errno));
    return false;
  }
  spdlog::warn(
      "restricted {} from {:04o} to {:04o} (files of an older plauditd were readable "
      "by other users)",
      path.string(), st.st_mode & 07777, mode);
  return true;
}

}  // namespace

Status EnsurePrivateDir(const fs::path& dir) {
  std::error_code ec;
  const fs::path abs = fs::absolute(dir, ec).lexically_normal();
  if (ec) {
    return Fail(ErrorCode::kUnavailable, "cannot resolve " + dir.string() + ": " + ec.message());
  }
  // Parents first, each made 0700 by mkdir itself (the umask can only take bits away).
  fs::path at;
  for (const auto& part : abs) {
    at /= part;
    if (::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST) {
      return Fail(ErrorCode::kUnavailable,
                  "cannot create " + at.string() + ": " + std::generic_category().message(errno));
    }
  }
  struct stat st{};
  if (::stat(abs.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Fail(ErrorCode::kUnavailable, "cannot create " + abs.string() + ": not a directory");
  }
  Tighten(abs, st);
  return {};
}

int TightenTree(const fs::path& dir) {
  int changed = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st{};
    if (::lstat(it->path().c_str(), &st) != 0) {
      continue;
    }
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
      continue;  // the socket has its own mode
    }
    if (Tighten(it->path(), st)) {
      ++changed;
    }
  }
  return changed;
}

}  // namespace plaudit::app
