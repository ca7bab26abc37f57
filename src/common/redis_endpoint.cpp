#include "common/redis_endpoint.hpp"

#include <boost/url/parse.hpp>
#include <charconv>

namespace plaudit {

std::string RedisEndpoint::Describe() const {
  std::string where = unix_path.empty() ? host + ":" + std::to_string(port) : unix_path;
  return db == 0 ? where : where + " db " + std::to_string(db);
}

namespace {

tl::unexpected<Error> Invalid(std::string message) {
  return Fail(ErrorCode::kInvalidArgument, std::move(message));
}

Result<int> ParseDb(std::string_view text) {
  int db = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), db);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || db < 0) {
    return Invalid("invalid database number \"" + std::string(text) + "\"");
  }
  return db;
}

}  // namespace

Result<RedisEndpoint> ParseRedisUrl(std::string_view url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) {
    return Invalid("not a URL (want redis://host:port[/db] or unix:///path)");
  }
  const auto& u = *parsed;
  if (u.has_userinfo()) {
    return Invalid("credentials (AUTH) are not supported");
  }
  RedisEndpoint e;
  if (u.scheme() == "unix") {
    e.unix_path = u.path();
    if (e.unix_path.empty() || !u.encoded_host().empty()) {
      return Invalid("want unix:///absolute/path");
    }
    if (auto it = u.params().find("db"); it != u.params().end()) {
      auto db = ParseDb((*it).value);
      if (!db) return tl::unexpected(db.error());
      e.db = *db;
    }
  } else if (u.scheme() == "redis") {
    e.host = u.host_address();
    if (e.host.empty()) {
      return Invalid("missing host (want redis://host:port[/db])");
    }
    if (u.has_port()) {
      e.port = u.port_number();
    }
    std::string path = u.path();
    if (!path.empty() && path != "/") {
      auto db = ParseDb(std::string_view(path).substr(1));
      if (!db) return tl::unexpected(db.error());
      e.db = *db;
    }
  } else {
    return Invalid("unsupported scheme \"" + std::string(u.scheme()) +
                   "\" (want redis:// or unix://)");
  }
  return e;
}

}  // namespace plaudit
