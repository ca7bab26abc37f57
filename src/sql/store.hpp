#pragma once
// The durable record: SQLite (embedded default), PostgreSQL or MySQL/MariaDB behind one
// interface.
//
// Calls never run on the I/O thread: Store::Run() hands a function to a small pool of
// threads, each owning one connection, and resumes the awaiting coroutine on its own
// executor with the result. Queries are written once in PostgreSQL's `$1, $2` placeholder
// style and bound as parameters, never spliced into the text; the SQLite connection
// rewrites `$n` to `?n`, the MySQL one to `?` in order. Where the dialects differ, callers
// ask dialect() (sql/dialect.hpp has the shared cases).
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/database_url.hpp"
#include "common/net.hpp"
#include "common/result.hpp"

namespace plaudit::sql {

using Value = std::variant<std::nullptr_t, int64_t, double, std::string>;
using Row = std::vector<Value>;

struct Rows {
  std::vector<std::string> columns;
  std::vector<Row> rows;
  int64_t affected = 0;  // rows changed by INSERT/UPDATE/DELETE
};

// Helpers to read a Value: Int(v) for integers (also parses numeric text, as libpq returns
// text), Text(v) for strings; IsNull(v).
int64_t Int(const Value& v);
double Real(const Value& v);
std::string Text(const Value& v);
bool IsNull(const Value& v);
// A NULL-able integer column: OptionalInt(v) reads NULL as nullopt; Nullable(id) binds nullopt
// as NULL.
std::optional<int64_t> OptionalInt(const Value& v);
Value Nullable(const std::optional<int64_t>& id);
// Appends `ids` to `params` and returns their placeholders as "($k, $k+1, …)" for an IN list.
std::string InList(const std::vector<int64_t>& ids, std::vector<Value>& params);

// What a row reader (a function of `const Row&`) makes of one row.
template <class Read>
using RowValue = std::invoke_result_t<Read&, const Row&>;

class ShardRaises;  // sql/cache_shards.hpp

// One database connection. Used only on a pool thread, inside Store::Run().
class Connection {
 public:
  virtual ~Connection() = default;
  // Inside a job of a group commit: where RaiseCacheShard holds the job's shard raises, for
  // the group to make after all its jobs (sql/cache_shards.hpp says why). Null otherwise.
  ShardRaises* held_shard_raises() const { return held_shard_raises_; }
  void HoldShardRaises(ShardRaises* raises) { held_shard_raises_ = raises; }

  virtual Dialect dialect() const = 0;
  // Runs one statement with bound parameters. Unique/primary-key violations map to
  // ErrorCode::kAlreadyExists, other constraint violations (NOT NULL, CHECK, FOREIGN KEY) to
  // kInvalidArgument, lost connections and lock timeouts to kUnavailable, others to
  // kInternal. On PostgreSQL a parameter whose type the statement does not fix (`$1 IS NULL`)
  // needs a cast (`$1::text`); text parameters cannot contain NUL bytes (kInvalidArgument).
  // Error messages never quote parameter values.
  virtual Result<Rows> Query(std::string_view sql, const std::vector<Value>& params = {}) = 0;
  // Query() with its answer read as values (its errors as they are): every row through `read`,
  // in order; the first row through `read`, nullopt when there is none; the first column of
  // every row as integers (ids); the first column of the first row as an integer (a count, a
  // MAX, an id), nullopt when there is no row. Definitions: sql/query_rows.hpp.
  template <class Read>
  Result<std::vector<RowValue<Read>>> QueryRows(std::string_view sql,
                                                const std::vector<Value>& params, Read read);
  template <class Read>
  Result<std::optional<RowValue<Read>>> QueryRow(std::string_view sql,
                                                 const std::vector<Value>& params, Read read);
  Result<std::vector<int64_t>> QueryInts(std::string_view sql,
                                         const std::vector<Value>& params = {});
  Result<std::optional<int64_t>> QueryInt(std::string_view sql,
                                          const std::vector<Value>& params = {});
  // Runs several statements without parameters (migrations).
  virtual Status ExecScript(std::string_view sql) = 0;
  // Runs fn inside BEGIN ... COMMIT (BEGIN IMMEDIATE on SQLite); rolls back when fn returns
  // an error or throws. Nested calls use savepoints.
  virtual Status Transaction(const std::function<Status(Connection&)>& fn) = 0;

 private:
  ShardRaises* held_shard_raises_ = nullptr;
};

struct StoreOptions {
  DatabaseUrl url;  // ParseDatabaseUrl("sqlite:///abs/path/file.db" or "postgresql://...")
  int pool_size = 2;
};

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(StoreOptions options);
  virtual ~Store() = default;
  virtual Dialect dialect() const = 0;

