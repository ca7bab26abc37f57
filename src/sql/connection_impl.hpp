#pragma once
// The pool's view of a connection: the public Connection plus the health checks and clean-up
// the pool runs around each job. Internal to src/sql/.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
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
  // True while a transaction is open and can still commit. A group commit asks after each of its
  // jobs: some errors end the whole transaction by themselves (SQLite on SQLITE_FULL or an I/O
  // error, InnoDB on a deadlock), and the jobs after them would otherwise run, and commit, one by
  // one.
  virtual bool InTransaction() = 0;

 protected:
  virtual std::string BeginStatement() const = 0;
  void MarkBroken() { broken_ = true; }

 private:
  bool broken_ = false;
  int depth_ = 0;  // nesting of Transaction() calls
};

// Keeps a SQLite database's WAL short from a thread of its own, so that no commit waits for a
// checkpoint. SQLite's default runs one inside the commit that takes the WAL past 1,000 pages:
// that writer then copies the pages into the database file and syncs it (a few ms under load)
// while every other writer waits for the lock. Here the store's pool connections are opened
// with a WAL hook instead (which replaces SQLite's autocheckpoint), the hook wakes this thread
// once the WAL holds kCheckpointPages, and the thread runs a PASSIVE checkpoint on its own
// connection: it copies what no reader still needs and waits for nobody. If the WAL holds
// more than kWalLimitPages all the same (readers kept it), it runs a RESTART checkpoint, which
// waits for them up to 200 ms while holding writers; one that could not finish is not tried
// again for 30 s. The WAL file is truncated to kJournalLimitBytes when it starts over
// (journal_size_limit).
class SqliteCheckpointer {
 public:
  static constexpr int kCheckpointPages = 1000;
  static constexpr int kWalLimitPages = 16 * kCheckpointPages;
  static constexpr int64_t kJournalLimitBytes = 64LL << 20;

  explicit SqliteCheckpointer(std::string path);
  ~SqliteCheckpointer();
  SqliteCheckpointer(const SqliteCheckpointer&) = delete;
  SqliteCheckpointer& operator=(const SqliteCheckpointer&) = delete;

  // From a pool connection's WAL hook after each commit (any pool thread): wakes the thread
  // when the WAL holds kCheckpointPages or more.
  void Note(int wal_pages);
  // A PASSIVE checkpoint now, on the caller's thread (the thread's own connection, one
  // checkpoint at a time). Store::Checkpoint().
  Result<Store::WalState> CheckpointNow();
  // Ends the thread (idempotent; also the destructor).
  void Stop();

 private:
  void Loop();
  Result<Store::WalState> Run(int mode);

  const std::string path_;
  std::mutex mu_;  // guards wanted_ and stopping_
  std::condition_variable cv_;
  bool wanted_ = false;
  bool stopping_ = false;
  std::mutex run_mu_;                                    // one checkpoint at a time on db_
  std::chrono::steady_clock::time_point restart_after_;  // Loop()'s: no RESTART before
  struct Handle;
  std::unique_ptr<Handle> db_;  // the thread's connection, opened on first use
  std::thread thread_;
};

// Connections to the three databases. Both fail with kUnavailable when the database cannot be
// reached or opened. checkpoints: the store's checkpoint thread, which then checkpoints for
// this connection (nullptr: SQLite's own autocheckpoint, for migrations and tools).
Result<std::unique_ptr<DbConnection>> OpenSqlite(const std::string& path,
                                                 SqliteCheckpointer* checkpoints = nullptr);
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
