#include "common/web_origin.hpp"

#include <algorithm>

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

namespace plaudit {
namespace {

tl::unexpected<Error> Invalid(std::string message) {
  return Fail(ErrorCode::kInvalidArgument, std::move(message));
}

std::string_view DefaultPort(std::string_view scheme) { return scheme == "https" ? "443" : "80"; }

// The checks and lower-casing both forms share; the URL is normalised in place.
Result<boost::urls::url> ParseHttp(std::string_view text, std::string_view what) {
  auto parsed = boost::urls::parse_uri(text);
  if (!parsed) return Invalid(std::string(what) + " must be an absolute http(s) URL");
  boost::urls::url u(*parsed);
  u.normalize();  // scheme and host lower-case, %-encodings and dot segments (RFC 3986 6.2.2)
  if (u.scheme() != "http" && u.scheme() != "https") {
    return Invalid(std::string(what) + " must be an http or https URL");
  }
  if (u.encoded_host().empty()) return Invalid(std::string(what) + " must name a host");
  if (u.has_userinfo()) return Invalid(std::string(what) + " must not carry credentials");
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
  auto parsed = ParseHttp(text, "url");
  if (!parsed) return tl::unexpected(parsed.error());
  boost::urls::url& u = *parsed;
  u.remove_query();
  u.remove_fragment();
  std::string path(u.encoded_path());
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.empty()) path = "/";
  PageUrl out;
  out.origin = OriginOf(u);
  out.url = out.origin + path;
  return out;
}

Result<std::string> NormaliseOrigin(std::string_view text) {
  auto parsed = ParseHttp(text, "an origin");
  if (!parsed) return tl::unexpected(parsed.error());
  const boost::urls::url& u = *parsed;
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
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    auto origin = NormaliseOrigin(item);
    if (!origin) return Invalid("\"" + std::string(item) + "\": " + origin.error().message);
    out.origins_.push_back(std::move(*origin));
  }
  std::sort(out.origins_.begin(), out.origins_.end());
  out.origins_.erase(std::unique(out.origins_.begin(), out.origins_.end()), out.origins_.end());
  return out;
}

bool SiteList::Allows(std::string_view origin) const {
  if (origins_.empty()) return false;
  // A browser's Origin header is already in normal form: most checks end here.
  if (std::binary_search(origins_.begin(), origins_.end(), origin)) return true;
  auto normal = NormaliseOrigin(origin);
  return normal && std::binary_search(origins_.begin(), origins_.end(), *normal);
}

std::string SiteList::ToString() const {
  std::string out;
  for (const auto& o : origins_) {
    if (!out.empty()) out += ',';
    out += o;
  }
  return out;
}

}  // namespace plaudit
