// MySQL / MariaDB connection over Connector/C (libmariadb, which speaks to both).
//
// Statements go as server-side prepared statements, cached per connection by their text as
// the SQLite connection's are: parameters are bound, never spliced into the text. `$n`
// placeholders become `?` in order of appearance, and a `$n` used twice is bound twice.
// Integer and floating-point columns come back as numbers, everything else as text.
//
// The session is set up to read SQL as the other two dialects do (sql_mode ANSI_QUOTES,
// PIPES_AS_CONCAT, NO_BACKSLASH_ESCAPES, strict), in READ COMMITTED, as PostgreSQL's
// default is, with a 5 s lock wait (SQLite's busy timeout), and with CLIENT_FOUND_ROWS so an
// UPDATE counts the rows it matched, not only those whose values changed, as the others do.
#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <poll.h>

#include <cstring>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sql/connection_impl.hpp"

namespace plaudit::sql {

namespace {

// Statements built at run time (IN lists of any length) could fill the cache: the least
// recently used one is closed beyond this, so a connection never holds more on the server
// (whose max_prepared_stmt_count, 16,382 by default, all connections share).
constexpr size_t kMaxCachedStatements = 128;
// Text columns are fetched into this much first, and fetched again whole when longer.
constexpr unsigned long kInitialTextBuffer = 256;

constexpr const char* kSessionSetup =
    "SET SESSION sql_mode = 'ANSI_QUOTES,PIPES_AS_CONCAT,NO_BACKSLASH_ESCAPES,"
    "STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ZERO_DATE,NO_ZERO_IN_DATE,"
    "NO_ENGINE_SUBSTITUTION', time_zone = '+00:00', innodb_lock_wait_timeout = 5";
constexpr const char* kIsolation = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED";

struct MysqlCloser {
  void operator()(MYSQL* db) const { mysql_close(db); }
};
struct StmtCloser {
  void operator()(MYSQL_STMT* stmt) const { mysql_stmt_close(stmt); }
};
using MysqlPtr = std::unique_ptr<MYSQL, MysqlCloser>;
using StmtPtr = std::unique_ptr<MYSQL_STMT, StmtCloser>;

// Errors after which the session is gone (server restart, kill, network).
bool IsConnectionLoss(unsigned int code) {
  switch (code) {
    case CR_SERVER_GONE_ERROR:
    case CR_SERVER_LOST:
    case CR_CONN_HOST_ERROR:
    case CR_CONNECTION_ERROR:
    case CR_UNKNOWN_HOST:
    case CR_SERVER_LOST_EXTENDED:
    case ER_SERVER_SHUTDOWN:
    case ER_CONNECTION_KILLED:
    case 4031:  // MySQL 8: ER_CLIENT_INTERACTION_TIMEOUT, disconnected while idle
      return true;
    default:
      return false;
  }
}

ErrorCode CodeFor(unsigned int code) {
  switch (code) {
    case ER_DUP_ENTRY:
    case ER_DUP_ENTRY_WITH_KEY_NAME:
    case ER_DUP_KEY:
      return ErrorCode::kAlreadyExists;
    case ER_BAD_NULL_ERROR:
    case ER_NO_REFERENCED_ROW:
    case ER_NO_REFERENCED_ROW_2:
    case ER_ROW_IS_REFERENCED:
    case ER_ROW_IS_REFERENCED_2:
    case ER_CONSTRAINT_FAILED:  // MariaDB CHECK
    case 3819:                  // MySQL 8 CHECK (ER_CHECK_CONSTRAINT_VIOLATED)
    case ER_DATA_TOO_LONG:
    case ER_WARN_DATA_OUT_OF_RANGE:
    case ER_TRUNCATED_WRONG_VALUE_FOR_FIELD:  // e.g. a string that is not UTF-8
      return ErrorCode::kInvalidArgument;
    case ER_LOCK_DEADLOCK:
    case ER_LOCK_WAIT_TIMEOUT:
    case ER_CON_COUNT_ERROR:
    case ER_TOO_MANY_USER_CONNECTIONS:
    case ER_QUERY_INTERRUPTED:
    case ER_STATEMENT_TIMEOUT:
      return ErrorCode::kUnavailable;
    default:
      return IsConnectionLoss(code) ? ErrorCode::kUnavailable : ErrorCode::kInternal;
  }
}

// Numeric column types that come back as numbers; DECIMAL (SUM's type) stays text, which
// Int() and Real() parse.
bool IsIntegerType(enum_field_types t) {
  return t == MYSQL_TYPE_TINY || t == MYSQL_TYPE_SHORT || t == MYSQL_TYPE_LONG ||
         t == MYSQL_TYPE_LONGLONG || t == MYSQL_TYPE_INT24 || t == MYSQL_TYPE_YEAR;
}
bool IsFloatType(enum_field_types t) { return t == MYSQL_TYPE_FLOAT || t == MYSQL_TYPE_DOUBLE; }

struct Prepared {
  StmtPtr stmt;
  std::vector<int> order;                // the parameter ($n, 1-based) bound to each `?`, in order
  std::list<std::string>::iterator use;  // its place in the cache's recency list
};

class MysqlConnection final : public DbConnection {
 public:
  explicit MysqlConnection(MysqlPtr db) : db_(std::move(db)) {}

