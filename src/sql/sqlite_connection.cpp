// SQLite connection: WAL, foreign keys, a 5 s busy timeout, and a per-connection cache of
// prepared statements keyed by the SQL text callers pass (their named constants).
#include <spdlog/spdlog.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "sql/connection_impl.hpp"

namespace plaudit::sql {

namespace {

// Statements built at run time could grow the cache without bound; named constants never
// come close to this.
constexpr size_t kMaxCachedStatements = 256;
constexpr int kBusyTimeoutMs = 5000;

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

ErrorCode CodeFor(int rc) {
  switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
    case SQLITE_CONSTRAINT_ROWID:
      return ErrorCode::kAlreadyExists;
    default:
      break;
  }
  switch (rc & 0xff) {
    case SQLITE_CONSTRAINT:  // NOT NULL, CHECK, FOREIGN KEY
      return ErrorCode::kInvalidArgument;
    case SQLITE_BUSY:  // still locked after the busy timeout
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_FULL:
    case SQLITE_PROTOCOL:
      return ErrorCode::kUnavailable;
    default:
      return ErrorCode::kInternal;
  }
}

// Errors after which the handle is not worth keeping.
bool IsFatal(int rc) {
  switch (rc & 0xff) {
    case SQLITE_IOERR:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_CANTOPEN:
      return true;
    default:
      return false;
  }
}

class SqliteConnection final : public DbConnection {
 public:
  explicit SqliteConnection(DbPtr db) : db_(std::move(db)) {}

  Dialect dialect() const override { return Dialect::kSqlite; }

  Result<Rows> Query(std::string_view sql, const std::vector<Value>& params) override {
    PL_TRY(auto prepared, Prepare(sql));
    sqlite3_stmt* stmt = prepared;
    // Cached statements must go back clean whatever happens below. Bindings may point into
    // `params` (SQLITE_STATIC), so they are cleared before Query returns.
    struct Reset {
      sqlite3_stmt* stmt;
      ~Reset() {
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
      }
    } reset{stmt};

    const int expected = sqlite3_bind_parameter_count(stmt);
    if (static_cast<int>(params.size()) != expected) {
      return Fail(ErrorCode::kInternal, "sqlite: statement takes " + std::to_string(expected) +
                                            " parameters, got " + std::to_string(params.size()));
    }
    for (int i = 0; i < expected; ++i) {
      if (int rc = Bind(stmt, i + 1, params[i]); rc != SQLITE_OK) {
        return Failure(rc);
      }
    }

    Rows rows;
    const int ncols = sqlite3_column_count(stmt);
    rows.columns.reserve(ncols);
    for (int c = 0; c < ncols; ++c) {
      const char* name = sqlite3_column_name(stmt, c);
      rows.columns.emplace_back(name ? name : "");
    }
    while (true) {
      int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) {
        break;
      }
      if (rc != SQLITE_ROW) {
        return Failure(sqlite3_extended_errcode(db_.get()));
      }
      Row row;
      row.reserve(ncols);
      for (int c = 0; c < ncols; ++c) {
        row.push_back(Column(stmt, c));
      }
      rows.rows.push_back(std::move(row));
    }
    rows.affected = sqlite3_stmt_readonly(stmt) ? 0 : sqlite3_changes64(db_.get());
    return rows;
  }

