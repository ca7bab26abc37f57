// Store: the connection pool behind Store::Run() and Store::RunGrouped().
//
// Each pool thread owns at most one connection, opened when its first job arrives and
// replaced when it breaks. While the database is unreachable, connect attempts are shared
// across the pool and spaced by kReconnectBackoff, so queued jobs fail fast with kUnavailable
// instead of each waiting out a connect timeout.
//
// Group commit: RunGrouped() jobs wait in a queue of their own; a free pool thread takes all
// of them (up to kMaxGroup) into one transaction when no group is in flight, so the jobs that
// arrive while a group commits go into the next one. One group at a time: on SQLite every
// write holds the one write lock anyway, and two groups would only take turns at it through
// the busy handler's sleeps; on PostgreSQL and MariaDB comment writes lock their article's
// row, so parallel groups would mostly wait on each other too. A SQLite store also runs a
// checkpoint thread (SqliteCheckpointer): its pool connections never checkpoint in a commit.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/core/demangle.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <typeinfo>
#include <vector>

#include "sql/cache_shards.hpp"
#include "sql/connection_impl.hpp"

namespace plaudit::sql {

namespace {

constexpr auto kReconnectBackoff = std::chrono::milliseconds(200);
// The most jobs one group commit carries: a group's first job waits for all the others to
// run (~0.1 ms each on SQLite) before the commit answers it.
constexpr size_t kMaxGroup = 128;
constexpr size_t kMaxServerGroup = 30;  // PostgreSQL and MariaDB: see MaxGroup()
constexpr std::string_view kConnectionLost = "database connection lost during a group commit";

// A group job's shard raises held in `raises` while it runs, whatever way it ends.
class HeldShardRaises {
 public:
  HeldShardRaises(Connection& tx, ShardRaises& raises) : tx_(tx) { tx_.HoldShardRaises(&raises); }
  ~HeldShardRaises() { tx_.HoldShardRaises(nullptr); }
  HeldShardRaises(const HeldShardRaises&) = delete;
  HeldShardRaises& operator=(const HeldShardRaises&) = delete;

 private:
  Connection& tx_;
};

class StoreImpl final : public Store {
 public:
  StoreImpl(DatabaseUrl url, int pool_size) : url_(std::move(url)) {
    if (url_.dialect == Dialect::kSqlite && !url_.in_memory()) {
      checkpointer_ = std::make_unique<SqliteCheckpointer>(url_.target);
    }
    threads_.reserve(pool_size);
    for (int i = 0; i < pool_size; ++i) {
      threads_.emplace_back([this] { Work(); });
    }
  }

  ~StoreImpl() override { Close(); }

  Dialect dialect() const override { return url_.dialect; }

  Result<int> Migrate() override {
    // Its own connection: start-up work should not hold a pool thread, and an unreachable
    // database is reported with the reason rather than just "unavailable".
    PL_TRY(auto conn, OpenConnection(/*migrating=*/true));
    return ApplyMigrations(*conn);
  }

  Awaitable<Status> Ping() override {
    auto one = co_await Run<int64_t>([](Connection& conn) -> Result<int64_t> {
      auto rows = conn.Query("SELECT 1");
      PL_CHECK(rows);
      if (rows->rows.size() != 1 || rows->rows[0].size() != 1) {
        return Fail(ErrorCode::kInternal, "SELECT 1 returned an unexpected shape");
      }
      return Int(rows->rows[0][0]);
    });
    PL_CO_CHECK(one);
    if (*one != 1) {
      co_return Fail(ErrorCode::kInternal, "SELECT 1 did not return 1");
    }
    co_return Status{};
  }

  Result<WalState> Checkpoint() override {
    if (!checkpointer_) {
      return WalState{};
    }
    return checkpointer_->CheckpointNow();
  }

  void Close() override {
    std::lock_guard close_lock(close_mu_);
    {
      std::lock_guard lock(mu_);
      closing_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) {
      if (!t.joinable()) {
        continue;
      }
      if (t.get_id() == std::this_thread::get_id()) {
        t.detach();  // Close() from inside a job: the thread ends after this job
      } else {
        t.join();
      }
    }
    threads_.clear();
    if (checkpointer_) {
      checkpointer_->Stop();
    }
  }

