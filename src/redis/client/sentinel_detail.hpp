#pragma once
// Private to the SentinelClient files (src/redis/client/sentinel_*.cpp): how they name a node
// and read a port. The design is in sentinel_client.hpp; the client is written in three files:
//   sentinel_client.cpp   its state: start and stop, whether a primary is usable, doubt, and
//                         the stats and observer that span its primaries;
//   sentinel_resolve.cpp  finding the primary: the Sentinels asked, the node named checked
//                         with ROLE, and the loop that does it when wanted and every second;
//   sentinel_calls.cpp    the Client calls, sent to the primary and watched for READONLY.
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "common/redis_endpoint.hpp"

namespace plaudit::redis::detail {

inline std::string Name(const RedisEndpoint::Node& n) {
  return n.host + ":" + std::to_string(n.port);
}

inline std::optional<int> Port(std::string_view s) {
  int port = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), port);
  if (ec != std::errc() || end != s.data() + s.size() || port <= 0 || port > 65535) {
    return std::nullopt;
  }
  return port;
}

}  // namespace plaudit::redis::detail