  Dialect dialect() const override { return Dialect::kMysql; }

  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    std::string key(sql);
    Prepared* prepared = nullptr;
    if (auto it = cache_.find(key); it != cache_.end()) {
      prepared = &it->second;
      recency_.splice(recency_.begin(), recency_, prepared->use);
    } else {
      PL_TRY(auto made, Prepare(sql));
      if (cache_.size() >= kMaxCachedStatements) {
        cache_.erase(recency_.back());  // closes the statement on the server
        recency_.pop_back();
      }
      recency_.push_front(key);
      made.use = recency_.begin();
      prepared = &cache_.emplace(std::move(key), std::move(made)).first->second;
    }
    auto rows = Execute(*prepared, params);
    if (!rows && broken()) {  // statements die with their session
      cache_.clear();
      recency_.clear();
    }
    return rows;
  }

  Status ExecScript(std::string_view sql) override {
    // Several statements in one text only here, and only for this call (migrations; their
    // text is the binary's own): the session otherwise runs one statement a text, so no
    // query can ever carry a second one.
    const bool several = sql.find(';') != std::string_view::npos;
    if (several && mysql_set_server_option(db_.get(), MYSQL_OPTION_MULTI_STATEMENTS_ON) != 0) {
      return Failure(mysql_errno(db_.get()), mysql_error(db_.get()));
    }
    Status st = RunScript(sql);
    if (several && !broken() &&
        mysql_set_server_option(db_.get(), MYSQL_OPTION_MULTI_STATEMENTS_OFF) != 0 && st) {
      return Failure(mysql_errno(db_.get()), mysql_error(db_.get()));
    }
    return st;
  }

  bool Alive() override {
    if (broken()) {
      return false;
    }
    // An idle session has nothing to read unless the server closed it (restart, kill,
    // wait_timeout): then the job gets a new connection instead of an error.
    pollfd pfd{static_cast<int>(mysql_get_socket(db_.get())), POLLIN, 0};
    if (::poll(&pfd, 1, 0) > 0) {
      MarkBroken();
      return false;
    }
    return true;
  }

  bool InTransaction() override {
    unsigned int status = 0;
    return !broken() &&
           mariadb_get_infov(db_.get(), MARIADB_CONNECTION_SERVER_STATUS, &status) == 0 &&
           (status & SERVER_STATUS_IN_TRANS) != 0;
  }

  void EndJob() override {
    if (!broken() && InTransaction()) {
      (void)ExecScript("ROLLBACK");
    }
  }

