#pragma once
// Probing a Unix socket: the embedded Redis child and the test harness both wait on one.
#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>

namespace plaudit {

// Whether something accepts connections on the Unix socket at `path` (a path longer than
// sun_path is cut, as connect(2) would refuse it anyway).
bool UnixSocketAccepts(const std::filesystem::path& path);

// Connects, sends `request` and returns the first bytes of the answer (at most 256) that come
// within `timeout`; empty when nothing connects or answers.
std::string UnixSocketAsk(const std::filesystem::path& path, std::string_view request,
                          std::chrono::milliseconds timeout);

}  // namespace plaudit
