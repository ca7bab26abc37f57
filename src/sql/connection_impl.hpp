#pragma once
// The pool's view of a connection: the public Connection plus the health checks and clean-up
// the pool runs around each job. Internal to src/sql/.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/store.hpp"

namespace plaudit::sql {

class DbConnection : public Connection {
 public:
  // Runs fn inside BEGIN ... COMMIT, or a SAVEPOINT when already inside a transaction, so
  // helpers that open their own transaction compose. Rolls back when fn fails or throws.
  Status Transaction(const std::function<Status(Connection&)>& fn) override;

  // True once the connection has failed in a way that needs a new one (lost server, I/O
  // error); the pool then drops it.
  bool broken() const { return broken_; }
  // Cheap check before handing the connection to a job: notices a server that closed the
  // connection while it sat idle, so the job gets a fresh connection instead of an error.
  virtual bool Alive() = 0;
  // After a job: rolls back a transaction the job left open, so the next job starts clean.
  virtual void EndJob() = 0;

 protected:
  virtual std::string BeginStatement() const = 0;
  void MarkBroken() { broken_ = true; }

 private:
  bool broken_ = false;
  int depth_ = 0;  // nesting of Transaction() calls
};

// Connections to the three databases. Both fail with kUnavailable when the database cannot be
// reached or opened.
Result<std::unique_ptr<DbConnection>> OpenSqlite(const std::string& path);
// The name of the network file system a statfs(2) f_type names (NFS, SMB, CIFS, FUSE…), or
// nullopt for a local one: OpenSqlite refuses a database on those.
std::optional<std::string_view> NetworkFilesystemName(long f_type);
Result<std::unique_ptr<DbConnection>> OpenPostgres(const std::string& url);
// url: a mysql:// or mariadb:// URL (common/database_url.hpp, MysqlTarget). A pool connection
// takes a server silent for 60 s as gone; a migrating one waits as long as the server works
// (the migration lock, a long ALTER).
Result<std::unique_ptr<DbConnection>> OpenMysql(const std::string& url, bool migrating = false);

// Rewrites PostgreSQL placeholders `$n` to SQLite's `?n`, leaving quoted strings, quoted
// identifiers and comments alone.
std::string RewritePlaceholders(std::string_view sql);
// Rewrites `$n` to MySQL's positional `?` and lists, in `order`, which n each `?` binds.
std::string RewritePositional(std::string_view sql, std::vector<int>& order);

// Applies the embedded migrations for conn's dialect (see Store::Migrate).
Result<int> ApplyMigrations(DbConnection& conn);

}  // namespace plaudit::sql
