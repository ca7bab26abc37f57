// An unreachable database gives kUnavailable quickly, and the store recovers by itself
// when PostgreSQL comes back.
#include <gtest/gtest.h>

#include <chrono>

#include "sql_test_util.hpp"
#include "support/process.hpp"

namespace plaudit::sql::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::unique_ptr<Store> MustOpen(const std::string& url, int pool_size = 2) {
  auto parsed = ParseDatabaseUrl(url);
  if (!parsed) {
    ADD_FAILURE() << url << ": " << parsed.error().message;
    return nullptr;
  }
  auto store = Store::Open({.url = std::move(*parsed), .pool_size = pool_size});
  if (!store) {
    ADD_FAILURE() << store.error().message;
    return nullptr;
  }
  return std::move(*store);
}

void ExpectUnavailableQuickly(Store& store) {
  auto start = Clock::now();
  Status ping = RunSync(store.Ping());
  ASSERT_FALSE(ping);
  EXPECT_EQ(ping.error().code, ErrorCode::kUnavailable) << ping.error().message;
  auto query = Query(store, "SELECT 1");
  ASSERT_FALSE(query);
  EXPECT_EQ(query.error().code, ErrorCode::kUnavailable) << query.error().message;
  EXPECT_LT(Clock::now() - start, 3s);
}

// Store::Open takes a parsed URL: an unusable one never gets that far (config::Parse stops
// plauditd at start-up with the parser's message).
TEST(StoreOpen, RejectsUnusableUrls) {
  for (const char* url :
       {"", "mysql://localhost/db", "sqlite://", "postgresql://localhost/db?no_such_option=1"}) {
    auto parsed = ParseDatabaseUrl(url);
    ASSERT_FALSE(parsed) << url;
    EXPECT_EQ(parsed.error().code, ErrorCode::kInvalidArgument) << url;
  }
  auto no_threads =
      Store::Open({.url = ParseDatabaseUrl("sqlite:///tmp/x.db").value(), .pool_size = 0});
  ASSERT_FALSE(no_threads);
  EXPECT_EQ(no_threads.error().code, ErrorCode::kInvalidArgument);
}

TEST(StoreOpen, AcceptsSqliteUrlForms) {
  plaudit::testing::TempDir dir("plaudit-sql");
  const std::string path = (dir.path() / "a.db").string();
  for (const std::string& url : {"sqlite://" + path, "sqlite:" + path, path}) {
    auto store = MustOpen(url);
    ASSERT_TRUE(store) << url;
    EXPECT_EQ(store->dialect(), Dialect::kSqlite);
    Status ping = RunSync(store->Ping());
    EXPECT_TRUE(ping) << url << ": " << ping.error().message;
  }
  EXPECT_TRUE(std::filesystem::exists(path));
}

TEST(StoreOutage, SqliteInMissingDirectoryIsUnavailable) {
  auto store = MustOpen("sqlite:///nonexistent-plaudit-dir/sub/x.db");
  ASSERT_TRUE(store);
  ExpectUnavailableQuickly(*store);
  auto migrated = store->Migrate();
  ASSERT_FALSE(migrated);
  EXPECT_EQ(migrated.error().code, ErrorCode::kUnavailable);
}

TEST(StoreOutage, UnreachablePostgresIsUnavailable) {
  auto store = MustOpen("postgresql://postgres@/plaudit?host=/nonexistent-plaudit-dir&port=1");
  ASSERT_TRUE(store);
  EXPECT_EQ(store->dialect(), Dialect::kPostgres);
  ExpectUnavailableQuickly(*store);
  auto migrated = store->Migrate();
  ASSERT_FALSE(migrated);
  EXPECT_EQ(migrated.error().code, ErrorCode::kUnavailable);
}

TEST(StoreOutage, MissingPostgresDatabaseIsUnavailable) {
  auto& server = plaudit::testing::PostgresServer::Shared();
  auto store = MustOpen(server.url("no_such_database"));
  ASSERT_TRUE(store);
  ExpectUnavailableQuickly(*store);
}

// A server of its own: stopping the shared one would disturb other tests.
class PostgresOutage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new plaudit::testing::PostgresServer(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    server_->Start();  // in case an earlier test failed while it was stopped
    url_ = server_->url(server_->CreateDatabase());
  }

  static plaudit::testing::PostgresServer* server_;
  std::string url_;
};
plaudit::testing::PostgresServer* PostgresOutage::server_ = nullptr;

TEST_F(PostgresOutage, StoppedServerIsUnavailableAndRecoveryIsAutomatic) {
  auto store = MustOpen(url_, /*pool_size=*/2);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Migrate());
  ASSERT_TRUE(Query(*store, "INSERT INTO plaudit_meta (key, value) VALUES ('k', 'v')"));
  // Warm both pool connections so both have to notice the outage.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(RunSync(store->Ping()));
  }

  server_->Stop();
  ExpectUnavailableQuickly(*store);
  auto migrated = store->Migrate();
  ASSERT_FALSE(migrated);
  EXPECT_EQ(migrated.error().code, ErrorCode::kUnavailable);

  server_->Start();
  EXPECT_TRUE(plaudit::testing::WaitFor([&] { return RunSync(store->Ping()).has_value(); }, 10s));
  for (int i = 0; i < 10; ++i) {
    auto rows = Query(*store, "SELECT value FROM plaudit_meta WHERE key = $1", {std::string("k")});
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->rows.size(), 1u);
    EXPECT_EQ(Text(rows->rows[0][0]), "v");
  }
}

TEST_F(PostgresOutage, FirstCallAfterARestartSucceeds) {
  auto store = MustOpen(url_, /*pool_size=*/1);
  ASSERT_TRUE(store);
  ASSERT_TRUE(RunSync(store->Ping()));
  // The pooled connection dies while idle; the next call must notice before using it.
  server_->Stop();
  server_->Start();
  Status ping = RunSync(store->Ping());
  EXPECT_TRUE(ping) << ping.error().message;
}

TEST_F(PostgresOutage, TerminatedSessionIsReplaced) {
  auto store = MustOpen(url_, /*pool_size=*/1);
  ASSERT_TRUE(store);
  ASSERT_TRUE(RunSync(store->Ping()));
  server_->Psql("postgres",
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = 'plauditd'");
  // pg_terminate_backend only signals: wait until the session is really gone.
  ASSERT_TRUE(plaudit::testing::WaitFor(
      [&] {
        return server_->Psql("postgres",
                             "SELECT COUNT(*) FROM pg_stat_activity "
                             "WHERE application_name = 'plauditd'") == "0";
      },
      10s));
  for (int i = 0; i < 3; ++i) {
    Status ping = RunSync(store->Ping());
    EXPECT_TRUE(ping) << ping.error().message;
  }
}

}  // namespace
}  // namespace plaudit::sql::test
