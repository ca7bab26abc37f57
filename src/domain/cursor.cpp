#include "domain/cursor.hpp"

#include <sodium.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <vector>

namespace plaudit::domain {

std::string EncodeCursor(std::string_view raw) {
  std::vector<char> out(
      sodium_base64_ENCODED_LEN(raw.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING));
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(raw.data()),
                    raw.size(), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  return out.data();
}

std::optional<std::string> DecodeCursor(std::string_view cursor) {
  if (cursor.empty() || cursor.size() > 256) {
    return std::nullopt;
  }
  std::vector<unsigned char> out(cursor.size());
  size_t len = 0;
  if (sodium_base642bin(out.data(), out.size(), cursor.data(), cursor.size(), nullptr, &len,
                        nullptr, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0) {
    return std::nullopt;
  }
  return std::string(out.begin(), out.begin() + static_cast<long>(len));
}

std::string EncodeScoreCursor(char tag, int64_t score, int64_t id) {
  return EncodeCursor(std::string(1, tag) + std::to_string(score) + "." + std::to_string(id));
}

std::optional<std::pair<int64_t, int64_t>> DecodeScoreCursor(std::string_view cursor, char tag) {
  auto raw = DecodeCursor(cursor);
  if (!raw || raw->empty() || raw->front() != tag) {
    return std::nullopt;
  }
  const char* const end = raw->data() + raw->size();
  int64_t score = 0;
  int64_t id = 0;
  const auto [dot, score_ec] = std::from_chars(raw->data() + 1, end, score);
  if (score_ec != std::errc() || dot == end || *dot != '.') {
    return std::nullopt;
  }
  const auto [id_end, id_ec] = std::from_chars(dot + 1, end, id);
  if (id_ec != std::errc() || id_end != end || id <= 0) {
    return std::nullopt;
  }
  // Only the spelling EncodeScoreCursor writes: from_chars also takes leading zeros and "-0",
  // which would make one position many cursors (each its own page-cache key).
  if (EncodeScoreCursor(tag, score, id) != cursor) {
    return std::nullopt;
  }
  return std::pair<int64_t, int64_t>{score, id};
}

namespace {

// All of `s` as an unsigned decimal: digits only, no sign or space, within uint64_t.
std::optional<uint64_t> Digits(std::string_view s) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    return std::nullopt;
  }
  return v;
}

}  // namespace

std::optional<ChangeCursor> ParseChangeCursor(std::string_view cursor) {
  constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
  ChangeCursor out;
  if (cursor.empty()) {
    out.after_id = 0;
    return out;
  }
  const size_t dash = cursor.find('-');
  if (dash == std::string_view::npos) {
    auto id = Digits(cursor);
    if (!id || *id > kMax) {
      return std::nullopt;
    }
    out.after_id = static_cast<int64_t>(*id);
    return out;
  }
  // A stream id: both parts are 64-bit unsigned in Redis. The sequence only ordered entries
  // within one ms; resuming at the ms may repeat a few changes of that ms, never skip one.
  auto ms = Digits(cursor.substr(0, dash));
  auto seq = Digits(cursor.substr(dash + 1));
  if (!ms || !seq) {
    return std::nullopt;
  }
  out.from_ms = static_cast<int64_t>(std::min(*ms, kMax));
  return out;
}

}  // namespace plaudit::domain
