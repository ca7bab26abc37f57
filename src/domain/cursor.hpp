#pragma once
// Opaque, URL-safe paging cursors: base64url of a short internal form. Clients pass them
// back unchanged; anything that does not decode is a 400.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace plaudit::domain {

std::string EncodeCursor(std::string_view raw);
std::optional<std::string> DecodeCursor(std::string_view cursor);

// The cursor of a score-ordered index: "<tag><score>.<id>", the tag naming the list/order
// so a cursor from another one is refused.
std::string EncodeScoreCursor(char tag, int64_t score, int64_t id);
// (score, id), or nullopt when `cursor` is not one of `tag`'s.
std::optional<std::pair<int64_t, int64_t>> DecodeScoreCursor(std::string_view cursor, char tag);

// Where the change feed (GET /api/v1/changes) resumes. Its cursors are plain decimal outbox
// ids, not opaque: indexers store them, and before the outbox they were Redis stream ids
// "<ms>-<seq>", which are still accepted so no indexer breaks on upgrade. Exactly one field
// is set.
struct ChangeCursor {
  std::optional<int64_t> after_id;  // decimal: changes with a greater id ("" is 0)
  std::optional<int64_t> from_ms;   // "<ms>-<seq>": from the first change whose at >= ms
};
// nullopt for anything else (signs, spaces, other characters, numbers out of range).
std::optional<ChangeCursor> ParseChangeCursor(std::string_view cursor);

}  // namespace plaudit::domain
