// The database going away under a running plauditd (issue 50), over real HTTP on a database
// server of the test's own: comment writes answer 503 `unavailable` at once and leave nothing
// behind, likes go on from Redis and reach SQL with the first flush after the database is
// back, /readyz names the database, and nothing needs a restart. SQLite on a full disk is the
// embedded twin: writes 503, nothing half-applied, and writes work again once space is free.
#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "app/app.hpp"
#include "domain/user_directory.hpp"
#include "likes_fixture.hpp"
#include "sql/users.hpp"
#include "support/mariadb_server.hpp"
#include "support/postgres_server.hpp"
#include "support/run_sync.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kPromptly = 3s;  // a refused write comes back within this, never a hang

std::string CommentsPath(int64_t article) {
  return "/api/v1/articles/" + std::to_string(article) + "/comments";
}

// A comment write; the answer and how long it took.
std::pair<HttpResponse, Clock::duration> TimedComment(HttpClient& c, int64_t article,
                                                      const std::string& body,
                                                      const std::string& token) {
  const auto start = Clock::now();
  auto r = c.Post(CommentsPath(article), R"({"body":")" + body + R"("})", Bearer(token));
  return {std::move(r), Clock::now() - start};
}

// The app of LikesNoTimerTest (flushes only when the test asks) on a PostgreSQL or MariaDB
// server started for this test alone, so stopping it touches no other test.
class DatabaseDownTest : public LikesNoTimerTest {
 protected:
  void Configure(config::Config& c) override {
    LikesNoTimerTest::Configure(c);
    std::string url;
    if (GetParam() == Db::kPostgres) {
      pg_ = std::make_unique<PostgresServer>();
      url = pg_->url(pg_->CreateDatabase());
    } else {
      mariadb_ = std::make_unique<MariadbServer>();
      url = mariadb_->url(mariadb_->CreateDatabase());
    }
    c.database = ParseDatabaseUrl(url).value();
  }

  void StopDatabase() {
    if (pg_) {
      pg_->Stop();
    } else {
      mariadb_->Stop();
    }
  }
  void StartDatabase() {
    if (pg_) {
      pg_->Start();
    } else {
      mariadb_->Start();
    }
  }

  Result<flush::FlushReport> Flush() { return OnLoop(app_->app().flusher().FlushNow()); }

  std::unique_ptr<PostgresServer> pg_;
  std::unique_ptr<MariadbServer> mariadb_;
};