  // Runs fn on a pool thread with a connection and awaits its result; the caller resumes on
  // its own executor. kUnavailable when no connection can be had (database unreachable, or
  // the store is closed); an exception thrown by fn becomes kInternal. A broken connection
  // is reopened on the next call, and a transaction fn leaves open is rolled back. A job that
  // fails with a retryable error (a deadlock, a serialization failure) runs again from its
  // start, up to three runs: fn must keep its state in its own locals, not in the caller's.
  template <class T>
  Awaitable<Result<T>> Run(std::function<Result<T>(Connection&)> fn);
  // Run() for a write that shares its transaction, and so its COMMIT (one disk sync for many),
  // with the other RunGrouped() jobs waiting when a pool thread takes them up (group commit):
  // a job that arrives while a group commits goes into the next one. fn runs in a savepoint
  // of the group's transaction after the jobs before it (it sees their writes, as it would
  // after their commits), and its result is delivered only once the group has committed.
  // When fn fails, its savepoint is rolled back and the others go on: its own error is its
  // answer. A retryable failure (a deadlock), or an error that ends the transaction by itself,
  // gives the group up: it is rolled back, and every job runs again alone, as Run() would run
  // it (the one that ended it keeps its error). When the group's COMMIT fails, every job of
  // it gets that error; when its connection is lost first, the jobs are taken up again in a
  // later group, once. fn must not end the transaction itself (no COMMIT, no DDL). Jobs run
  // in ascending `order` within a group (the article id for comment writes: the order in
  // which the like flush locks article rows). One group is in flight at a time, and a pool
  // thread serves a waiting Run() job between two groups.
  template <class T>
  Awaitable<Result<T>> RunGrouped(std::function<Result<T>(Connection&)> fn, int64_t order = 0);
  // One statement through Run(), read as Connection::QueryInt reads it: the first column of its
  // first row as an integer, nullopt when it answers no row (a count, a MAX, a seq). `sql` is a
  // constant of the caller's.
  Awaitable<Result<std::optional<int64_t>>> QueryInt(std::string_view sql,
                                                     std::vector<Value> params = {});

  // Applies migrations from src/sql/migrations/ not yet recorded in schema_migrations, in
  // order, each in its own transaction. Idempotent. Returns how many were applied.
  // Synchronous: for start-up and `plauditd migrate`.
  virtual Result<int> Migrate() = 0;
  // `SELECT 1` through Run() (the pooled connection is checked first, and reopened if the
  // server closed it). kUnavailable when the database is unreachable.
  virtual Awaitable<Status> Ping() = 0;
  // SQLite: checkpoints the WAL now (PASSIVE: copies what no reader still needs into the
  // database file, never waits for readers or writers), as the store's own checkpoint thread
  // does once the WAL passes kCheckpointPages; pool connections never checkpoint in a commit.
  // Returns the WAL's frames and how many of them are now in the database file. Elsewhere a
  // no-op ({0, 0}). For tests.
  struct WalState {
    int64_t frames = 0;
    int64_t checkpointed = 0;
  };
  virtual Result<WalState> Checkpoint() = 0;
  // Stops the pool threads (pending work completes first). Idempotent; also run by the
  // destructor. Run() after Close() fails with kUnavailable.
  virtual void Close() = 0;

  // Called on a pool thread with each Run()'s latency in seconds, queueing included (for
  // /metrics). Set before the first Run(); must be thread-safe.
  void SetLatencyObserver(std::function<void(double)> observer) {
    latency_observer_ = std::move(observer);
  }
  // Called in each group commit's transaction before its first job, with its jobs' distinct
  // orders ascending (RunGrouped's: the articles of comment writes), to lock what the jobs will
  // lock first, all of it before any job's other rows (sql/cache_shards.hpp LockArticleRows
  // says why). When it fails, the group is given up and every job runs alone. Set before the
  // first RunGrouped().
  void SetGroupLocks(std::function<Status(Connection&, const std::vector<int64_t>&)> locks) {
    group_locks_ = std::move(locks);
  }
  // Called on a pool thread with the number of jobs each group commit carried (for
  // /metrics). Set before the first RunGrouped(); must be thread-safe.
  void SetGroupObserver(std::function<void(size_t)> observer) {
    group_observer_ = std::move(observer);
  }

 protected:
  std::function<void(double)> latency_observer_;
  std::function<void(size_t)> group_observer_;
  std::function<Status(Connection&, const std::vector<int64_t>&)> group_locks_;

  // A RunGrouped() job as the pool sees it (made in store_run.hpp, where T is known).
  struct GroupedJob {
    enum class Ran {
      kOk,      // fn succeeded in its savepoint; its answer waits for the group's COMMIT
      kFailed,  // fn failed (its savepoint rolled back); that error is its answer
      kRetry,   // fn failed retryably: the group is rolled back and the job runs alone
    };
    // Runs fn once in a savepoint of the open group transaction and keeps its answer.
    std::function<Ran(Connection&)> run;
    // Delivers the job's answer given the group's outcome: ok → the answer run() kept (a
    // result or its own error); an error → that error.
    std::function<void(const Status&)> settle;
    // Runs the job by itself, as Run() runs a job (conn: nullptr when there is none).
    std::function<void(Connection*)> alone;
    int64_t order = 0;      // RunGrouped()'s
    bool requeued = false;  // taken up again once already after a lost connection
  };
  virtual void SubmitGrouped(GroupedJob job) = 0;

  // Runs job on a pool thread; the job receives a connection, or nullptr when the
  // database cannot be reached (the job must then report kUnavailable).
  virtual void Submit(std::function<void(Connection*)> job) = 0;
};

}  // namespace plaudit::sql

#include "sql/query_rows.hpp"
#include "sql/store_run.hpp"
