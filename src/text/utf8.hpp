#pragma once
// UTF-8 helpers. Lengths in the API are counted in Unicode code points, not bytes.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace plaudit::text {

// Number of code points, or nullopt when `s` is not valid UTF-8 (overlong forms,
// surrogates and code points above U+10FFFF are invalid).
std::optional<size_t> CodePoints(std::string_view s);
// The first `n` code points of valid UTF-8 `s`.
std::string_view PrefixCodePoints(std::string_view s, size_t n);
// The largest length of at most `n` bytes at which `s` can be cut without splitting a UTF-8
// character (`s` itself when it is no longer than `n`).
size_t CutPoint(std::string_view s, size_t n);
// `s` without leading and trailing Unicode white space (ASCII white space, U+00A0,
// U+1680, U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF).
std::string_view Trim(std::string_view s);

}  // namespace plaudit::text