TEST_P(DatabaseDownTest, CommentWritesAre503AtOnceWhileLikesGoOnAndReachSqlWhenItIsBack) {
  const int64_t article = NewArticle();
  const std::vector<std::string> fans = NewUsers("fan", 3);
  auto c = Client();
  auto before = TimedComment(c, article, "before the outage", fans[0]);
  ASSERT_EQ(before.first.status, 201) << before.first.body;
  const int64_t comment = before.first.Json().at("id").as_int64();
  // Sessions and the article are in Redis now, as on any busy site, and fans[1] has read the
  // comment's like state (its page is open). A like state Redis never held (a target nobody
  // read since Redis started) is counted from SQL's rows, never guessed: 503 in an outage.
  ASSERT_EQ(c.Put(LikePath(article), "", Bearer(fans[0])).status, 200);
  const std::string comment_like_path = "/api/v1/comments/" + std::to_string(comment) + "/like";
  ASSERT_EQ(c.Get(comment_like_path, Bearer(fans[1])).status, 200);
  // Each reader has been reading, on every instance when there are two (a cluster run: the
  // client alternates): each instance knows their accounts. One that never read an account
  // since it started answers that account 503 until SQL is back.
  for (const std::string& fan : fans) {
    for (int i = 0; i < 2; ++i) {
      ASSERT_EQ(c.Get(LikePath(article), Bearer(fan)).status, 200);
    }
  }
  ASSERT_TRUE(Flush());

  StopDatabase();
  auto ready = c.Get("/readyz");
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_EQ(ready.ErrorCode(), "unavailable") << ready.body;
  EXPECT_EQ(ready.Json().at("database").as_string(), "unavailable") << ready.body;
  EXPECT_EQ(ready.Json().at("redis").as_string(), "ok") << ready.body;

  for (int i = 0; i < 3; ++i) {
    auto [r, took] = TimedComment(c, article, "during the outage " + std::to_string(i), fans[1]);
    EXPECT_EQ(r.status, 503) << r.body;
    EXPECT_EQ(r.ErrorCode(), "unavailable") << r.body;
    EXPECT_LT(took, kPromptly) << "comment write " << i;
  }
  auto reply =
      c.Post(CommentsPath(article),
             R"({"body":"a reply during the outage","parentId":)" + std::to_string(comment) + "}",
             Bearer(fans[2]));
  EXPECT_EQ(reply.status, 503) << reply.body;

  // Likes are Redis's: they are acknowledged now and wait for SQL.
  for (size_t i = 1; i < fans.size(); ++i) {
    auto r = c.Put(LikePath(article), "", Bearer(fans[i]));
    EXPECT_EQ(r.status, 200) << r.body;
  }
  auto unliked = c.Delete(LikePath(article), Bearer(fans[0]));
  EXPECT_EQ(unliked.status, 200) << unliked.body;
  EXPECT_EQ(c.Get(LikePath(article)).body, R"({"liked":false,"likeCount":2})");
  auto comment_like = c.Put(comment_like_path, "", Bearer(fans[1]));
  EXPECT_EQ(comment_like.status, 200) << comment_like.body;
  // A flush pass in the outage fails and keeps every change for the next one.
  auto failed = Flush();
  EXPECT_FALSE(failed);

  StartDatabase();
  // The store tries the server again at most every 200 ms (kReconnectBackoff): the next
  // pass after that writes everything the outage held.
  ASSERT_TRUE(WaitFor([&] { return Flush().has_value(); }, 10s));
  EXPECT_EQ(SqlLikes(article), (std::pair<int64_t, int64_t>{2, 2}));
  EXPECT_EQ(SqlInt("SELECT like_count FROM comments WHERE id = $1", comment), 1);
  // Nothing of the refused writes was kept: the one comment made before the outage.
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE article_id = $1", article), 1);
  EXPECT_EQ(SqlInt("SELECT comment_count FROM articles WHERE id = $1", article), 1);
  auto listed = c.Get(CommentsPath(article)).Json();
  EXPECT_EQ(listed.at("items").as_array().size(), 1U);

  // Back without a restart.
  EXPECT_TRUE(WaitFor([&] { return c.Get("/readyz").status == 200; }, 10s));
  auto after = TimedComment(c, article, "after the outage", fans[1]);
  EXPECT_EQ(after.first.status, 201) << after.first.body;
  EXPECT_EQ(c.Get(CommentsPath(article)).Json().at("items").as_array().size(), 2U);
}

// A Redis restored from an older snapshot while the database is away: a signed-in request
// waits for SQL after the reconnect (the session check), likes too; once SQL is back, the
// check recovers the shard from SQL and the like made after the snapshot is there. (Likes
// also wait for a check that could not read SQL when the sessions can be read: the test
// LikesNoTimerTest.ALikeOnAConnectionWhoseCheckCouldNotReadSql….)
TEST_P(DatabaseDownTest, ARedisBackOlderWhileTheDatabaseIsAwayTakesNoLikesUntilChecked) {
  PL_NEEDS_ONE_REDIS();
  const int64_t article = NewArticle();
  const std::vector<std::string> fans = NewUsers("fan", 2);
  auto c = Client();
  for (const std::string& fan : fans) {
    ASSERT_EQ(c.Get(LikePath(article), Bearer(fan)).status, 200);  // accounts known here
  }
  const std::string snapshot = redis_.SaveSnapshot();
  ASSERT_EQ(c.Put(LikePath(article), "", Bearer(fans[0])).status, 200);
  ASSERT_TRUE(Flush());  // in SQL, stamped above everything the snapshot holds

  StopDatabase();
  redis_.RestartFrom(snapshot);
  ASSERT_TRUE(WaitFor(
      [&] {
        auto ready = c.Get("/readyz");
        return ready.body.find(R"("redis":"ok")") != std::string::npos;
      },
      10s));
  auto unlike = c.Delete(LikePath(article), Bearer(fans[0]));
  EXPECT_EQ(unlike.status, 503) << unlike.body;
  EXPECT_EQ(unlike.ErrorCode(), "unavailable") << unlike.body;
  auto like = c.Put(LikePath(article), "", Bearer(fans[1]));
  EXPECT_EQ(like.status, 503) << like.body;

  StartDatabase();
  HttpResponse state;
  ASSERT_TRUE(WaitFor(
      [&] {
        state = c.Get(LikePath(article), Bearer(fans[0]));
        return state.status == 200;
      },
      10s))
      << state.body;
  EXPECT_EQ(state.body, R"({"liked":true,"likeCount":1})") << "the like made before is back";
  auto again = c.Delete(LikePath(article), Bearer(fans[0]));
  ASSERT_EQ(again.status, 200) << again.body;
  ASSERT_TRUE(WaitFor([&] { return Flush().has_value(); }, 10s));
  EXPECT_EQ(SqlLikes(article), (std::pair<int64_t, int64_t>{0, 0}));
}

