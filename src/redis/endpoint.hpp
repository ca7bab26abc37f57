#pragma once
// Where a Redis URL points: redis://host[:port][/db] or unix:///path[?db=N] (no AUTH).
#include <string>

namespace plaudit::redis {

struct Endpoint {
  std::string host;
  int port = 6379;
  std::string unix_path;  // set for unix:// URLs
  int db = 0;

  std::string Describe() const;
};

// Throws std::invalid_argument naming the problem when `url` is not a supported Redis URL.
Endpoint ParseUrl(const std::string& url);

}  // namespace plaudit::redis
