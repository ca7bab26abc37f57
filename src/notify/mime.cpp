#include "notify/mime.hpp"

#include <sodium.h>

#include <ctime>

namespace plaudit::notify {
namespace {

std::string Base64(std::string_view bytes) {
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.size() - 1);  // the terminating NUL
  return out;
}

// Base64 in lines of 76 (RFC 2045).
std::string Base64Lines(std::string_view bytes) {
  const std::string b = Base64(bytes);
  std::string out;
  for (size_t at = 0; at < b.size(); at += 76) {
    out += b.substr(at, 76) + "\r\n";
  }
  return out;
}

// RFC 2047 encoded word(s) for a header text; ASCII without specials is sent as is.
std::string HeaderText(std::string_view text) {
  bool plain = true;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7F) {
      plain = false;
    }
  }
  if (plain) {
    return std::string(text);
  }
  // Encoded words of at most 45 input bytes (60 base64 characters), cut at UTF-8 boundaries.
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = std::min(text.size(), at + 45);
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
      --end;
    }
    if (!out.empty()) {
      out += "\r\n ";
    }
    out += "=?UTF-8?B?" + Base64(text.substr(at, end - at)) + "?=";
    at = end;
  }
  return out;
}

// A header value with CR and LF removed: nothing a reader typed can start a header.
std::string OneLine(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '\r' && c != '\n') {
      out += c;
    }
  }
  return out;
}

std::string MessageIdLeft(std::string_view event_id) {
  std::string out;
  for (char c : event_id) {
    const bool atext = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' ||
                       c == '.' || c == '+' || c == '=';
    out += atext ? c : '.';
  }
  return out;
}

std::string Date(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

}  // namespace

std::string MimeMessage(const Envelope& e, const Letter& l) {
  // Random, short (RFC 2046: at most 70 characters), and never in base64 text (it has '=').
  unsigned char raw[12];
  randombytes_buf(raw, sizeof raw);
  char hex[2 * sizeof raw + 1];
  sodium_bin2hex(hex, sizeof hex, raw, sizeof raw);
  const std::string boundary = std::string("=_plaudit_") + hex;
  std::string m;
  m += "From: " + OneLine(e.from) + "\r\n";
  m += "To: <" + OneLine(e.to) + ">\r\n";
  m += "Subject: " + HeaderText(OneLine(l.subject)) + "\r\n";
  m += "Date: " + Date(e.date_ms) + "\r\n";
  m += "Message-ID: <" + MessageIdLeft(e.event_id) + "@" + OneLine(e.domain) + ">\r\n";
  m += "Plaudit-Event-Id: " + OneLine(e.event_id) + "\r\n";
  if (!e.unsubscribe.empty()) {
    m += "List-Unsubscribe: <" + OneLine(e.unsubscribe) + ">\r\n";
    m += "List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n";
  }
  m += "Auto-Submitted: auto-generated\r\n";
  m += "MIME-Version: 1.0\r\n";
  m += "Content-Type: multipart/alternative; boundary=\"" + boundary + "\"\r\n\r\n";
  m += "--" + boundary + "\r\n";
  m += "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n";
  m += Base64Lines(l.text);
  m += "--" + boundary + "\r\n";
  m += "Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n";
  m += Base64Lines(l.html);
  m += "--" + boundary + "--\r\n";
  return m;
}

std::string BareAddress(const std::string& from) {
  const size_t open = from.rfind('<');
  const size_t close = from.rfind('>');
  if (open != std::string::npos && close != std::string::npos && close > open) {
    return from.substr(open + 1, close - open - 1);
  }
  return from;
}

}  // namespace plaudit::notify
