#pragma once
// The short digest a key carries instead of a value a client chose (a comment body, a token's
// jti, a sign-in's state): BLAKE2b-128 (libsodium's crypto_generichash) in hex, 32 characters.
// A key then has a fixed size, and the value itself never sits in Redis.
#include <string>
#include <string_view>

namespace plaudit::redis {

std::string ShortDigest(std::string_view value);

}  // namespace plaudit::redis