 protected:
  void Submit(std::function<void(Connection*)> job) override {
    {
      std::lock_guard lock(mu_);
      if (!closing_) {
        queue_.push_back(std::move(job));
        cv_.notify_one();
        return;
      }
    }
    job(nullptr);  // closed: no connection will ever come
  }

  void SubmitGrouped(GroupedJob job) override {
    {
      std::lock_guard lock(mu_);
      if (!closing_) {
        grouped_.push_back(std::move(job));
        if (!group_running_) {
          cv_.notify_one();
        }
        return;
      }
    }
    job.alone(nullptr);  // closed
  }

 private:
  // migrating: a connection for Migrate(), which may wait long for the migration lock or a DDL
  // statement (MySQL: no read timeout).
  Result<std::unique_ptr<DbConnection>> OpenConnection(bool migrating = false) const {
    switch (url_.dialect) {
      case Dialect::kSqlite:
        return OpenSqlite(url_.target, migrating ? nullptr : checkpointer_.get());
      case Dialect::kPostgres:
        return OpenPostgres(url_.target);
      case Dialect::kMysql:
        return OpenMysql(url_.target, migrating);
    }
    return Fail(ErrorCode::kInternal, "unknown database dialect");
  }

  std::unique_ptr<DbConnection> Connect() {
    {
      std::lock_guard lock(connect_mu_);
      if (std::chrono::steady_clock::now() < retry_after_) {
        return nullptr;
      }
    }
    auto conn = OpenConnection();
    std::lock_guard lock(connect_mu_);
    if (!conn) {
      retry_after_ = std::chrono::steady_clock::now() + kReconnectBackoff;
      if (reachable_) {
        spdlog::warn("sql: database unreachable: {}", conn.error().message);
        reachable_ = false;
      }
      return nullptr;
    }
    if (!reachable_) {
      spdlog::info("sql: database reachable again");
      reachable_ = true;
    }
    return std::move(*conn);
  }

  void Work() {
    std::unique_ptr<DbConnection> conn;
    bool served_group = false;  // this thread's last turn: then a waiting plain job goes first
    while (true) {
      std::function<void(Connection*)> job;
      std::vector<GroupedJob> group;
      {
        std::unique_lock lock(mu_);
        const auto group_ready = [&] { return !group_running_ && !grouped_.empty(); };
        cv_.wait(lock, [&] {
          return group_ready() || !queue_.empty() ||
                 (closing_ && grouped_.empty() && !group_running_);
        });
        // A group first (its writers wait on one sync, a plain job only on itself), but not
        // twice running while a plain job waits: with one pool thread, comment writes arriving
        // during every group would otherwise keep reads, pings and the flusher waiting.
        if (group_ready() && !(served_group && !queue_.empty())) {
          const size_t n = std::min(grouped_.size(), MaxGroup());
          group.reserve(n);
          for (size_t i = 0; i < n; ++i) {
            group.push_back(std::move(grouped_.front()));
            grouped_.pop_front();
          }
          group_running_ = true;
        } else if (!queue_.empty()) {
          job = std::move(queue_.front());
          queue_.pop_front();
        } else {
          return;  // closing, and everything queued has run
        }
      }
      served_group = !group.empty();
      if (conn && !conn->Alive()) {
        spdlog::warn("sql: connection closed by the server; reconnecting");
        conn.reset();
      }
      if (!conn) {
        conn = Connect();
      }
      std::vector<GroupedJob> again;
      try {
        if (group.empty()) {
          job(conn.get());
        } else {
          again = RunGroup(group, conn.get());
        }
      } catch (const std::exception& e) {
        // Run() catches what the job's own code throws; only a bug gets here.
        spdlog::error("sql: job threw {}: {}", boost::core::demangle(typeid(e).name()), e.what());
      } catch (...) {
        spdlog::error("sql: job threw");
      }
      if (!group.empty()) {
        std::lock_guard lock(mu_);
        for (auto it = again.rbegin(); it != again.rend(); ++it) {
          grouped_.push_front(std::move(*it));  // first in the next group, in their order
        }
        group_running_ = false;
        cv_.notify_all();  // the next group, and a closing pool's last thread
      }
      if (conn) {
        conn->EndJob();
        if (conn->broken()) {
          spdlog::warn("sql: connection broken; reconnecting on the next call");
          conn.reset();
        }
      }
    }
  }

