#include "common/random_id.hpp"

#include <sodium.h>

namespace plaudit {

std::string RandomHexId() {
  unsigned char raw[8];
  randombytes_buf(raw, sizeof(raw));
  char hex[17];
  sodium_bin2hex(hex, sizeof(hex), raw, sizeof(raw));
  return hex;
}

}  // namespace plaudit
