#pragma once
// The webhook signature (API.md "Notifications"): `Plaudit-Signature: sha256=<hex>`, the
// HMAC-SHA256 of the exact body bytes under --webhook-secret (libsodium's
// crypto_auth_hmacsha256, which takes a key of any length). A receiver recomputes it over the
// bytes it read, before parsing them, and compares in constant time.
#include <string>
#include <string_view>

namespace plaudit::notify {

std::string SignatureHeader(std::string_view secret, std::string_view body);

}  // namespace plaudit::notify
