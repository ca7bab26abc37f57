#pragma once
// A guest's edit token (API.md "Guests and sign-in from elsewhere", issue 43): the one secret
// that lets the browser which posted a guest comment edit or delete it within the edit window.
// The client gets it once (the 201's "editToken"); the database keeps only its hash, so a
// leaked database or backup edits nothing. 32 random bytes (libsodium's randombytes), sent
// base64url without padding; the hash is BLAKE2b-256 (crypto_generichash) in hex, as session
// tokens are hashed (redis/sessions.cpp); a presented token is compared by its hash, in
// constant time (sodium_memcmp).
#include <string>
#include <string_view>

namespace plaudit::domain {

struct GuestToken {
  std::string token;  // for the client, once
  std::string hash;   // for the database
};

GuestToken NewGuestToken();
// The hash a presented token must have: 64 hex digits; "" for a token that is not of the
// shape NewGuestToken makes (so it matches nothing).
std::string HashGuestToken(std::string_view token);
// Whether `token` is the one whose hash is `stored_hash`, in time independent of where they
// differ. False for an empty or malformed token or hash.
bool GuestTokenMatches(std::string_view token, std::string_view stored_hash);

}  // namespace plaudit::domain
