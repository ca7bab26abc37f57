// An unreachable database gives kUnavailable quickly, and the store recovers by itself
// when PostgreSQL or MariaDB comes back.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <type_traits>

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
       {"", "mysql://localhost/db", "sqlite://", "postgresql://localhost/db?no_such_option=1",
        "mysql://u@localhost/", "mysql://u@localhost/a/b", "mysql://u@localhost:99999/db",
        "mariadb://u@localhost/db?tls=maybe", "mariadb://u@localhost/db?sslmode=require",
        "mariadb://u@localhost/db?tls=on&tls-ca=/ca.pem", "oracle://u@localhost/db"}) {
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

TEST(StoreOpen, ParsesMysqlUrls) {
  auto t = MysqlTarget::Parse("mysql://us%40er:p%3Ass@db.example:3307/plaudit");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->user, "us@er");
  EXPECT_EQ(t->password, "p:ss");
  EXPECT_EQ(t->host, "db.example");
  EXPECT_EQ(t->port, 3307);
  EXPECT_EQ(t->database, "plaudit");
  // A password crossing a network is encrypted unless the URL says otherwise.
  EXPECT_EQ(t->tls, MysqlTarget::Tls::kOn);
  auto local = MysqlTarget::Parse("mariadb://u@localhost/db?socket=/run/mysqld/mysqld.sock");
  ASSERT_TRUE(local) << local.error().message;
  EXPECT_EQ(local->socket, "/run/mysqld/mysqld.sock");
  EXPECT_EQ(local->port, 3306);
  EXPECT_EQ(local->tls, MysqlTarget::Tls::kOff);
  auto verify = MysqlTarget::Parse("mysql://u@127.0.0.1/db?tls-ca=/etc/ca.pem");
  ASSERT_TRUE(verify) << verify.error().message;
  EXPECT_EQ(verify->tls, MysqlTarget::Tls::kVerify);
  EXPECT_EQ(verify->tls_ca, "/etc/ca.pem");
  auto plain = MysqlTarget::Parse("mysql://u@db.internal/db?tls=off");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->tls, MysqlTarget::Tls::kOff);
}

TEST(StoreOutage, UnreachableMariadbIsUnavailable) {
  auto store = MustOpen("mariadb://u:p@localhost/plaudit?socket=/nonexistent-plaudit-dir/s");
  ASSERT_TRUE(store);
  EXPECT_EQ(store->dialect(), Dialect::kMysql);
  ExpectUnavailableQuickly(*store);
  auto migrated = store->Migrate();
  ASSERT_FALSE(migrated);
  EXPECT_EQ(migrated.error().code, ErrorCode::kUnavailable);
}

TEST(StoreOutage, WrongMariadbPasswordIsUnavailableAndNamesNoPassword) {
  auto& server = plaudit::testing::MariadbServer::Shared();
  const std::string db = server.CreateDatabase();
  auto store = MustOpen(
      "mariadb://plaudit:wrong-secret@127.0.0.1:" + std::to_string(server.port()) + "/" + db);
  ASSERT_TRUE(store);
  auto migrated = store->Migrate();
  ASSERT_FALSE(migrated);
  EXPECT_EQ(migrated.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(migrated.error().message.find("wrong-secret"), std::string::npos);
  // The right one, over TCP this time.
  auto good = MustOpen(server.url(db, /*tcp=*/true));
  ASSERT_TRUE(good);
  auto ok = good->Migrate();
  EXPECT_TRUE(ok) << ok.error().message;
}

// Closes every session of plauditd's on `server` from the server side, as a DBA, an idle
// timeout or a failover would, and waits until they are gone.
void KillSessions(plaudit::testing::PostgresServer& server) {
  server.Psql("postgres",
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
              "WHERE application_name = 'plauditd'");
  // pg_terminate_backend only signals: wait until the session is really gone.
  ASSERT_TRUE(plaudit::testing::WaitFor(
      [&] {
        return server.Psql("postgres",
                           "SELECT COUNT(*) FROM pg_stat_activity "
                           "WHERE application_name = 'plauditd'") == "0";
      },
      10s));
}

void KillSessions(plaudit::testing::MariadbServer& server) {
  const std::string ids = server.Sql(
      "", "SELECT GROUP_CONCAT(id) FROM information_schema.processlist WHERE user = 'plaudit'");
  ASSERT_FALSE(ids.empty());
  std::string kill;
  for (size_t start = 0; start <= ids.size();) {
    const size_t comma = std::min(ids.find(',', start), ids.size());
    kill += "KILL " + ids.substr(start, comma - start) + ";";
    start = comma + 1;
  }
  server.Sql("", kill);  // KILL returns once the session is closed
}

// A server of its own per suite (PostgreSQL, MariaDB): stopping the shared one would disturb
// other tests.
template <class Server>
class ServerOutage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new Server(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    server_->Start();  // in case an earlier test failed while it was stopped
    url_ = server_->url(server_->CreateDatabase());
  }

  static Server* server_;
  std::string url_;
};
template <class Server>
Server* ServerOutage<Server>::server_ = nullptr;

