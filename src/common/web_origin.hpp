#pragma once
// Web origins and page URLs, normalised as API.md "Embedding on other sites" says, and the
// --sites allow-list built from them. One spelling per page or site, so that a page maps to
// exactly one thread and an Origin header matches its site however either was written.
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace plaudit {

// The longest page URL accepted (API.md), in bytes as sent.
inline constexpr size_t kMaxPageUrlBytes = 2048;

struct PageUrl {
  std::string url;     // "https://blog.example/posts/1"
  std::string origin;  // "https://blog.example"
};

// An absolute http(s) URL as its page: an IRI mapped to its URI first (common/iri.hpp:
// non-ASCII characters percent-encoded as UTF-8, an internationalised host in its ASCII form),
// scheme and host lower-cased, the default port dropped, percent-encodings and dot segments
// normalised (RFC 3986 6.2.2), the fragment and the query dropped, a trailing '/' dropped
// except for the root path ("" becomes "/"). Credentials (user@host), another scheme, a
// relative URL, an invalid host name, or one over kMaxPageUrlBytes (as sent, or once
// percent-encoded) are kInvalidArgument.
Result<PageUrl> NormalisePageUrl(std::string_view text);

// "HTTPS://Blog.Example:443/" → "https://blog.example", "https://bücher.example" →
// "https://xn--bcher-kva.example" (as a browser's Origin header spells it). An origin is a scheme
// (http or https), a host and an optional port, with nothing after it but an optional "/".
Result<std::string> NormaliseOrigin(std::string_view text);

// The origins that may embed Plaudit (--sites): CORS answers them and their pages get threads.
class SiteList {
 public:
  // Comma-separated origins; spaces around items are ignored; "" is the empty list. A bad item
  // is kInvalidArgument naming it.
  static Result<SiteList> Parse(std::string_view text);

  // Whether `origin` (an Origin header, or a PageUrl's origin) is one of the sites. The text is
  // normalised first, so "https://Blog.Example:443" matches "https://blog.example"; anything
  // that is not an origin ("null", a path) matches none.
  bool Allows(std::string_view origin) const;
  // Whether `origin` is one of the sites as written in normal form, as a browser's Origin
  // header is: CORS echoes the header, so it answers only that exact spelling.
  bool ListsExactly(std::string_view origin) const;
  bool empty() const { return origins_.empty(); }
  const std::vector<std::string>& origins() const { return origins_; }
  // The sites in the form Parse reads.
  std::string ToString() const;

 private:
  std::vector<std::string> origins_;  // normalised, sorted, unique
};

}  // namespace plaudit
