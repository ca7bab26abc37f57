#pragma once
// Names this process where it must be told from others sharing one Redis: the owner of a
// rebuild lease or lock.
#include <string>

namespace plaudit {

// 64 random bits as 16 hex digits.
std::string RandomHexId();

}  // namespace plaudit
