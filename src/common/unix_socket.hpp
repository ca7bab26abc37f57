#pragma once
// Probing a Unix socket: the embedded Redis child and the test harness both wait on one.
#include <filesystem>

namespace plaudit {

// Whether something accepts connections on the Unix socket at `path` (a path longer than
// sun_path is cut, as connect(2) would refuse it anyway).
bool UnixSocketAccepts(const std::filesystem::path& path);

}  // namespace plaudit
