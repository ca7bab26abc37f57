#pragma once
// Shared by the sql_tests suites: every test runs against SQLite (a temp file), PostgreSQL
// and MariaDB (a fresh database on the binary's shared server of each).
#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <future>
#include <optional>
#include <string>

#include "common/net.hpp"
#include "sql/store.hpp"
#include "support/mariadb_server.hpp"
#include "support/postgres_server.hpp"
#include "support/run_sync.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::sql::test {

using plaudit::testing::RunSync;

inline Result<Rows> Query(Store& store, std::string sql, std::vector<Value> params = {}) {
  return RunSync(store.Run<Rows>([sql = std::move(sql), params = std::move(params)](
                                     Connection& conn) { return conn.Query(sql, params); }));
}

inline std::string DialectName(const ::testing::TestParamInfo<Dialect>& info) {
  switch (info.param) {
    case Dialect::kSqlite:
      return "Sqlite";
    case Dialect::kPostgres:
      return "Postgres";
    case Dialect::kMysql:
      return "Mariadb";
  }
  return "Unknown";
}

// Every dialect, for INSTANTIATE_TEST_SUITE_P.
inline auto AllDialects() {
  return ::testing::Values(Dialect::kSqlite, Dialect::kPostgres, Dialect::kMysql);
}

class SqlTest : public ::testing::TestWithParam<Dialect> {
 protected:
  void SetUp() override {
    if (GetParam() == Dialect::kSqlite) {
      url_ = "sqlite://" + (dir_.path() / "plaudit.db").string();
    } else if (GetParam() == Dialect::kPostgres) {
      auto& server = plaudit::testing::PostgresServer::Shared();
      url_ = server.url(server.CreateDatabase());
    } else {
      auto& server = plaudit::testing::MariadbServer::Shared();
      url_ = server.url(server.CreateDatabase());
    }
  }

  std::unique_ptr<Store> OpenStore(int pool_size = 2) {
    auto store = Store::Open({.url = ParseDatabaseUrl(url_).value(), .pool_size = pool_size});
    if (!store) {
      ADD_FAILURE() << "Store::Open(" << url_ << "): " << store.error().message;
      return nullptr;
    }
    EXPECT_EQ((*store)->dialect(), GetParam());
    return std::move(*store);
  }

  // Opens a store and creates table t (id, n BIGINT, s TEXT).
  std::unique_ptr<Store> OpenWithTable(int pool_size = 2) {
    auto store = OpenStore(pool_size);
    if (store) {
      auto created = Query(*store,
                           "CREATE TABLE t (id INTEGER PRIMARY KEY, n BIGINT, s TEXT, "
                           "r DOUBLE PRECISION)");
      EXPECT_TRUE(created) << created.error().message;
    }
    return store;
  }

  // Expects the transaction `b` runs to be blocked behind another one's lock: on PostgreSQL
  // until `probe` sees a lock wait in pg_stat_activity (not for a fixed time); on SQLite, it
  // is still waiting after 200 ms (in BEGIN IMMEDIATE's busy handler, 5 s, for the write lock;
  // on MySQL in its 5 s innodb_lock_wait_timeout).
  template <class T>
  void ExpectWaitsForLock(Store& probe, const std::future<T>& b) {
    if (GetParam() == Dialect::kPostgres) {
      bool waiting = false;
      for (int i = 0; i < 1000 && !waiting; ++i) {
        auto r = Query(probe,
                       "SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                       "AND wait_event_type = 'Lock'");
        ASSERT_TRUE(r) << r.error().message;
        waiting = Int(r->rows.at(0).at(0)) > 0;
        if (!waiting && b.wait_for(std::chrono::milliseconds(10)) == std::future_status::ready) {
          break;
        }
      }
      EXPECT_TRUE(waiting) << "B did not wait for A";
    } else {
      EXPECT_EQ(b.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
    }
  }

  plaudit::testing::TempDir dir_{"plaudit-sql"};
  std::string url_;
};

// A SqlTest whose store_ is open with every migration applied.
class MigratedStoreTest : public SqlTest {
 protected:
  void SetUp() override {
    SqlTest::SetUp();
    store_ = OpenStore();
    ASSERT_TRUE(store_);
    auto migrated = store_->Migrate();
    ASSERT_TRUE(migrated) << migrated.error().message;
  }

  std::unique_ptr<Store> store_;
};

}  // namespace plaudit::sql::test