// The published lists' index, lost from Redis during the outage, is rebuilt from SQL by the
// first read after the database is back: a rebuild that failed halfway (SQL away after it took
// the rebuild lock) gives the lock back, not answering 503 to every list read until its 30 s
// lease ends (the sql-restart fault found this).
TEST_P(DatabaseDownTest, AListRebuildThatFailedInTheOutageLeavesNoLockBehind) {
  const int64_t article = NewArticle("listed");
  auto c = Client();
  ASSERT_EQ(c.Get("/api/v1/articles").status, 200);
  StopDatabase();
  for (std::string_view list : {"all", "article", "post"}) {
    redis_.Cli("DEL " + redis::keys::PublishedList(list));
  }
  // A page no one asked for yet: the kept pages of the list are not the index.
  const std::string page = "/api/v1/articles?size=7";
  auto during = c.Get(page);
  EXPECT_EQ(during.status, 503) << during.body;
  StartDatabase();
  // Within the store's reconnect backoff, far below the lock's lease.
  HttpResponse after;
  EXPECT_TRUE(WaitFor(
      [&] {
        after = c.Get(page);
        return after.status == 200;
      },
      5s))
      << after.body;
  ASSERT_EQ(after.status, 200);
  const auto items = after.Json().at("items").as_array();
  ASSERT_EQ(items.size(), 1U);
  EXPECT_EQ(items[0].at("id").as_int64(), article);
}

INSTANTIATE_TEST_SUITE_P(Databases, DatabaseDownTest,
                         ::testing::Values(Db::kPostgres, Db::kMariadb), DbName);

// The user directory alone (the role and standing of a session's user, read from SQL, kept a
// minute): an entry past its age answers while SQL is unreachable, and only then; never one a
// Forget dropped, nor one kept while the invalidation channel was down.
TEST(UserDirectoryOutage, AnAgedEntryAnswersOnlyWhileSqlIsAwayAndNeverAfterAForget) {
  PostgresServer pg;
  auto store = sql::Store::Open(
      {.url = ParseDatabaseUrl(pg.url(pg.CreateDatabase())).value(), .pool_size = 1});
  ASSERT_TRUE(store) << store.error().message;
  ASSERT_TRUE((*store)->Migrate());
  sql::UserTable users(**store);
  std::vector<int64_t> ids;
  for (const char* name : {"kept", "forgotten", "unseen"}) {
    sql::UserRow row;
    row.username = row.username_key = row.display_name = name;
    row.password_hash = "x";
    row.role = "user";
    row.created_at_ms = 1;
    auto made = RunSync(users.Insert(row));
    ASSERT_TRUE(made) << made.error().message;
    ids.push_back(made->id);
  }
  domain::UserDirectory directory(users, 100, /*max_age=*/std::chrono::milliseconds(0));
  directory.SetLive(true);
  for (int64_t id : {ids[0], ids[1]}) {
    auto fresh = RunSync(directory.Lookup(id));
    ASSERT_TRUE(fresh && *fresh) << (fresh ? "no user" : fresh.error().message);
    EXPECT_EQ(directory.FindCached(id), nullptr) << "an entry past its age is not served as fresh";
  }
  const int loads = directory.loads();
  auto again = RunSync(directory.Lookup(ids[0]));
  ASSERT_TRUE(again && *again);
  EXPECT_EQ(directory.loads(), loads + 1) << "past its age, SQL is asked again";

  pg.Stop();
  directory.Forget(ids[1]);
  auto kept = RunSync(directory.Lookup(ids[0]));
  ASSERT_TRUE(kept) << kept.error().message;
  ASSERT_TRUE(*kept);
  EXPECT_EQ((*kept)->username, "kept");
  for (int64_t id : {ids[1], ids[2]}) {
    auto refused = RunSync(directory.Lookup(id));
    ASSERT_FALSE(refused) << "user " << id;
    EXPECT_EQ(refused.error().code, ErrorCode::kUnavailable);
  }
  directory.SetLive(false);  // the channel dropped: messages may have been missed
  directory.SetLive(true);
  auto after_gap = RunSync(directory.Lookup(ids[0]));
  ASSERT_FALSE(after_gap);
  EXPECT_EQ(after_gap.error().code, ErrorCode::kUnavailable);
  pg.Start();
}

