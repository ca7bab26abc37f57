#include "http/wire.hpp"

#include <charconv>
#include <cstring>

namespace plaudit::http {
namespace {

void AppendClean(std::string& out, std::string_view text) {
  // Almost every value is clean: one scan, one append.
  if (!std::memchr(text.data(), '\r', text.size()) &&
      !std::memchr(text.data(), '\n', text.size())) {
    out.append(text);
    return;
  }
  for (char c : text) {
    if (c != '\r' && c != '\n') {
      out.push_back(c);
    }
  }
}

void AppendField(std::string& out, std::string_view name, std::string_view value) {
  AppendClean(out, name);
  out.append(": ");
  AppendClean(out, value);
  out.append("\r\n");
}

void AppendNumber(std::string& out, uint64_t n) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), n);
  out.append(digits, end);
}

bool HasNoPayload(beast::http::status s) {
  return beast::http::to_status_class(s) == beast::http::status_class::informational ||
         s == beast::http::status::no_content || s == beast::http::status::not_modified;
}

}  // namespace

std::string SerializeResponse(const Response& r, unsigned version, bool keep_alive, bool head) {
  const bool no_payload = HasNoPayload(r.status);
  const size_t body_size = r.shared_body ? r.shared_body->size() : r.body.size();
  std::string out;
  out.reserve(240 + (r.shared_body ? 0 : r.body.size()));
  out.append(version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ");
  AppendNumber(out, static_cast<unsigned>(r.status));
  out.push_back(' ');
  out.append(beast::http::obsolete_reason(r.status));
  // The security headers every answer carries (one literal, so they cost a copy, nothing
  // more): no MIME sniffing of JSON into HTML, and no full URLs leaking to other sites.
  out.append(
      "\r\nServer: plaudit\r\nX-Content-Type-Options: nosniff\r\n"
      "Referrer-Policy: strict-origin-when-cross-origin\r\n");
  if (!r.content_type.empty()) {
    AppendField(out, "Content-Type", r.content_type);
  }
  for (const auto& [name, value] : r.headers) {
    AppendField(out, name, value);
  }
  // A stream's length is not known: it ends when the connection closes (keep_alive is false).
  if (!no_payload && !r.stream) {
    out.append("Content-Length: ");
    AppendNumber(out, body_size);
    out.append("\r\n");
  }
  if (version >= 11 && !keep_alive) {
    out.append("Connection: close\r\n");
  }
  if (version < 11 && keep_alive) {
    out.append("Connection: keep-alive\r\n");
  }
  out.append("\r\n");
  if (!head && !no_payload && !r.shared_body) {
    out.append(r.body);
  }
  return out;
}

std::string_view BodyAfterHead(const Response& r, bool head) {
  if (!r.shared_body || head || HasNoPayload(r.status)) {
    return {};
  }
  return *r.shared_body;
}

}  // namespace plaudit::http