 protected:
  std::string BeginStatement() const override { return "START TRANSACTION"; }

 private:
  Status RunScript(std::string_view sql) {
    if (mysql_real_query(db_.get(), sql.data(), sql.size()) != 0) {
      return Failure(mysql_errno(db_.get()), mysql_error(db_.get()));
    }
    // Every statement's result (a script is several), so the session is ready for the next.
    while (true) {
      if (MYSQL_RES* res = mysql_store_result(db_.get())) {
        mysql_free_result(res);
      }
      const int next = mysql_next_result(db_.get());
      if (next < 0) {
        break;
      }
      if (next > 0) {
        return Failure(mysql_errno(db_.get()), mysql_error(db_.get()));
      }
    }
    return {};
  }

  Result<Prepared> Prepare(std::string_view sql) {
    Prepared p;
    const std::string text = RewritePositional(sql, p.order);
    p.stmt.reset(mysql_stmt_init(db_.get()));
    if (!p.stmt) {
      return Fail(ErrorCode::kInternal, "mysql: out of memory");
    }
    if (mysql_stmt_prepare(p.stmt.get(), text.data(), text.size()) != 0) {
      return StmtFailure(p.stmt.get());
    }
    if (mysql_stmt_param_count(p.stmt.get()) != p.order.size()) {
      return Fail(ErrorCode::kInternal, "mysql: placeholder count mismatch");
    }
    return p;
  }