  Status ExecScript(std::string_view sql) override {
    std::string text(sql);
    char* message = nullptr;
    int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &message);
    if (rc == SQLITE_OK) {
      return {};
    }
    std::string what = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return Failure(sqlite3_extended_errcode(db_.get()), what);
  }

  bool Alive() override { return !broken(); }

  bool InTransaction() override { return sqlite3_get_autocommit(db_.get()) == 0; }

  void EndJob() override {
    if (!sqlite3_get_autocommit(db_.get())) {
      (void)ExecScript("ROLLBACK");
    }
  }

 protected:
  // IMMEDIATE takes the write lock up front: a deferred transaction that reads and then
  // writes fails with SQLITE_BUSY_SNAPSHOT under WAL instead of waiting for the lock.
  std::string BeginStatement() const override { return "BEGIN IMMEDIATE"; }

 private:
  Result<sqlite3_stmt*> Prepare(std::string_view sql) {
    std::string key(sql);
    if (auto it = statements_.find(key); it != statements_.end()) {
      return it->second.get();
    }
    std::string rewritten = RewritePlaceholders(sql);
    sqlite3_stmt* raw = nullptr;
    const char* tail = nullptr;
    int rc = sqlite3_prepare_v3(db_.get(), rewritten.c_str(), static_cast<int>(rewritten.size()),
                                SQLITE_PREPARE_PERSISTENT, &raw, &tail);
    StmtPtr stmt(raw);
    if (rc != SQLITE_OK) {
      return Failure(sqlite3_extended_errcode(db_.get()));
    }
    if (!stmt) {
      return Fail(ErrorCode::kInternal, "sqlite: empty statement");
    }
    for (; tail && *tail; ++tail) {
      if (!std::isspace(static_cast<unsigned char>(*tail)) && *tail != ';') {
        return Fail(ErrorCode::kInternal, "sqlite: Query takes one statement; use ExecScript");
      }
    }
    if (statements_.size() >= kMaxCachedStatements) {
      statements_.clear();
    }
    return statements_.emplace(std::move(key), std::move(stmt)).first->second.get();
  }

  static int Bind(sqlite3_stmt* stmt, int index, const Value& value) {
    if (std::holds_alternative<std::nullptr_t>(value)) {
      return sqlite3_bind_null(stmt, index);
    }
    if (auto* i = std::get_if<int64_t>(&value)) {
      return sqlite3_bind_int64(stmt, index, *i);
    }
    if (auto* d = std::get_if<double>(&value)) {
      return sqlite3_bind_double(stmt, index, *d);
    }
    const auto& s = std::get<std::string>(value);
    return sqlite3_bind_text64(stmt, index, s.data(), s.size(), SQLITE_STATIC, SQLITE_UTF8);
  }

  static Value Column(sqlite3_stmt* stmt, int c) {
    switch (sqlite3_column_type(stmt, c)) {
      case SQLITE_INTEGER:
        return static_cast<int64_t>(sqlite3_column_int64(stmt, c));
      case SQLITE_FLOAT:
        return sqlite3_column_double(stmt, c);
      case SQLITE_TEXT: {
        auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
        int len = sqlite3_column_bytes(stmt, c);
        return text ? std::string(text, len) : std::string();
      }
      case SQLITE_BLOB: {
        auto* blob = static_cast<const char*>(sqlite3_column_blob(stmt, c));
        int len = sqlite3_column_bytes(stmt, c);
        return blob ? std::string(blob, len) : std::string();
      }
      default:
        return nullptr;
    }
  }

  tl::unexpected<Error> Failure(int rc, std::string what = {}) {
    if (IsFatal(rc)) {
      MarkBroken();
    }
    if (what.empty()) {
      what = sqlite3_errmsg(db_.get());
    }
    return Fail(CodeFor(rc), "sqlite: " + what);
  }

  DbPtr db_;  // declared first: destroyed after the statements that belong to it
  std::unordered_map<std::string, StmtPtr> statements_;
};

}  // namespace

std::optional<std::string_view> NetworkFilesystemName(long f_type) {
  // statfs(2) magic numbers of the file systems whose locks and shared memory another host
  // can miss; FUSE covers sshfs, s3fs and the like.
  switch (static_cast<unsigned long>(f_type) & 0xffffffffUL) {
    case 0x6969UL:
      return "NFS";
    case 0x517bUL:
      return "SMB";
    case 0xff534d42UL:
      return "CIFS";
    case 0xfe534d42UL:
      return "SMB2";
    case 0x01021997UL:
      return "9P";
    case 0x00c36400UL:
      return "Ceph";
    case 0x65735546UL:
      return "FUSE";
    case 0x0bd00bd0UL:
      return "Lustre";
    case 0x47504653UL:
      return "GPFS";
    case 0x013111a8UL:
      return "IBRIX";
    default:
      return std::nullopt;
  }
}