// ---------------------------------------------------------------------------------------
// SQLite on a full disk: its file on a small tmpfs of the test's own (mounting needs root, as
// CI and `make test` run here; elsewhere the test says it was skipped and why).

constexpr size_t kDiskBytes = 8 << 20;

class SmallDisk {
 public:
  SmallDisk() {
    path_ = dir_.path() / "disk";
    std::filesystem::create_directories(path_);
    const std::string options = "size=" + std::to_string(kDiskBytes);
    if (::mount("tmpfs", path_.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      error_ = std::string("mount tmpfs: ") + std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~SmallDisk() {
    if (mounted_) {
      ::umount2(path_.c_str(), MNT_DETACH);
    }
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  std::filesystem::path path() const { return path_; }

  // Fills what is left with a file of its own; false when the disk never reported ENOSPC.
  bool Fill() {
    const auto filler = path_ / "filler";
    const int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) {
      return false;
    }
    std::vector<char> block(4096, 'x');
    bool full = false;
    for (size_t written = 0; written <= kDiskBytes && !full;) {
      const ssize_t n = ::write(fd, block.data(), block.size());
      if (n < 0) {
        full = errno == ENOSPC;
        break;
      }
      written += static_cast<size_t>(n);
    }
    ::close(fd);
    return full;
  }
  void Free() { std::filesystem::remove(path_ / "filler"); }

 private:
  TempDir dir_{"plaudit-disk"};
  std::filesystem::path path_;
  bool mounted_ = false;
  std::string error_;
};

class DiskFullTest : public LikesNoTimerTest {
 protected:
  void SetUp() override {
    if (!disk_.mounted()) {
      GTEST_SKIP() << "needs a tmpfs of its own: " << disk_.error();
    }
    LikesNoTimerTest::SetUp();
  }
  void Configure(config::Config& c) override {
    LikesNoTimerTest::Configure(c);
    c.database = ParseDatabaseUrl("sqlite://" + (disk_.path() / "plaudit.db").string()).value();
  }

  SmallDisk disk_;
};

TEST_P(DiskFullTest, WritesAre503NothingIsHalfAppliedAndFreedSpaceNeedsNoRestart) {
  const int64_t article = NewArticle();
  const std::vector<std::string> fans = NewUsers("fan", 2);
  auto c = Client();
  auto first = TimedComment(c, article, "before the disk filled", fans[0]);
  ASSERT_EQ(first.first.status, 201) << first.first.body;
  ASSERT_EQ(c.Put(LikePath(article), "", Bearer(fans[0])).status, 200);
  ASSERT_TRUE(OnLoop(app_->app().flusher().FlushNow()));

  ASSERT_TRUE(disk_.Fill());
  // Long enough that no page of it fits in what SQLite's files still hold.
  const std::string long_body(3000, 'w');
  int refused = 0;
  for (int i = 0; i < 20; ++i) {
    auto [r, took] = TimedComment(c, article, long_body + std::to_string(i), fans[1]);
    EXPECT_TRUE(r.status == 503 || r.status == 201) << r.status << " " << r.body;
    EXPECT_LT(took, kPromptly) << "comment write " << i;
    if (r.status == 503) {
      EXPECT_EQ(r.ErrorCode(), "unavailable") << r.body;
      ++refused;
    }
  }
  EXPECT_GT(refused, 0) << "the disk filled, yet every comment write was accepted";
  std::printf("[disk] %d of 20 comment writes refused on the full disk\n", refused);
  auto liked = c.Put(LikePath(article), "", Bearer(fans[1]));
  EXPECT_EQ(liked.status, 200) << liked.body;
  EXPECT_FALSE(OnLoop(app_->app().flusher().FlushNow())) << "a flush pass with no disk left";

  disk_.Free();
  ASSERT_TRUE(OnLoop(app_->app().flusher().FlushNow()));
  // Every acknowledged comment and like is in SQL, counts equal their rows, nothing else.
  const int64_t accepted = 1 + 20 - refused;
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE article_id = $1", article), accepted);
  EXPECT_EQ(SqlInt("SELECT comment_count FROM articles WHERE id = $1", article), accepted);
  EXPECT_EQ(SqlLikes(article), (std::pair<int64_t, int64_t>{2, 2}));
  EXPECT_EQ(c.Get(CommentsPath(article) + "?size=50").Json().at("items").as_array().size(),
            static_cast<size_t>(accepted));
  auto after = TimedComment(c, article, "after space was freed", fans[1]);
  EXPECT_EQ(after.first.status, 201) << after.first.body;
}

INSTANTIATE_TEST_SUITE_P(Databases, DiskFullTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
