#include "common/database_url.hpp"

#include <libpq-fe.h>

#include <boost/url/parse.hpp>
#include <charconv>

namespace plaudit {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

tl::unexpected<Error> BadMysql(std::string why) {
  return Fail(ErrorCode::kInvalidArgument, "bad MySQL URL: " + std::move(why));
}

bool IsLoopback(std::string_view host) {
  return host == "localhost" || host == "127.0.0.1" || host == "::1" || host == "[::1]";
}

}  // namespace

Result<MysqlTarget> MysqlTarget::Parse(std::string_view url) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed) {
    return BadMysql(parsed.error().message());
  }
  if (parsed->scheme() != "mysql" && parsed->scheme() != "mariadb") {
    return BadMysql("the scheme is not mysql:// or mariadb://");
  }
  MysqlTarget t;
  t.user = parsed->user();
  t.password = parsed->password();
  if (!parsed->host().empty()) {
    t.host = parsed->host_name().empty() ? std::string(parsed->encoded_host_address())
                                         : std::string(parsed->host_name());
  }
  if (parsed->has_port()) {
    const std::string_view port = parsed->port();
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), t.port);
    if (ec != std::errc() || ptr != port.data() + port.size() || t.port < 1 || t.port > 65535) {
      return BadMysql("invalid port \"" + std::string(port) + "\"");
    }
  }
  std::string path = parsed->path();
  if (!path.empty() && path.front() == '/') {
    path.erase(0, 1);
  }
  if (path.empty() || path.find('/') != std::string::npos) {
    return BadMysql("name one database: mysql://user:pass@host:port/database");
  }
  t.database = path;
  if (t.user.empty()) {
    return BadMysql("no user (mysql://user:pass@host/database)");
  }
  bool tls_named = false;
  for (const auto& param : parsed->params()) {
    if (param.key == "socket") {
      t.socket = param.value;
    } else if (param.key == "tls") {
      tls_named = true;
      if (param.value == "off") {
        t.tls = Tls::kOff;
      } else if (param.value == "on") {
        t.tls = Tls::kOn;
      } else if (param.value == "verify") {
        t.tls = Tls::kVerify;
      } else {
        return BadMysql("tls must be off, on or verify");
      }
    } else if (param.key == "tls-ca") {
      t.tls_ca = param.value;
    } else {
      return BadMysql("unknown option \"" + std::string(param.key) +
                      "\" (known: socket, tls, tls-ca)");
    }
  }
  if (!t.tls_ca.empty()) {
    if (tls_named && t.tls != Tls::kVerify) {
      return BadMysql("tls-ca needs tls=verify");
    }
    t.tls = Tls::kVerify;
  } else if (!tls_named && t.socket.empty() && !IsLoopback(t.host)) {
    // A password crossing a network goes encrypted unless the operator says otherwise.
    t.tls = Tls::kOn;
  }
  return t;
}

Result<DatabaseUrl> ParseDatabaseUrl(std::string_view url) {
  if (url.empty()) {
    return Fail(ErrorCode::kInvalidArgument, "database URL is empty");
  }
  if (StartsWith(url, "postgresql://") || StartsWith(url, "postgres://")) {
    const std::string text(url);
    char* error = nullptr;
    PQconninfoOption* options = PQconninfoParse(text.c_str(), &error);
    if (!options) {
      std::string what = error ? error : "cannot parse";
      PQfreemem(error);
      while (!what.empty() && what.back() == '\n') {
        what.pop_back();
      }
      return Fail(ErrorCode::kInvalidArgument, "bad PostgreSQL URL: " + what);
    }
    PQconninfoFree(options);
    return DatabaseUrl{Dialect::kPostgres, text};
  }
  if (StartsWith(url, "mysql://") || StartsWith(url, "mariadb://")) {
    PL_CHECK(MysqlTarget::Parse(url));
    return DatabaseUrl{Dialect::kMysql, std::string(url)};
  }
  if (StartsWith(url, "sqlite:")) {
    std::string_view rest = url.substr(7);
    // sqlite:///abs/path keeps the leading slash; sqlite://rel and sqlite:rel are relative.
    if (StartsWith(rest, "//")) {
      rest.remove_prefix(2);
    }
    if (rest.empty()) {
      return Fail(ErrorCode::kInvalidArgument, "SQLite URL has no path");
    }
    return DatabaseUrl{Dialect::kSqlite, std::string(rest)};
  }
  if (url.find("://") != std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument,
                "unsupported database URL scheme (use sqlite://, postgresql:// or mysql://)");
  }
  return DatabaseUrl{Dialect::kSqlite, std::string(url)};  // a plain file path
}

}  // namespace plaudit