// The database holds password hashes: 0600 whatever the umask (issue 41, item 13). Done by
// chmod(2) on the paths once SQLite has opened (and so created) the file, never by opening a
// descriptor of our own: closing any descriptor of a database file drops every POSIX lock
// this process holds on it, SQLite's included, and another process may then checkpoint and
// delete the WAL under our connections (seen: acknowledged sign-ups lost). SQLite makes the
// -wal and -shm files with the database file's mode, so they follow once it is 0600. A file
// an older version left readable by others is logged as it is tightened; a new one is not.
static void MakePrivate(const std::string& path, bool existed) {
  for (const std::string& file : {path, path + "-wal", path + "-shm"}) {
    struct stat st{};
    if (::stat(file.c_str(), &st) != 0 || (st.st_mode & 077) == 0) {
      continue;
    }
    if (::chmod(file.c_str(), st.st_mode & 0600) != 0) {
      spdlog::warn("cannot restrict {} to owner-only: {}", file,
                   std::generic_category().message(errno));
      continue;
    }
    if (existed) {
      spdlog::warn("restricted {} from {:04o} to {:04o} (it was readable by other users)", file,
                   st.st_mode & 07777, st.st_mode & 0600);
    }
  }
}

Result<std::unique_ptr<DbConnection>> OpenSqlite(const std::string& path,
                                                 SqliteCheckpointer* checkpoints) {
  if (path.empty()) {
    return Fail(ErrorCode::kInvalidArgument, "sqlite: empty database path");
  }
  if (path != ":memory:") {
    // WAL keeps its index in shared memory beside the file, which works only for processes
    // of one host: instances on several hosts sharing one database over a network file
    // system would each miss the others' commits or corrupt it. Refused, not risked; the
    // multi-host setup is PostgreSQL (docs/operations.md).
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
    struct statfs fs{};
    if (!ec && ::statfs(dir.c_str(), &fs) == 0) {
      if (auto name = NetworkFilesystemName(static_cast<long>(fs.f_type))) {
        return Fail(ErrorCode::kInvalidArgument,
                    "sqlite: " + path + " is on a network file system (" + std::string(*name) +
                        "): SQLite's WAL needs every process on one host; use PostgreSQL "
                        "(--database postgresql://...) to share a database between hosts");
      }
    }
  }
  struct stat before{};
  const bool existed = ::stat(path.c_str(), &before) == 0;
  sqlite3* raw = nullptr;
  // NOMUTEX: a connection is only ever used by one pool thread at a time.
  int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  DbPtr db(raw);
  if (rc != SQLITE_OK) {
    std::string what = db ? sqlite3_errmsg(db.get()) : sqlite3_errstr(rc);
    return Fail(ErrorCode::kUnavailable, "sqlite: cannot open database: " + what);
  }
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), kBusyTimeoutMs);
  char* message = nullptr;
  // Switching a fresh file to WAL takes an exclusive lock, and SQLite may answer BUSY at
  // once instead of calling the busy handler when two connections open together (two pool
  // threads on a new database): retry for up to the busy timeout.
  for (int waited_ms = 0;; waited_ms += 10) {
    rc = sqlite3_exec(db.get(),
                      "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;",
                      nullptr, nullptr, &message);
    const int primary = rc & 0xff;
    if ((primary != SQLITE_BUSY && primary != SQLITE_LOCKED) || waited_ms >= kBusyTimeoutMs) {
      break;
    }
    sqlite3_free(message);
    message = nullptr;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (rc != SQLITE_OK) {
    std::string what = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    return Fail(ErrorCode::kUnavailable, "sqlite: cannot set up database: " + what);
  }
  if (path != ":memory:") {
    MakePrivate(path, existed);
  }
  if (checkpoints != nullptr) {
    // The hook replaces SQLite's autocheckpoint: this connection's commits never checkpoint.
    sqlite3_wal_hook(
        db.get(),
        [](void* ctx, sqlite3*, const char*, int pages) {
          static_cast<SqliteCheckpointer*>(ctx)->Note(pages);
          return SQLITE_OK;
        },
        checkpoints);
    const std::string limit =
        "PRAGMA journal_size_limit=" + std::to_string(SqliteCheckpointer::kJournalLimitBytes);
    if (sqlite3_exec(db.get(), limit.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      return Fail(ErrorCode::kUnavailable,
                  std::string("sqlite: cannot set up database: ") + sqlite3_errmsg(db.get()));
    }
  }
  return std::make_unique<SqliteConnection>(std::move(db));
}

}  // namespace plaudit::sql
