#pragma once
// Base for API tests that run on every database: a private redis-server, a fresh SQLite file
// or PostgreSQL or MariaDB database per test, the app in-process, and helpers for accounts.
//
// With PLAUDIT_TEST_REDIS=cluster (ctest's api_tests_cluster) the same tests run on a
// 3-primary Redis Cluster with two plauditd instances: Client() alternates between them, as a
// round-robin load balancer would, so every write and the read after it may meet different
// processes (support/test_redis.hpp).
#include <gtest/gtest.h>

#include <cctype>
#include <future>
#include <string>
#include <string_view>

#include "app/app.hpp"
#include "app_fixture.hpp"
#include "redis/cache_marks.hpp"
#include "sql/articles.hpp"
#include "support/mariadb_server.hpp"
#include "support/postgres_server.hpp"

namespace plaudit::testing {

enum class Db { kSqlite, kPostgres, kMariadb };

inline std::string DbName(const ::testing::TestParamInfo<Db>& info) {
  switch (info.param) {
    case Db::kSqlite:
      return "Sqlite";
    case Db::kPostgres:
      return "Postgres";
    case Db::kMariadb:
      return "Mariadb";
  }
  return "Unknown";
}

// Every database, for INSTANTIATE_TEST_SUITE_P.
inline auto AllDbs() { return ::testing::Values(Db::kSqlite, Db::kPostgres, Db::kMariadb); }

// `s` percent-encoded for a query string or path segment (RFC 3986's unreserved kept).
inline std::string UrlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

// A fresh database on the binary's shared server of `db` ("" for SQLite: the app's default).
inline std::string FreshDatabaseUrl(Db db) {
  if (db == Db::kPostgres) {
    auto& pg = PostgresServer::Shared();
    return pg.url(pg.CreateDatabase());
  }
  if (db == Db::kMariadb) {
    auto& mariadb = MariadbServer::Shared();
    return mariadb.url(mariadb.CreateDatabase());
  }
  return "";
}

class ApiTest : public ::testing::TestWithParam<Db> {
 protected:
  // Override to change the app's settings before it starts.
  virtual void Configure(config::Config& c) {}

  void SetUp() override {
    config::Config c;
    c.password_hash = config::PasswordCost::kMinimal;
    // Tests sign many users up from one address; SignUpLimitTest turns the limit on.
    c.limit_signup_address = RateLimit{};
    // Tests post the same body again and again; the moderation tests turn this on.
    c.duplicate_window_s = 0;
    c.limit_new_writer = RateLimit{};  // new accounts post a lot here (moderation tests: on)
    c.bootstrap_admin = config::Credentials{"root", "rootpassword"};
    if (GetParam() != Db::kSqlite) {
      c.database = ParseDatabaseUrl(FreshDatabaseUrl(GetParam())).value();
    }
    Configure(c);
    app_ = std::make_unique<AppUnderTest>(redis_, c);
    if (redis_.cluster()) {
      peer_ = SecondInstance();
    }
  }

  // The app's, or on a cluster both instances' in turn.
  HttpClient Client() {
    if (!peer_) {
      return app_->Client();
    }
    return HttpClient("127.0.0.1", std::vector<uint16_t>{app_->port(), peer_->port()});
  }

  // Another plauditd on the same Redis and database (the first one made the admin).
  std::unique_ptr<AppUnderTest> SecondInstance() {
    config::Config c = app_->app().config();
    if (!c.database) {
      c.database = config::DefaultDatabaseUrl(c);
    }
    c.bootstrap_admin.reset();
    return std::make_unique<AppUnderTest>(redis_, c);
  }

  // Another on the same Redis and database that keeps no rendered page: the oracle the page
  // cache's tests compare with (list_cache_test.cpp, page_cache_test.cpp).
  std::unique_ptr<AppUnderTest> UncachedInstance() {
    config::Config c = app_->app().config();
    if (!c.database) {
      c.database = config::DefaultDatabaseUrl(c);
    }
    c.bootstrap_admin.reset();
    c.page_cache_mb = 0;
    return std::make_unique<AppUnderTest>(redis_, c);
  }

  // Lookups the app's page cache answered (read on its I/O thread), and its peer's.
  uint64_t CacheHits() {
    uint64_t hits = 0;
    for (AppUnderTest* a : {app_.get(), peer_.get()}) {
      if (a == nullptr) {
        continue;
      }
      std::promise<uint64_t> p;
      net::post(a->app().io(), [&] { p.set_value(a->app().page_cache().hits()); });
      hits += p.get_future().get();
    }
    return hits;
  }

  // Runs a service call on the app's I/O thread and waits for it.
  // No live-update announcement on its way to Redis (domain/live_feed.hpp).
  bool LiveFeedIdle() {
    return OnLoop([this]() -> Awaitable<bool> { co_return app_->app().live_feed().idle(); }());
  }

  template <class T>
  T OnLoop(Awaitable<T> op) {
    return net::co_spawn(app_->app().io(), std::move(op), net::use_future).get();
  }