using OutageServers =
    ::testing::Types<plaudit::testing::PostgresServer, plaudit::testing::MariadbServer>;
class ServerName {
 public:
  template <class T>
  static std::string GetName(int) {
    return std::is_same_v<T, plaudit::testing::PostgresServer> ? "Postgres" : "Mariadb";
  }
};
TYPED_TEST_SUITE(ServerOutage, OutageServers, ServerName);

TYPED_TEST(ServerOutage, StoppedServerIsUnavailableAndRecoveryIsAutomatic) {
  auto& server = *this->server_;
  auto store = MustOpen(this->url_, /*pool_size=*/2);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Migrate());
  ASSERT_TRUE(Query(*store, "INSERT INTO plaudit_meta (\"key\", value) VALUES ('k', 'v')"));
  // Warm both pool connections so both have to notice the outage.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(RunSync(store->Ping()));
  }

  server.Stop();
  ExpectUnavailableQuickly(*store);
  auto migrated = store->Migrate();
  ASSERT_FALSE(migrated);
  EXPECT_EQ(migrated.error().code, ErrorCode::kUnavailable);

  server.Start();
  EXPECT_TRUE(plaudit::testing::WaitFor([&] { return RunSync(store->Ping()).has_value(); }, 10s));
  for (int i = 0; i < 10; ++i) {
    auto rows =
        Query(*store, "SELECT value FROM plaudit_meta WHERE \"key\" = $1", {std::string("k")});
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->rows.size(), 1u);
    EXPECT_EQ(Text(rows->rows[0][0]), "v");
  }
}

TYPED_TEST(ServerOutage, FirstCallAfterARestartSucceeds) {
  auto store = MustOpen(this->url_, /*pool_size=*/1);
  ASSERT_TRUE(store);
  ASSERT_TRUE(RunSync(store->Ping()));
  // The pooled connection dies while idle; the next call must notice before using it.
  this->server_->Stop();
  this->server_->Start();
  Status ping = RunSync(store->Ping());
  EXPECT_TRUE(ping) << ping.error().message;
}

TYPED_TEST(ServerOutage, KilledSessionIsReplaced) {
  auto store = MustOpen(this->url_, /*pool_size=*/1);
  ASSERT_TRUE(store);
  ASSERT_TRUE(RunSync(store->Ping()));
  KillSessions(*this->server_);
  for (int i = 0; i < 3; ++i) {
    Status ping = RunSync(store->Ping());
    EXPECT_TRUE(ping) << ping.error().message;
  }
}

// A session that loses its server in the middle of a transaction answers kUnavailable for
// that call and is replaced for the next; the transaction left nothing.
TYPED_TEST(ServerOutage, ServerGoneMidTransactionIsUnavailableThenRecovers) {
  auto& server = *this->server_;
  auto store = MustOpen(this->url_, /*pool_size=*/1);
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->Migrate());
  auto in_tx = RunSync(store->template Run<int64_t>([&](Connection& c) -> Result<int64_t> {
    auto st = c.Transaction([&](Connection& tx) -> Status {
      auto r = tx.Query("INSERT INTO plaudit_meta (\"key\", value) VALUES ('a', 'b')");
      if (!r) {
        return tl::unexpected(r.error());
      }
      server.Stop();
      server.Start();
      auto again = tx.Query("SELECT 1");
      if (!again) {
        return tl::unexpected(again.error());
      }
      return {};
    });
    if (!st) {
      return tl::unexpected(st.error());
    }
    return 1;
  }));
  ASSERT_FALSE(in_tx);
  EXPECT_EQ(in_tx.error().code, ErrorCode::kUnavailable) << in_tx.error().message;
  auto rows = Query(*store, "SELECT COUNT(*) FROM plaudit_meta WHERE \"key\" = 'a'");
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(Int(rows->rows[0][0]), 0) << "the lost transaction left nothing";
}

}  // namespace
}  // namespace plaudit::sql::test
