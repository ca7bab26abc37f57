// PostgreSQL connection over libpq. Parameters go as text (the server infers their types
// from the statement) and results come back as text, which Int()/Real() parse.
#include <libpq-fe.h>
#include <poll.h>

#include <charconv>
#include <memory>
#include <string>
#include <vector>

#include "sql/connection_impl.hpp"

namespace plaudit::sql {

namespace {

struct ConnCloser {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
struct ResultClearer {
  void operator()(PGresult* res) const { PQclear(res); }
};
using ConnPtr = std::unique_ptr<PGconn, ConnCloser>;
using ResultPtr = std::unique_ptr<PGresult, ResultClearer>;

void IgnoreNotice(void*, const char*) {}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// SQLSTATEs after which the session is gone or the server is going away. (Not 08P01,
// protocol violation: a wrong parameter count is the caller's bug, the session survives.)
bool IsConnectionLoss(std::string_view state) {
  return state == "08000" || state == "08003" || state == "08006" || state == "08001" ||
         state == "08004" || state == "57P01" || state == "57P02" || state == "57P03";
}

ErrorCode CodeFor(std::string_view state) {
  if (state == "23505") {
    return ErrorCode::kAlreadyExists;
  }
  if (StartsWith(state, "23")) {  // NOT NULL, CHECK, FOREIGN KEY
    return ErrorCode::kInvalidArgument;
  }
  // Connection loss, serialization failure / deadlock (retryable), statement timeout,
  // insufficient resources (too many connections).
  if (IsConnectionLoss(state) || state == "40001" || state == "40P01" || state == "57014" ||
      StartsWith(state, "53")) {
    return ErrorCode::kUnavailable;
  }
  return ErrorCode::kInternal;
}

std::string TrimmedMessage(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) {
    s.pop_back();
  }
  return s;
}

class PostgresConnection final : public DbConnection {
 public:
  explicit PostgresConnection(ConnPtr conn) : conn_(std::move(conn)) {}

  Dialect dialect() const override { return Dialect::kPostgres; }

  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> values(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      if (IsNull(params[i])) {
        continue;
      }
      texts[i] = Text(params[i]);
      // Text-format parameters are C strings: a NUL would silently truncate the value, and
      // PostgreSQL text cannot hold one anyway.
      if (texts[i].find('\0') != std::string::npos) {
        return Fail(
            ErrorCode::kInvalidArgument,
            "postgresql: text parameter $" + std::to_string(i + 1) + " contains a NUL byte");
      }
      values[i] = texts[i].c_str();
    }
    std::string text(sql);
    ResultPtr res(PQexecParams(conn_.get(), text.c_str(), static_cast<int>(params.size()), nullptr,
                               values.data(), nullptr, nullptr, 0));
    ExecStatusType status = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
      return Failure(res.get());
    }
    Rows rows;
    const int ncols = PQnfields(res.get());
    const int nrows = PQntuples(res.get());
    rows.columns.reserve(ncols);
    for (int c = 0; c < ncols; ++c) {
      rows.columns.emplace_back(PQfname(res.get(), c));
    }
    rows.rows.reserve(nrows);
    for (int r = 0; r < nrows; ++r) {
      Row row;
      row.reserve(ncols);
      for (int c = 0; c < ncols; ++c) {
        if (PQgetisnull(res.get(), r, c)) {
          row.emplace_back(nullptr);
        } else {
          row.emplace_back(std::string(PQgetvalue(res.get(), r, c), PQgetlength(res.get(), r, c)));
        }
      }
      rows.rows.push_back(std::move(row));
    }
    // PQcmdTuples also counts the rows a SELECT returned; only writes count as affected.
    std::string_view command = PQcmdStatus(res.get());
    if (StartsWith(command, "INSERT") || StartsWith(command, "UPDATE") ||
        StartsWith(command, "DELETE") || StartsWith(command, "MERGE")) {
      std::string_view tuples = PQcmdTuples(res.get());
      std::from_chars(tuples.data(), tuples.data() + tuples.size(), rows.affected);
    }
    return rows;
  }

