#include "common/iri.hpp"

#include <idn2.h>

#include <algorithm>
#include <memory>

#include "common/percent_encoding.hpp"

namespace plaudit {
namespace {

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// `s` with each byte outside ASCII as %XX, appended to `out`.
void AppendEncoded(std::string& out, std::string_view s) {
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out += c;
    } else {
      AppendPercentEscape(out, b);
    }
  }
}

// The host's ASCII form: as it is unless it names non-ASCII characters (raw or
// percent-encoded, which a browser decodes before IDNA too).
Result<std::string> HostToAscii(std::string_view host) {
  const std::string decoded = PercentDecode(host);
  if (IsAscii(decoded)) {
    return std::string(host);
  }
  // What WHATWG URL forbids in a host once decoded: "b%C3%BC%00.evil" must not reach IDNA as
  // the C string "bü", nor "%2F" end the host.
  if (decoded.find_first_of(std::string_view(" #%/:<>?@[\\]^|\0\t\n\r", 18)) != std::string::npos) {
    return Fail(ErrorCode::kInvalidArgument, "has a host with a character no host may hold");
  }
  char* ascii = nullptr;
  const int rc = idn2_to_ascii_8z(decoded.c_str(), &ascii, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL);
  if (rc != IDN2_OK) {
    return Fail(ErrorCode::kInvalidArgument,
                std::string("has a host that is not a valid internationalised domain name (") +
                    idn2_strerror(rc) + ")");
  }
  const std::unique_ptr<char, void (*)(void*)> owned(ascii, &idn2_free);
  return std::string(ascii);
}

}  // namespace

Result<std::string> IriToUri(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // scheme "://" authority: only there is a host to map; otherwise (a relative reference,
  // "mailto:") every part is a path's, a query's or a fragment's.
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || text.substr(colon + 1, 2) != "//") {
    AppendEncoded(out, text);
    return out;
  }
  const size_t authority = colon + 3;
  size_t authority_end = text.find_first_of("/?#", authority);
  if (authority_end == std::string_view::npos) {
    authority_end = text.size();
  }
  const size_t at = text.substr(0, authority_end).rfind('@');
  const size_t host = at == std::string_view::npos || at < authority ? authority : at + 1;
  size_t host_end = host;
  if (host < authority_end && text[host] == '[') {  // an IP literal: ASCII or invalid anyway
    host_end = text.find(']', host);
    host_end = host_end == std::string_view::npos || host_end > authority_end ? authority_end
                                                                              : host_end + 1;
  } else {
    host_end = text.find(':', host);
    if (host_end == std::string_view::npos || host_end > authority_end) {
      host_end = authority_end;
    }
  }
  PL_TRY(auto ascii, HostToAscii(text.substr(host, host_end - host)));
  AppendEncoded(out, text.substr(0, host));
  out += ascii;
  AppendEncoded(out, text.substr(host_end));
  return out;
}

}  // namespace plaudit
