#pragma once
// Percent-encoding (RFC 3986 2.1), as page URLs, IRIs and query strings use it. Decoding is
// lenient, as browsers are: a '%' not followed by two hex digits is kept as it is.
#include <string>
#include <string_view>

namespace plaudit {

// The byte the escape %XX starting at `s[i]` (i < s.size()) stands for; -1 when none starts
// there.
int PercentEscapeAt(std::string_view s, size_t i);

// Every valid %XX of `s` decoded; anything else kept as it is.
std::string PercentDecode(std::string_view s);
// As PercentDecode, for a query's names and values (application/x-www-form-urlencoded):
// '+' is a space.
std::string FormDecode(std::string_view s);

// `byte` as %XX, in the upper-case hex RFC 3986 6.2.2.1 normalises to, appended to `out`.
void AppendPercentEscape(std::string& out, unsigned char byte);

}  // namespace plaudit
