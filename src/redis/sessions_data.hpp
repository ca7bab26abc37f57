#pragma once
// What a session holds (a Redis hash, see sessions.hpp): only whose it is. What that user may
// do is looked up in SQL on each request (domain/user_directory.hpp), never copied here.
#include <cstdint>

namespace plaudit::redis {

struct SessionData {
  int64_t user_id = 0;
};

}  // namespace plaudit::redis
