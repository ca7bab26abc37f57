// Store::Migrate: applies each embedded migration exactly once, also under concurrency.
#include <gtest/gtest.h>

#include <atomic>
#include <latch>
#include <thread>

#include "sql/migrations.hpp"
#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

using namespace std::string_literals;

class Migrate : public SqlTest {
 protected:
  std::vector<Migration> Expected() {
    auto migrations = MigrationsFor(GetParam());
    EXPECT_TRUE(migrations) << migrations.error().message;
    return migrations ? *migrations : std::vector<Migration>{};
  }

  void ExpectRecorded(Store& store) {
    auto expected = Expected();
    auto rows = Query(store, "SELECT version, name, applied_at FROM schema_migrations ORDER BY 1");
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->rows.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(Int(rows->rows[i][0]), expected[i].version);
      EXPECT_EQ(Text(rows->rows[i][1]), expected[i].name);
      EXPECT_FALSE(Text(rows->rows[i][2]).empty());
    }
  }
};

TEST(MigrationFiles, FollowTheNamingConventionForBothDialects) {
  for (Dialect d : {Dialect::kSqlite, Dialect::kPostgres}) {
    auto migrations = MigrationsFor(d);
    ASSERT_TRUE(migrations) << migrations.error().message;
    ASSERT_FALSE(migrations->empty());
    EXPECT_EQ((*migrations)[0].version, 1);
    EXPECT_EQ((*migrations)[0].name, "meta");
    for (size_t i = 1; i < migrations->size(); ++i) {
      EXPECT_LT((*migrations)[i - 1].version, (*migrations)[i].version);
    }
  }
}

TEST_P(Migrate, AppliesEachMigrationOnceAndIsIdempotent) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  const int expected = static_cast<int>(Expected().size());
  auto first = store->Migrate();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(*first, expected);
  auto second = store->Migrate();
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(*second, 0);
  ExpectRecorded(*store);

  // A second store (another process, a restart) finds nothing to do either.
  auto other = OpenStore();
  ASSERT_TRUE(other);
  auto third = other->Migrate();
  ASSERT_TRUE(third) << third.error().message;
  EXPECT_EQ(*third, 0);
}

TEST_P(Migrate, MetaTableIsUsable) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Migrate());
  ASSERT_TRUE(Query(*store, "INSERT INTO plaudit_meta (key, value) VALUES ($1, $2)",
                    {"created_by"s, "test"s}));
  auto dup = Query(*store, "INSERT INTO plaudit_meta (key, value) VALUES ($1, $2)",
                   {"created_by"s, "again"s});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, ErrorCode::kAlreadyExists);
  auto rows = Query(*store, "SELECT value FROM plaudit_meta WHERE key = $1", {"created_by"s});
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(Text(rows->rows[0][0]), "test");
}

TEST_P(Migrate, ConcurrentMigrationsNeitherFailNorDoubleApply) {
  constexpr int kProcesses = 4;
  std::vector<std::unique_ptr<Store>> stores;
  for (int i = 0; i < kProcesses; ++i) {
    stores.push_back(OpenStore());
    ASSERT_TRUE(stores.back());
  }
  std::latch start(kProcesses);
  std::vector<Result<int>> results(kProcesses, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kProcesses; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      results[i] = stores[i]->Migrate();
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  int applied = 0;
  for (const auto& r : results) {
    ASSERT_TRUE(r) << r.error().message;
    applied += *r;
  }
  EXPECT_EQ(applied, static_cast<int>(Expected().size()));
  ExpectRecorded(*stores[0]);
}

INSTANTIATE_TEST_SUITE_P(Dialects, Migrate, ::testing::Values(Dialect::kSqlite, Dialect::kPostgres),
                         DialectName);

}  // namespace
}  // namespace plaudit::sql::test
