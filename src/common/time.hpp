#pragma once
// Wall-clock times as milliseconds since the Unix epoch (how SQL stores them) and their
// RFC 3339 form in the API: 2026-11-29T21:30:00.123Z (UTC, always milliseconds).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plaudit {

int64_t NowMs();
// Years 0000 to 9999 (RFC 3339's range).
std::string FormatTimeMs(int64_t epoch_ms);
// The same 24 characters appended to `out` (no string of its own: a comment page writes two
// per comment).
void AppendTimeMs(std::string& out, int64_t epoch_ms);
// An RFC 3339 time ("Z" or an offset such as "+02:00"), the fraction optional (at most
// milliseconds are kept), as ms since the epoch; nullopt for anything else.
std::optional<int64_t> ParseTimeMs(std::string_view text);

}  // namespace plaudit
