#pragma once
// What a session holds (a Redis hash, see sessions.hpp).
#include <cstdint>
#include <string>

namespace plaudit::redis {

struct SessionData {
  int64_t user_id = 0;
  std::string username;
  std::string display_name;
  std::string role;
};

}  // namespace plaudit::redis
