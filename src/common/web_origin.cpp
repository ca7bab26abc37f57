#include "common/web_origin.hpp"

#include <algorithm>
#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>
#include <cctype>

#include "common/iri.hpp"
#include "common/percent_encoding.hpp"

namespace plaudit {
namespace {

tl::unexpected<Error> Invalid(std::string message) {
  return Fail(ErrorCode::kInvalidArgument, std::move(message));
}

std::string_view DefaultPort(std::string_view scheme) { return scheme == "https" ? "443" : "80"; }

bool Unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

// RFC 3986 6.2.2 on an encoded path: %XX of an unreserved character decoded, other %XX
// upper-cased, then dot segments removed (5.2.4). Written here because Boost.URL 1.81's
// normalize() also decodes %2F, which would make /a%2Fb and /a/b one page.
std::string NormalisePath(std::string_view encoded) {
  std::string decoded;
  decoded.reserve(encoded.size());
  for (size_t i = 0; i < encoded.size(); ++i) {
    const int byte = PercentEscapeAt(encoded, i);
    if (byte < 0) {
      decoded += encoded[i];
      continue;
    }
    const auto c = static_cast<unsigned char>(byte);
    if (Unreserved(c)) {
      decoded += static_cast<char>(c);
    } else {
      AppendPercentEscape(decoded, c);
    }
    i += 2;
  }
  std::vector<std::string_view> kept;
  std::string_view rest(decoded);
  if (!rest.empty() && rest.front() == '/') {
    rest.remove_prefix(1);
  }
  bool last_was_dot = false;
  while (true) {
    const size_t slash = rest.find('/');
    const std::string_view segment = rest.substr(0, slash);
    last_was_dot = segment == "." || segment == "..";
    if (segment == "..") {
      if (!kept.empty()) {
        kept.pop_back();
      }
    } else if (segment != ".") {
      kept.push_back(segment);
    }
    if (slash == std::string_view::npos) {
      break;
    }
    rest.remove_prefix(slash + 1);
  }
  std::string out;
  for (std::string_view segment : kept) {
    out += '/';
    out += segment;
  }
  if (out.empty() || last_was_dot) {
    out += '/';
  }
  return out;
}

// The checks and lower-casing both forms share; the URL is normalised in place. `text` is a
// URI: an IRI goes through IriToUri first.
Result<boost::urls::url> ParseHttp(std::string_view text, std::string_view what) {
  auto parsed = boost::urls::parse_uri(text);
  if (!parsed) {
    return Invalid(std::string(what) + " must be an absolute http(s) URL");
  }
  boost::urls::url u(*parsed);
  u.normalize_scheme();     // lower case
  u.normalize_authority();  // host lower case, %-encodings; the path is NormalisePath's
  if (u.scheme() != "http" && u.scheme() != "https") {
    return Invalid(std::string(what) + " must be an http or https URL");
  }
  if (u.encoded_host().empty()) {
    return Invalid(std::string(what) + " must name a host");
  }
  if (u.has_userinfo()) {
    return Invalid(std::string(what) + " must not carry credentials");
  }
  if (u.has_port() && (u.port().empty() || u.port() == DefaultPort(u.scheme()))) {
    u.remove_port();
  }
  return u;
}

std::string OriginOf(const boost::urls::url& u) {
  std::string out(u.scheme());
  out += "://";
  out += u.encoded_host_and_port();
  return out;
}

}  // namespace

Result<PageUrl> NormalisePageUrl(std::string_view text) {
  if (text.size() > kMaxPageUrlBytes) {
    return Invalid("url must be at most " + std::to_string(kMaxPageUrlBytes) + " bytes");
  }
  // An IRI ("/posts/评论", "bücher.example") names the page its URI does: one thread for both.
  auto uri = IriToUri(text);
  if (!uri) {
    return Invalid("url " + uri.error().message);
  }
  if (uri->size() > kMaxPageUrlBytes) {
    return Invalid("url must be at most " + std::to_string(kMaxPageUrlBytes) +
                   " bytes with its non-ASCII characters percent-encoded");
  }
  PL_TRY(auto parsed, ParseHttp(*uri, "url"));
  boost::urls::url& u = parsed;
  u.remove_query();
  u.remove_fragment();
  std::string path = NormalisePath(u.encoded_path());
  while (path.size() > 1 && path.back() == '/') {
    path.pop_back();
  }
  if (path.empty()) {
    path = "/";
  }
  PageUrl out;
  out.origin = OriginOf(u);
  out.url = out.origin + path;
  return out;
}

Result<std::string> NormaliseOrigin(std::string_view text) {
  auto uri = IriToUri(text);
  if (!uri) {
    return Invalid("an origin " + uri.error().message);
  }
  PL_TRY(auto parsed, ParseHttp(*uri, "an origin"));
  const boost::urls::url& u = parsed;
  if (u.has_query() || u.has_fragment() || (u.encoded_path() != "" && u.encoded_path() != "/")) {
    return Invalid("an origin is scheme://host[:port], without a path: \"" + std::string(text) +
                   "\"");
  }
  return OriginOf(u);
}

Result<SiteList> SiteList::Parse(std::string_view text) {
  SiteList out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') {
      item.remove_prefix(1);
    }
    while (!item.empty() && item.back() == ' ') {
      item.remove_suffix(1);
    }
    if (item.empty()) {
      continue;
    }
    auto origin = NormaliseOrigin(item);
    if (!origin) {
      return Invalid("\"" + std::string(item) + "\": " + origin.error().message);
    }
    out.origins_.push_back(std::move(*origin));
  }
  std::sort(out.origins_.begin(), out.origins_.end());
  out.origins_.erase(std::unique(out.origins_.begin(), out.origins_.end()), out.origins_.end());
  return out;
}

bool SiteList::Allows(std::string_view origin) const {
  if (origins_.empty()) {
    return false;
  }
  // A browser's Origin header is already in normal form: most checks end here.
  if (std::binary_search(origins_.begin(), origins_.end(), origin)) {
    return true;
  }
  auto normal = NormaliseOrigin(origin);
  return normal && std::binary_search(origins_.begin(), origins_.end(), *normal);
}

bool SiteList::ListsExactly(std::string_view origin) const {
  return std::binary_search(origins_.begin(), origins_.end(), origin);
}

std::string SiteList::ToString() const {
  std::string out;
  for (const auto& o : origins_) {
    if (!out.empty()) {
      out += ',';
    }
    out += o;
  }
  return out;
}

}  // namespace plaudit