  // PostgreSQL keeps 64 subtransaction ids per transaction in shared memory, and a grouped job
  // opens two savepoints (its own and its write's): past that, every snapshot reads pg_subtrans.
  size_t MaxGroup() const { return url_.dialect == Dialect::kSqlite ? kMaxGroup : kMaxServerGroup; }

  // One group commit (see the top of the file): each job in a savepoint of one transaction,
  // in ascending order, then one COMMIT; every job is answered after it, with the commit's
  // outcome. When a job fails retryably, or an error ends the transaction by itself, the
  // group is given up instead (nothing of it commits): the job that ended it keeps its error
  // (a retryable one runs again), and every other job runs alone, as Run() would run it —
  // also those that had failed, on writes now undone. When the connection is lost before the
  // COMMIT, the job that lost it gets the error and the others are returned, to be taken up
  // again in the next group (once each; then they get the error too). Every job is answered
  // or returned, exceptions included.
  std::vector<GroupedJob> RunGroup(std::vector<GroupedJob>& group, DbConnection* conn) {
    using Ran = GroupedJob::Ran;
    std::vector<GroupedJob> again;
    std::vector<bool> done(group.size(), false);
    const auto settle = [&](size_t i, const Status& outcome) {
      done[i] = true;
      group[i].settle(outcome);
    };
    const auto alone = [&](size_t i, DbConnection* c) {
      done[i] = true;
      group[i].alone(c);
    };
    const Status lost = Fail(ErrorCode::kUnavailable, std::string(kConnectionLost));
    const auto retake = [&](size_t i) {
      if (group[i].requeued) {
        settle(i, lost);
        return;
      }
      done[i] = true;
      group[i].requeued = true;
      again.push_back(std::move(group[i]));
    };
    try {
      if (group_observer_) {
        group_observer_(group.size());
      }
      if (conn == nullptr) {
        for (size_t i = 0; i < group.size(); ++i) {
          alone(i, nullptr);  // kUnavailable, as Run() answers
        }
        return again;
      }
      std::stable_sort(group.begin(), group.end(),
                       [](const GroupedJob& a, const GroupedJob& b) { return a.order < b.order; });
      std::vector<Ran> ran;
      ran.reserve(group.size());
      bool broke = false;
      bool given_up = false;
      bool own_failed = false;  // the group's own locks or shard raises, not a job
      Status outcome = conn->Transaction([&](Connection& tx) -> Status {
        const auto own_step = [&](const Status& failed) -> Status {
          spdlog::warn("sql: a group commit's own step failed ({}): its jobs run alone",
                       failed.error().message);
          own_failed = true;
          broke = conn->broken();
          given_up = !broke;
          return Fail(ErrorCode::kInternal, "group commit given up");  // answers nobody
        };
        if (group_locks_ && group.size() > 1) {
          std::vector<int64_t> orders;
          for (const auto& m : group) {
            if (orders.empty() || orders.back() != m.order) {
              orders.push_back(m.order);
            }
          }
          if (auto st = group_locks_(tx, orders); !st) {
            return own_step(st);
          }
        }
        // Each job's shard raises held, and made after every job's rows (ShardRaises, in
        // sql/cache_shards.hpp, says why); a job whose savepoint rolled back raises none.
        ShardRaises raises;
        for (auto& m : group) {
          ShardRaises mine;
          {
            const HeldShardRaises hold(tx, mine);
            ran.push_back(m.run(tx));
          }
          if (conn->broken()) {
            broke = true;  // the transaction died with the connection: nothing of it commits
            return Fail(ErrorCode::kUnavailable, std::string(kConnectionLost));
          }
          if (ran.back() == Ran::kRetry || !conn->InTransaction()) {
            given_up = true;
            return Fail(ErrorCode::kInternal, "group commit given up");  // answers nobody
          }
          if (ran.back() == Ran::kOk) {
            raises.Merge(mine);
          }
        }
        if (auto st = raises.Raise(tx); !st) {
          return own_step(st);
        }
        return {};
      });
      if (broke) {
        if (!own_failed) {
          settle(ran.size() - 1, lost);  // the job that lost the connection
        }
        for (size_t i = 0; i < group.size(); ++i) {
          if (!done[i]) {
            retake(i);
          }
        }
        return again;
      }
      if (!given_up) {
        for (size_t i = 0; i < group.size(); ++i) {
          settle(i, outcome);
        }
        return again;
      }
      // A job that ended the group keeps its own error; when the group's own locks or shard
      // raises did, every job runs again alone (also one that had failed, on writes now undone).
      if (!own_failed && ran.back() == Ran::kFailed) {
        settle(ran.size() - 1, Status{});  // its own error
      }
      for (size_t i = 0; i < group.size(); ++i) {
        if (done[i]) {
          continue;
        }
        conn->EndJob();  // the group's transaction is over, whatever its ROLLBACK said
        if (conn->broken() || conn->InTransaction()) {
          retake(i);
          continue;
        }
        alone(i, conn);
      }
    } catch (const std::exception& e) {
      Abandon(group, done, boost::core::demangle(typeid(e).name()) + ": " + e.what());
    } catch (...) {
      Abandon(group, done, "an exception");
    }
    return again;
  }

