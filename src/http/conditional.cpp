#include "http/conditional.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace plaudit::http {

namespace {

// Calls `fn` with each trimmed item of a comma-separated header value; stops when it returns true.
template <class Fn>
bool AnyListItem(std::string_view header, Fn fn) {
  while (!header.empty()) {
    size_t comma = header.find(',');
    std::string_view item = header.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) {
      item.remove_prefix(1);
    }
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) {
      item.remove_suffix(1);
    }
    if (fn(item)) {
      return true;
    }
    if (comma == std::string_view::npos) {
      break;
    }
    header.remove_prefix(comma + 1);
  }
  return false;
}

bool IEquals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

}  // namespace

bool EtagMatches(std::string_view header, std::string_view etag) {
  return AnyListItem(header, [etag](std::string_view item) {
    // If-None-Match compares weakly (RFC 9110 13.1.2): W/"x" matches "x".
    if (item.starts_with("W/")) {
      item.remove_prefix(2);
    }
    return item == "*" || item == etag;
  });
}

bool AcceptsGzip(std::string_view header) {
  // RFC 9110 12.5.3: a coding named explicitly wins over "*"; q=0 (any spelling of zero,
  // "q" or "Q") refuses it.
  std::optional<bool> named, star;
  AnyListItem(header, [&](std::string_view item) {
    size_t semi = item.find(';');
    std::string_view coding = item.substr(0, semi);
    while (!coding.empty() && coding.back() == ' ') {
      coding.remove_suffix(1);
    }
    const bool is_gzip = IEquals(coding, "gzip") || IEquals(coding, "x-gzip");
    if (!is_gzip && coding != "*") {
      return false;
    }
    bool accepted = true;
    if (semi != std::string_view::npos) {
      std::string_view q = item.substr(semi + 1);
      while (!q.empty() && q.front() == ' ') {
        q.remove_prefix(1);
      }
      if (q.size() >= 2 && (q[0] == 'q' || q[0] == 'Q') && q[1] == '=') {
        accepted = q.find_first_not_of("0.", 2) != std::string_view::npos;
      }
    }
    if (is_gzip) {
      named = named.value_or(false) || accepted;
    } else {
      star = star.value_or(false) || accepted;
    }
    return false;  // every item is read
  });
  if (named) {
    return *named;
  }
  return star.value_or(false);
}

}  // namespace plaudit::http
