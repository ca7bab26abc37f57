#include "redis/endpoint.hpp"

#include <boost/url/parse.hpp>
#include <charconv>
#include <stdexcept>
#include <string_view>

namespace plaudit::redis {

std::string Endpoint::Describe() const {
  std::string where = unix_path.empty() ? host + ":" + std::to_string(port) : unix_path;
  return db == 0 ? where : where + " db " + std::to_string(db);
}

namespace {

int ParseDb(std::string_view text, const std::string& url) {
  int db = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), db);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || db < 0) {
    throw std::invalid_argument("invalid database number in Redis URL: " + url);
  }
  return db;
}

}  // namespace

Endpoint ParseUrl(const std::string& url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) {
    throw std::invalid_argument("invalid Redis URL: " + url);
  }
  const auto& u = *parsed;
  if (u.has_userinfo()) {
    throw std::invalid_argument("Redis URL credentials (AUTH) are not supported: " + url);
  }
  Endpoint e;
  if (u.scheme() == "unix") {
    e.unix_path = u.path();
    if (e.unix_path.empty() || !u.encoded_host().empty()) {
      throw std::invalid_argument("expected unix:///absolute/path in Redis URL: " + url);
    }
    if (auto it = u.params().find("db"); it != u.params().end()) {
      e.db = ParseDb((*it).value, url);
    }
  } else if (u.scheme() == "redis") {
    e.host = u.host_address();
    if (e.host.empty()) {
      throw std::invalid_argument("missing host in Redis URL: " + url);
    }
    if (u.has_port()) {
      e.port = u.port_number();
    }
    std::string path = u.path();
    if (!path.empty() && path != "/") {
      e.db = ParseDb(std::string_view(path).substr(1), url);
    }
  } else {
    throw std::invalid_argument("unsupported Redis URL scheme (want redis:// or unix://): " + url);
  }
  return e;
}

}  // namespace plaudit::redis