  // The one integer `query` answers in SQL (-1, failing the test, if it cannot).
  int64_t SqlInt(std::string query, std::vector<sql::Value> params) {
    std::function<Result<int64_t>(sql::Connection&)> job =
        [query = std::move(query),
         params = std::move(params)](sql::Connection& c) -> Result<int64_t> {
      auto r = c.Query(query, params);
      if (!r) {
        return tl::unexpected(r.error());
      }
      return sql::Int(r->rows.at(0).at(0));
    };
    auto r = OnLoop(app_->app().store().Run<int64_t>(std::move(job)));
    EXPECT_TRUE(r);
    return r ? *r : -1;
  }

  int64_t SqlInt(std::string query) { return SqlInt(std::move(query), std::vector<sql::Value>{}); }
  // Runs a statement that answers no rows; the rows it changed (-1, failing the test, on error).
  int64_t SqlExec(std::string query, std::vector<sql::Value> params = {}) {
    std::function<Result<int64_t>(sql::Connection&)> job =
        [query = std::move(query),
         params = std::move(params)](sql::Connection& c) -> Result<int64_t> {
      auto r = c.Query(query, params);
      if (!r) {
        return tl::unexpected(r.error());
      }
      return static_cast<int64_t>(r->affected);
    };
    auto r = OnLoop(app_->app().store().Run<int64_t>(std::move(job)));
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : -1;
  }
  int64_t SqlInt(std::string query, int64_t id) {
    return SqlInt(std::move(query), std::vector<sql::Value>{id});
  }

  // SQL's stored view count of an article (-1 if unreadable).
  int64_t SqlViews(int64_t id) {
    return SqlInt("SELECT view_count FROM articles WHERE id = $1", id);
  }

  // What a writer that died between its commit and its Redis step leaves behind: article
  // `id` unpublished in SQL under its cache mark `mark`, the cache still saying published.
  void UnpublishInSqlUnder(int64_t id, const redis::CacheMark& mark) {
    sql::ArticleTable table(app_->app().store());
    std::function<Status(sql::ArticleRow&)> unpublish = [](sql::ArticleRow& row) -> Status {
      row.status = model::ArticleStatus::kDraft;
      return {};
    };
    const sql::CacheStamp stamp{mark.shard, mark.seq};
    auto patched = OnLoop(table.Patch(id, std::move(unpublish), stamp));
    ASSERT_TRUE(patched && *patched);
  }

  // Registers a user and returns its id (fails the test otherwise).
  int64_t Register(const std::string& name, const std::string& password = "password123") {
    auto r = Client().Post("/api/v1/users",
                           R"({"username":")" + name + R"(","password":")" + password + R"("})");
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }

  // POST /api/v1/sessions on `c`, whatever the answer.
  static HttpResponse SignIn(HttpClient& c, const std::string& name, const std::string& password) {
    return c.Post("/api/v1/sessions",
                  R"({"username":")" + name + R"(","password":")" + password + R"("})");
  }

  // Signs in `times` times on `c`, expecting `status` each time.
  static void ExpectSignIns(HttpClient& c, int times, const std::string& name,
                            const std::string& password, int status) {
    for (int i = 0; i < times; ++i) {
      EXPECT_EQ(SignIn(c, name, password).status, status) << name << " sign-in " << i + 1;
    }
  }

  // Signs in and returns the session token (fails the test otherwise).
  std::string Login(const std::string& name, const std::string& password = "password123") {
    auto c = Client();
    auto r = SignIn(c, name, password);
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? std::string(r.Json().at("token").as_string()) : std::string{};
  }

  // Registers `name`, makes it an author (as root) and returns its session token.
  std::string AuthorToken(const std::string& name) {
    const int64_t id = Register(name);
    auto r = Client().Patch("/api/v1/users/" + std::to_string(id), R"({"role":"author"})",
                            Bearer(Login("root", "rootpassword")));
    EXPECT_EQ(r.status, 200) << r.body;
    return Login(name);
  }

  // Publishes an article as the author `token` signs in; returns its id (0 on failure).
  int64_t PublishArticle(const std::string& token, const std::string& content = "c") {
    auto r = Client().Post("/api/v1/articles",
                           R"({"title":"T","content":")" + content + R"(","status":"published"})",
                           Bearer(token));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }

  TestRedis redis_;
  std::unique_ptr<AppUnderTest> app_;
  std::unique_ptr<AppUnderTest> peer_;  // on a cluster: the second instance Client() alternates to
};

// An ApiTest whose app limits failed logins to `per_user` a username and `per_address` a client
// address.
class LoginLimitsTest : public ApiTest {
 protected:
  LoginLimitsTest(RateLimit per_user, RateLimit per_address)
      : per_user_(per_user), per_address_(per_address) {}

  void Configure(config::Config& c) override {
    c.limit_login_user = per_user_;
    c.limit_login_address = per_address_;
  }

 private:
  RateLimit per_user_;
  RateLimit per_address_;
};

}  // namespace plaudit::testing
