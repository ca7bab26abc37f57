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

TEST(MigrationFiles, FollowTheNamingConventionForEveryDialect) {
  for (Dialect d : {Dialect::kSqlite, Dialect::kPostgres, Dialect::kMysql}) {
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
  // "key" quoted: a reserved word in MySQL (every dialect reads a quoted name).
  ASSERT_TRUE(Query(*store, "INSERT INTO plaudit_meta (\"key\", value) VALUES ($1, $2)",
                    {"created_by"s, "test"s}));
  auto dup = Query(*store, "INSERT INTO plaudit_meta (\"key\", value) VALUES ($1, $2)",
                   {"created_by"s, "again"s});
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, ErrorCode::kAlreadyExists);
  auto rows = Query(*store, "SELECT value FROM plaudit_meta WHERE \"key\" = $1", {"created_by"s});
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(Text(rows->rows[0][0]), "test");
}

// 006 rebuilds SQLite's likes table WITHOUT ROWID (clustered by target). A database made
// before it, with likes in the old rowid table, keeps every row across the upgrade.
TEST_P(Migrate, LikesTableUpgradeKeepsEveryRow) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Migrate());
  // Back to version 5: the likes table as 004 made it, with rows, and 006 not recorded.
  ASSERT_TRUE(Query(*store, "DELETE FROM schema_migrations WHERE version = 6"));
  if (GetParam() == Dialect::kSqlite) {
    ASSERT_TRUE(Query(*store, "DROP TABLE likes"));
    ASSERT_TRUE(Query(*store,
                      "CREATE TABLE likes (target_type TEXT NOT NULL CHECK (target_type IN "
                      "('a', 'c')), target_id BIGINT NOT NULL, user_id BIGINT NOT NULL, valid "
                      "INTEGER NOT NULL, seq BIGINT NOT NULL, updated_at BIGINT NOT NULL, "
                      "PRIMARY KEY (target_type, target_id, user_id))"));
  }
  for (int64_t uid = 1; uid <= 300; ++uid) {
    auto r = Query(*store,
                   "INSERT INTO likes (target_type, target_id, user_id, valid, seq, updated_at) "
                   "VALUES ($1, $2, $3, $4, $5, $6)",
                   {uid % 2 ? "a"s : "c"s, int64_t{uid % 7}, uid, int64_t{uid % 3 ? 1 : 0},
                    uid * 10, int64_t{1700000000000}});
    ASSERT_TRUE(r) << r.error().message;
  }
  auto before = Query(*store,
                      "SELECT target_type, target_id, user_id, valid, seq FROM likes "
                      "ORDER BY 1, 2, 3");
  ASSERT_TRUE(before);
  ASSERT_EQ(before->rows.size(), 300u);

  auto upgraded = store->Migrate();
  ASSERT_TRUE(upgraded) << upgraded.error().message;
  EXPECT_EQ(*upgraded, 1);
  ExpectRecorded(*store);
  auto after = Query(*store,
                     "SELECT target_type, target_id, user_id, valid, seq FROM likes "
                     "ORDER BY 1, 2, 3");
  ASSERT_TRUE(after);
  ASSERT_EQ(after->rows.size(), before->rows.size());
  for (size_t i = 0; i < after->rows.size(); ++i) {
    EXPECT_EQ(Text(after->rows[i][0]), Text(before->rows[i][0]));
    for (size_t c = 1; c < 5; ++c) {
      EXPECT_EQ(Int(after->rows[i][c]), Int(before->rows[i][c]));
    }
  }
  // The primary key still refuses a duplicate.
  auto dup = Query(*store,
                   "INSERT INTO likes (target_type, target_id, user_id, valid, seq, updated_at) "
                   "VALUES ('a', 1, 1, 1, 1, 1)");
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, ErrorCode::kAlreadyExists);
  if (GetParam() == Dialect::kSqlite) {
    auto sql =
        Query(*store, "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'likes'");
    ASSERT_TRUE(sql);
    ASSERT_EQ(sql->rows.size(), 1u);
    EXPECT_NE(Text(sql->rows[0][0]).find("WITHOUT ROWID"), std::string::npos)
        << Text(sql->rows[0][0]);
  }
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

INSTANTIATE_TEST_SUITE_P(Dialects, Migrate, AllDialects(), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
