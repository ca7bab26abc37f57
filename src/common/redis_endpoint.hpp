#pragma once
// Where a Redis URL points: redis://host[:port][/db] or unix:///path[?db=N] (no AUTH).
// Parsed once at start-up (src/config, --redis); redis::Client and redis::Subscriber connect to
// the parsed value.
#include <string>
#include <string_view>
#include <utility>

#include "common/result.hpp"

namespace plaudit {

struct RedisEndpoint {
  std::string host;
  int port = 6379;
  std::string unix_path;  // set for unix:// URLs
  int db = 0;

  static RedisEndpoint Tcp(std::string host, int port = 6379, int db = 0) {
    return RedisEndpoint{std::move(host), port, {}, db};
  }
  static RedisEndpoint Unix(std::string path, int db = 0) {
    return RedisEndpoint{{}, 6379, std::move(path), db};
  }

  std::string Describe() const;

  friend bool operator==(const RedisEndpoint&, const RedisEndpoint&) = default;
};

// kInvalidArgument naming the problem (not the flag) when `url` is not a supported Redis URL.
Result<RedisEndpoint> ParseRedisUrl(std::string_view url);

}  // namespace plaudit
