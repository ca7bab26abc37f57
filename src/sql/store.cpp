// Store: the connection pool behind Store::Run().
//
// Each pool thread owns at most one connection, opened when its first job arrives and
// replaced when it breaks. While the database is unreachable, connect attempts are shared
// across the pool and spaced by kReconnectBackoff, so queued jobs fail fast with kUnavailable
// instead of each waiting out a connect timeout.
#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "sql/connection_impl.hpp"

namespace plaudit::sql {

namespace {

constexpr auto kReconnectBackoff = std::chrono::milliseconds(200);

class StoreImpl final : public Store {
 public:
  StoreImpl(DatabaseUrl url, int pool_size) : url_(std::move(url)) {
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

 private:
  // migrating: a connection for Migrate(), which may wait long for the migration lock or a DDL
  // statement (MySQL: no read timeout).
  Result<std::unique_ptr<DbConnection>> OpenConnection(bool migrating = false) const {
    switch (url_.dialect) {
      case Dialect::kSqlite:
        return OpenSqlite(url_.target);
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
    while (true) {
      std::function<void(Connection*)> job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return closing_ || !queue_.empty(); });
        if (queue_.empty()) {
          return;  // closing, and everything queued has run
        }
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      if (conn && !conn->Alive()) {
        spdlog::warn("sql: connection closed by the server; reconnecting");
        conn.reset();
      }
      if (!conn) {
        conn = Connect();
      }
      try {
        job(conn.get());
      } catch (const std::exception& e) {
        spdlog::error("sql: job threw: {}", e.what());  // Run() catches; only a bug gets here
      } catch (...) {
        spdlog::error("sql: job threw");
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

  const DatabaseUrl url_;

  std::mutex mu_;  // guards queue_ and closing_
  std::condition_variable cv_;
  std::deque<std::function<void(Connection*)>> queue_;
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
