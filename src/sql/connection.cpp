// Dialect-neutral parts of a connection: nested transactions and placeholder rewriting.
#include <cctype>
#include <string>
#include <vector>

#include "sql/connection_impl.hpp"

namespace plaudit::sql {

Status DbConnection::Transaction(const std::function<Status(Connection&)>& fn) {
  const bool outer = depth_ == 0;
  const std::string savepoint = "plaudit_sp" + std::to_string(depth_);
  auto rollback = [&] {
    // Best effort: on a broken connection the server rolls back by itself.
    if (outer) {
      (void)ExecScript("ROLLBACK");
    } else {
      (void)ExecScript("ROLLBACK TO SAVEPOINT " + savepoint + "; RELEASE SAVEPOINT " + savepoint);
    }
  };
  if (auto begin = ExecScript(outer ? BeginStatement() : "SAVEPOINT " + savepoint); !begin) {
    return begin;
  }
  ++depth_;
  Status result;
  try {
    result = fn(*this);
  } catch (...) {
    --depth_;
    rollback();
    throw;
  }
  --depth_;
  if (!result) {
    rollback();
    return result;
  }
  if (auto commit = ExecScript(outer ? "COMMIT" : "RELEASE SAVEPOINT " + savepoint); !commit) {
    rollback();
    return commit;
  }
  return {};
}

namespace {

// Copies sql, handing each `$n` placeholder outside quotes and comments to `emit` (with n)
// instead of copying it.
template <class Emit>
std::string ForEachPlaceholder(std::string_view sql, Emit emit) {
  std::string out;
  out.reserve(sql.size());
  size_t i = 0;
  const size_t n = sql.size();
  auto copy_until = [&](size_t end) {
    out.append(sql.substr(i, end - i));
    i = end;
  };
  while (i < n) {
    char c = sql[i];
    if (c == '\'' || c == '"') {
      // A quoted string or identifier; a doubled quote inside is an escaped quote.
      size_t j = i + 1;
      while (j < n) {
        if (sql[j] == c) {
          if (j + 1 < n && sql[j + 1] == c) {
            j += 2;
            continue;
          }
          ++j;
          break;
        }
        ++j;
      }
      copy_until(j);
    } else if (c == '-' && i + 1 < n && sql[i + 1] == '-') {
      size_t j = sql.find('\n', i);
      copy_until(j == std::string_view::npos ? n : j);
    } else if (c == '/' && i + 1 < n && sql[i + 1] == '*') {
      size_t j = sql.find("*/", i + 2);
      copy_until(j == std::string_view::npos ? n : j + 2);
    } else if (c == '$' && i + 1 < n && std::isdigit(static_cast<unsigned char>(sql[i + 1])) &&
               (i == 0 ||
                !(std::isalnum(static_cast<unsigned char>(sql[i - 1])) || sql[i - 1] == '_'))) {
      size_t j = i + 1;
      int number = 0;
      while (j < n && std::isdigit(static_cast<unsigned char>(sql[j]))) {
        number = number * 10 + (sql[j] - '0');
        ++j;
      }
      emit(out, number, sql.substr(i + 1, j - i - 1));
      i = j;
    } else {
      out.push_back(c);
      ++i;
    }
  }
  return out;
}

}  // namespace

std::string RewritePlaceholders(std::string_view sql) {
  return ForEachPlaceholder(sql, [](std::string& out, int, std::string_view digits) {
    out.push_back('?');
    out.append(digits);
  });
}

std::string RewritePositional(std::string_view sql, std::vector<int>& order) {
  order.clear();
  return ForEachPlaceholder(sql, [&](std::string& out, int number, std::string_view) {
    out.push_back('?');
    order.push_back(number);
  });
}

}  // namespace plaudit::sql