  // After a bug threw out of a group: every job not answered yet gets an error (its
  // coroutine waits otherwise, and holds its io_context open).
  static void Abandon(std::vector<GroupedJob>& group, const std::vector<bool>& done,
                      const std::string& what) {
    spdlog::error("sql: group commit threw: {}", what);
    const Status error = Fail(ErrorCode::kInternal, "group commit threw: " + what);
    for (size_t i = 0; i < group.size(); ++i) {
      if (!done[i]) {
        try {
          group[i].settle(error);
        } catch (...) {
          spdlog::error("sql: a job of a failed group commit could not be answered");
        }
      }
    }
  }

  const DatabaseUrl url_;
  std::unique_ptr<SqliteCheckpointer> checkpointer_;  // SQLite on a file only

  std::mutex mu_;  // guards queue_ and closing_
  std::condition_variable cv_;
  std::deque<std::function<void(Connection*)>> queue_;
  std::deque<GroupedJob> grouped_;  // RunGrouped() jobs waiting for the next group
  bool group_running_ = false;
  bool closing_ = false;

  std::mutex close_mu_;  // serialises Close() so threads are joined once
  std::vector<std::thread> threads_;

  std::mutex connect_mu_;  // guards retry_after_ and reachable_
  std::chrono::steady_clock::time_point retry_after_;
  bool reachable_ = true;
};

}  // namespace

void detail::PauseBeforeRetry(int attempt) {
  // 1-4 ms, then 2-8 ms: enough for the winner of a deadlock to commit.
  thread_local uint32_t state =
      static_cast<uint32_t>(std::hash<std::thread::id>{}(std::this_thread::get_id()) | 1u);
  state ^= state << 13;
  state ^= state >> 17;
  state ^= state << 5;
  const int ms = attempt * (1 + static_cast<int>(state % 4));
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

Awaitable<Result<std::optional<int64_t>>> Store::QueryInt(std::string_view sql,
                                                          std::vector<Value> params) {
  std::function<Result<std::optional<int64_t>>(Connection&)> job =
      [sql, params = std::move(params)](Connection& c) { return c.QueryInt(sql, params); };
  co_return co_await Run<std::optional<int64_t>>(std::move(job));
}

Result<std::unique_ptr<Store>> Store::Open(StoreOptions options) {
  if (options.pool_size < 1) {
    return Fail(ErrorCode::kInvalidArgument, "database pool size must be at least 1");
  }
  if (options.url.in_memory() && options.pool_size > 1) {
    return Fail(ErrorCode::kInvalidArgument, "an in-memory SQLite database needs pool_size 1");
  }
  try {
    return std::make_unique<StoreImpl>(std::move(options.url), options.pool_size);
  } catch (const std::system_error& e) {
    return Fail(ErrorCode::kInternal, std::string("cannot start database threads: ") + e.what());
  }
}

}  // namespace plaudit::sql
