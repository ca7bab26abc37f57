#pragma once
// JSON text written straight into a string, for the hot list responses: building a
// boost::json object per item, then serialising and destroying it, was most of an article
// list request's instructions (callgrind, 2026-11-30). Escaping follows RFC 8259 as
// boost::json::serialize does: '"', '\\' and control characters; other bytes (UTF-8) as is.
#include <cstdint>
#include <string>
#include <string_view>

namespace plaudit::render::json_text {

// "text", quoted and escaped.
void String(std::string& out, std::string_view text);
void Int(std::string& out, int64_t n);
// A time as FormatTimeMs writes it, quoted.
void TimeMs(std::string& out, int64_t epoch_ms);
inline void Bool(std::string& out, bool b) { out.append(b ? "true" : "false"); }
inline void Null(std::string& out) { out.append("null"); }
// `"key":` (keys are literals of plain ASCII: not escaped).
inline void Key(std::string& out, std::string_view key) {
  out.push_back('"');
  out.append(key);
  out.append("\":");
}

// [item, item, …]: `append(out, item)` writes each one.
template <class Items, class Append>
void Array(std::string& out, const Items& items, Append append) {
  out.push_back('[');
  bool first = true;
  for (const auto& item : items) {
    if (!first) {
      out.push_back(',');
    }
    first = false;
    append(out, item);
  }
  out.push_back(']');
}

}  // namespace plaudit::render::json_text