  Status ExecScript(std::string_view sql) override {
    std::string text(sql);
    ResultPtr res(PQexec(conn_.get(), text.c_str()));
    ExecStatusType status = res ? PQresultStatus(res.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK && status != PGRES_EMPTY_QUERY) {
      return Failure(res.get());
    }
    return {};
  }

  bool Alive() override {
    if (broken() || PQstatus(conn_.get()) != CONNECTION_OK) {
      return false;
    }
    // An idle connection has nothing to read unless the server sent a notice, or a FATAL
    // error and EOF (restart, idle timeout, pg_terminate_backend). Reading it lets libpq see
    // the EOF and mark the connection bad.
    for (int i = 0; i < 2; ++i) {
      pollfd pfd{PQsocket(conn_.get()), POLLIN, 0};
      if (::poll(&pfd, 1, 0) <= 0) {
        break;
      }
      if (!PQconsumeInput(conn_.get())) {
        MarkBroken();
        return false;
      }
      while (PGnotify* notify = PQnotifies(conn_.get())) {
        PQfreemem(notify);
      }
    }
    return PQstatus(conn_.get()) == CONNECTION_OK;
  }

  bool InTransaction() override {
    // INERROR (a failed statement not rolled back to a savepoint) counts as ended: its COMMIT
    // would only roll back, and PostgreSQL answers that COMMIT without an error.
    const PGTransactionStatusType status = PQtransactionStatus(conn_.get());
    return status == PQTRANS_INTRANS || status == PQTRANS_ACTIVE;
  }

  void EndJob() override {
    if (PQstatus(conn_.get()) != CONNECTION_OK) {
      MarkBroken();
      return;
    }
    if (PQtransactionStatus(conn_.get()) != PQTRANS_IDLE) {
      (void)ExecScript("ROLLBACK");
    }
  }

 protected:
  std::string BeginStatement() const override { return "BEGIN"; }

 private:
  tl::unexpected<Error> Failure(const PGresult* res) {
    const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
    std::string_view sqlstate = state ? state : "";
    if (PQstatus(conn_.get()) != CONNECTION_OK || IsConnectionLoss(sqlstate)) {
      MarkBroken();
      return Fail(ErrorCode::kUnavailable,
                  "postgresql: connection lost: " + TrimmedMessage(PQerrorMessage(conn_.get())));
    }
    // The primary message only: DETAIL would quote the offending values.
    const char* primary = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : nullptr;
    std::string message = primary ? primary : TrimmedMessage(PQerrorMessage(conn_.get()));
    auto failure =
        Fail(CodeFor(sqlstate), "postgresql: " + message +
                                    (sqlstate.empty() ? "" : " (" + std::string(sqlstate) + ")"));
    // Serialization failure, deadlock: the transaction is void and may run again.
    failure.value().retryable = sqlstate == "40001" || sqlstate == "40P01";
    return failure;
  }

  ConnPtr conn_;
};

}  // namespace

Result<std::unique_ptr<DbConnection>> OpenPostgres(const std::string& url) {
  // Defaults first: with expand_dbname the URL's own settings override them.
  const char* keys[] = {"connect_timeout", "application_name", "client_encoding", "dbname",
                        nullptr};
  const char* values[] = {"5", "plauditd", "UTF8", url.c_str(), nullptr};
  ConnPtr conn(PQconnectdbParams(keys, values, 1));
  if (!conn) {
    return Fail(ErrorCode::kUnavailable, "postgresql: out of memory");
  }
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return Fail(ErrorCode::kUnavailable,
                "postgresql: cannot connect: " + TrimmedMessage(PQerrorMessage(conn.get())));
  }
  PQsetNoticeProcessor(conn.get(), IgnoreNotice, nullptr);
  return std::make_unique<PostgresConnection>(std::move(conn));
}

}  // namespace plaudit::sql