  Result<Rows> Execute(Prepared& p, const std::vector<Value>& params) {
    MYSQL_STMT* stmt = p.stmt.get();
    const size_t n = p.order.size();
    std::vector<MYSQL_BIND> binds(n);
    std::vector<unsigned long> lengths(n);
    std::vector<int64_t> ints(n);
    std::vector<double> reals(n);
    for (size_t i = 0; i < n; ++i) {
      const size_t index = static_cast<size_t>(p.order[i] - 1);
      if (index >= params.size()) {
        return Fail(ErrorCode::kInternal, "mysql: statement uses $" + std::to_string(index + 1) +
                                              " but has " + std::to_string(params.size()) +
                                              " parameters");
      }
      MYSQL_BIND& b = binds[i];
      const Value& v = params[index];
      if (IsNull(v)) {
        b.buffer_type = MYSQL_TYPE_NULL;
      } else if (const auto* iv = std::get_if<int64_t>(&v)) {
        ints[i] = *iv;
        b.buffer_type = MYSQL_TYPE_LONGLONG;
        b.buffer = &ints[i];
      } else if (const auto* dv = std::get_if<double>(&v)) {
        reals[i] = *dv;
        b.buffer_type = MYSQL_TYPE_DOUBLE;
        b.buffer = &reals[i];
      } else {
        const std::string& s = std::get<std::string>(v);
        b.buffer_type = MYSQL_TYPE_STRING;
        b.buffer = const_cast<char*>(s.data());
        b.buffer_length = s.size();
        lengths[i] = s.size();
        b.length = &lengths[i];
      }
    }
    if (n > 0 && mysql_stmt_bind_param(stmt, binds.data()) != 0) {
      return StmtFailure(stmt);
    }
    if (mysql_stmt_execute(stmt) != 0) {
      return StmtFailure(stmt);
    }

    Rows rows;
    MYSQL_RES* meta = mysql_stmt_result_metadata(stmt);
    if (meta == nullptr) {
      rows.affected = static_cast<int64_t>(mysql_stmt_affected_rows(stmt));
      return rows;
    }
    std::unique_ptr<MYSQL_RES, decltype(&mysql_free_result)> meta_guard(meta, mysql_free_result);
    const unsigned int ncols = mysql_num_fields(meta);
    MYSQL_FIELD* fields = mysql_fetch_fields(meta);
    std::vector<MYSQL_BIND> out(ncols);
    std::vector<unsigned long> out_len(ncols);
    std::vector<my_bool> out_null(ncols), out_error(ncols);
    std::vector<int64_t> out_int(ncols);
    std::vector<double> out_real(ncols);
    std::vector<std::string> out_text(ncols);
    rows.columns.reserve(ncols);
    for (unsigned int c = 0; c < ncols; ++c) {
      rows.columns.emplace_back(fields[c].name, fields[c].name_length);
      MYSQL_BIND& b = out[c];
      b.length = &out_len[c];
      b.is_null = &out_null[c];
      b.error = &out_error[c];
      if (IsIntegerType(fields[c].type)) {
        b.buffer_type = MYSQL_TYPE_LONGLONG;
        b.buffer = &out_int[c];
      } else if (IsFloatType(fields[c].type)) {
        b.buffer_type = MYSQL_TYPE_DOUBLE;
        b.buffer = &out_real[c];
      } else {
        out_text[c].resize(kInitialTextBuffer);
        b.buffer_type = MYSQL_TYPE_STRING;
        b.buffer = out_text[c].data();
        b.buffer_length = kInitialTextBuffer;
      }
    }
    auto finish = [&] { mysql_stmt_free_result(stmt); };
    if (mysql_stmt_bind_result(stmt, out.data()) != 0) {
      finish();
      return StmtFailure(stmt);
    }
    while (true) {
      const int rc = mysql_stmt_fetch(stmt);
      if (rc == MYSQL_NO_DATA) {
        break;
      }
      if (rc == 1) {
        auto failure = StmtFailure(stmt);
        finish();
        return failure;
      }
      Row row;
      row.reserve(ncols);
      for (unsigned int c = 0; c < ncols; ++c) {
        if (out_null[c]) {
          row.emplace_back(nullptr);
        } else if (out[c].buffer_type == MYSQL_TYPE_LONGLONG) {
          row.emplace_back(out_int[c]);
        } else if (out[c].buffer_type == MYSQL_TYPE_DOUBLE) {
          row.emplace_back(out_real[c]);
        } else if (out_len[c] <= out[c].buffer_length) {
          row.emplace_back(std::string(out_text[c].data(), out_len[c]));
        } else {
          // Longer than the buffer (MYSQL_DATA_TRUNCATED): fetch the whole value.
          std::string whole(out_len[c], '\0');
          MYSQL_BIND again{};
          unsigned long got = 0;
          again.buffer_type = MYSQL_TYPE_STRING;
          again.buffer = whole.data();
          again.buffer_length = out_len[c];
          again.length = &got;
          if (mysql_stmt_fetch_column(stmt, &again, c, 0) != 0) {
            auto failure = StmtFailure(stmt);
            finish();
            return failure;
          }
          row.emplace_back(std::move(whole));
        }
      }
      rows.rows.push_back(std::move(row));
    }
    finish();
    return rows;
  }

  tl::unexpected<Error> StmtFailure(MYSQL_STMT* stmt) {
    // Connector/C may leave a statement's error on the connection alone, the statement's
    // errno 0 (seen as "mysql:  (0)" under concurrent `plauditd flush` runs and in a
    // 100,000-comment rebuild): such a failure was neither named nor, if retryable, retried.
    if (mysql_stmt_errno(stmt) == 0 && mysql_errno(db_.get()) != 0) {
      return Failure(mysql_errno(db_.get()), mysql_error(db_.get()));
    }
    if (mysql_stmt_errno(stmt) == 0) {
      return Fail(ErrorCode::kInternal, "mysql: a statement failed without an error code");
    }
    return Failure(mysql_stmt_errno(stmt), mysql_stmt_error(stmt));
  }

