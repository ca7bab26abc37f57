#include "common/database_url.hpp"

#include <libpq-fe.h>

namespace plaudit {
namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

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
                "unsupported database URL scheme (use sqlite:// or postgresql://)");
  }
  return DatabaseUrl{Dialect::kSqlite, std::string(url)};  // a plain file path
}

}  // namespace plaudit
