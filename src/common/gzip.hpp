#pragma once
// gzip (RFC 1952) of a response body with zlib, for bodies sent many times (cached pages).
#include <optional>
#include <string>
#include <string_view>

namespace plaudit {

// `data` compressed with gzip framing at zlib's default level; nullopt if zlib fails.
std::optional<std::string> Gzip(std::string_view data);
// The inverse, for tests; nullopt on a damaged stream.
std::optional<std::string> Gunzip(std::string_view data);

}  // namespace plaudit
