#pragma once
// The data dir holds password hashes (plaudit.db) and every session and unflushed like (the
// AOF): only plauditd's user may read it, whatever the umask (issue 41, item 13). Dirs are
// 0700 and files 0600; a data dir left by an older version (0755 dirs, 0644 files under
// umask 022) is tightened at start, with a warning naming what changed.
#include <filesystem>

#include "common/result.hpp"

namespace plaudit::app {

// Creates `dir` (and missing parents, those 0700 too) or tightens an existing one to 0700.
Status EnsurePrivateDir(const std::filesystem::path& dir);
// Tightens every file under `dir` to at most 0600 and every dir to 0700 (no symlinks
// followed); returns how many it changed.
int TightenTree(const std::filesystem::path& dir);

}  // namespace plaudit::app