  tl::unexpected<Error> Failure(unsigned int code, const char* message) {
    std::string text = message ? message : "";
    if (IsConnectionLoss(code)) {
      MarkBroken();
      return Fail(ErrorCode::kUnavailable, "mysql: connection lost: " + text);
    }
    const ErrorCode mapped = CodeFor(code);
    // MySQL's duplicate-key message quotes the value; keep the key's name only.
    if (mapped == ErrorCode::kAlreadyExists) {
      const auto key = text.rfind(" for key ");
      text = "Duplicate entry" + (key == std::string::npos ? std::string() : text.substr(key));
    }
    auto failure = Fail(mapped, "mysql: " + text + " (" + std::to_string(code) + ")");
    // A deadlock undid the whole transaction; a lock wait timeout only the statement, which
    // Transaction() then completes by rolling back the rest: either way a fresh run may pass.
    failure.value().retryable = code == ER_LOCK_DEADLOCK || code == ER_LOCK_WAIT_TIMEOUT;
    return failure;
  }

  MysqlPtr db_;
  std::unordered_map<std::string, Prepared> cache_;
  std::list<std::string> recency_;  // cache_'s keys, most recently used first
};

}  // namespace

Result<std::unique_ptr<DbConnection>> OpenMysql(const std::string& url, bool migrating) {
  PL_TRY(auto target, MysqlTarget::Parse(url));
  MysqlPtr db(mysql_init(nullptr));
  if (!db) {
    return Fail(ErrorCode::kUnavailable, "mysql: out of memory");
  }
  const unsigned int connect_timeout = 5;
  // A statement waits at most innodb_lock_wait_timeout for a lock; past this the server is
  // taken for gone.
  const unsigned int io_timeout = 60;
  mysql_optionsv(db.get(), MYSQL_OPT_CONNECT_TIMEOUT, &connect_timeout);
  if (!migrating) {
    mysql_optionsv(db.get(), MYSQL_OPT_READ_TIMEOUT, &io_timeout);
    mysql_optionsv(db.get(), MYSQL_OPT_WRITE_TIMEOUT, &io_timeout);
  }
  // Connector/C reads host "localhost" as "the default socket" unless told the protocol: a
  // URL without ?socket= means the host and port it names.
  const unsigned int protocol = target.socket.empty() ? MYSQL_PROTOCOL_TCP : MYSQL_PROTOCOL_SOCKET;
  mysql_optionsv(db.get(), MYSQL_OPT_PROTOCOL, &protocol);
  mysql_optionsv(db.get(), MYSQL_SET_CHARSET_NAME, "utf8mb4");
  mysql_optionsv(db.get(), MYSQL_INIT_COMMAND, kSessionSetup);
  if (target.tls != MysqlTarget::Tls::kOff) {
    const my_bool on = 1;
    mysql_optionsv(db.get(), MYSQL_OPT_SSL_ENFORCE, &on);
    const my_bool verify = target.tls == MysqlTarget::Tls::kVerify ? 1 : 0;
    mysql_optionsv(db.get(), MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &verify);
    if (!target.tls_ca.empty()) {
      mysql_optionsv(db.get(), MYSQL_OPT_SSL_CA, target.tls_ca.c_str());
    }
  }
  const char* host = target.socket.empty() ? target.host.c_str() : nullptr;
  const char* socket = target.socket.empty() ? nullptr : target.socket.c_str();
  if (!mysql_real_connect(db.get(), host, target.user.c_str(), target.password.c_str(),
                          target.database.c_str(), static_cast<unsigned int>(target.port), socket,
                          CLIENT_FOUND_ROWS | CLIENT_MULTI_RESULTS)) {
    return Fail(ErrorCode::kUnavailable,
                std::string("mysql: cannot connect: ") + mysql_error(db.get()));
  }
  if (mysql_query(db.get(), kIsolation) != 0) {
    return Fail(ErrorCode::kUnavailable,
                std::string("mysql: cannot set up the session: ") + mysql_error(db.get()));
  }
  return std::make_unique<MysqlConnection>(std::move(db));
}

}  // namespace plaudit::sql
