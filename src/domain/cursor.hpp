#pragma once
// Opaque, URL-safe paging cursors: base64url of a short internal form. Clients pass them
// back unchanged; anything that does not decode is a 400.
#include <optional>
#include <string>
#include <string_view>

namespace plaudit::domain {

std::string EncodeCursor(std::string_view raw);
std::optional<std::string> DecodeCursor(std::string_view cursor);

}  // namespace plaudit::domain
