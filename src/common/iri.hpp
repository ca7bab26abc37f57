#pragma once
// IRIs (RFC 3987) as the URIs they name, the way a browser's URL parser reads them. A page's
// address written as text (a data-url attribute, a hand-written link) is often Unicode:
// "https://blog.example/posts/评论", "https://bücher.example/"; the browser's location.href
// spells the same page percent-encoded, with the host in its ASCII (punycode) form. Mapping
// the first onto the second gives the page one spelling, hence one thread.
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace plaudit {

// `text` with its host, when that is an internationalised domain name (raw UTF-8 or
// percent-encoded), mapped to ASCII by UTS #46 (IDNA2008, nontransitional, as WHATWG URL
// parsers do; libidn2), and every other byte outside ASCII percent-encoded as %XX (RFC 3987
// 3.1: the bytes of its UTF-8). Anything else is left for URI parsing to judge: an all-ASCII
// text with an ASCII host comes back unchanged. kInvalidArgument: a host that is not a valid
// internationalised domain name (the message says why, and fits after "url " or "an origin ").
Result<std::string> IriToUri(std::string_view text);

}  // namespace plaudit
