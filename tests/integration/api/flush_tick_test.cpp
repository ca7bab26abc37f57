// Issue 47: an idle plauditd's periodic flush pass (Flusher::Tick) reads what this process
// wrote since the last pass and a slice of the other shards, not all 256 every second (it
// sent ~2,300 Redis commands a second doing nothing). What must still hold: the likes this
// process took reach SQL at its next pass, and what another process left (likes it never
// flushed, a cache mark its writer died with) within one sweep of every shard. Each pass is
// triggered here directly; the timer is off.
#include "likes_fixture.hpp"

namespace plaudit::testing {
namespace {

constexpr int kShards = 256;
// Passes that sweep every shard once (Flusher::kSweepShards a pass).
constexpr int kSweepPasses = kShards / flush::Flusher::kSweepShards;

class FlushTickTest : public LikesNoTimerTest {
 protected:
  void SetUp() override {
    LikesNoTimerTest::SetUp();
    FullPass();  // the connection checked: the passes below are the light ones
  }

  void FullPass() {
    auto r = OnLoop(app_->app().flusher().FlushNow());
    ASSERT_TRUE(r) << r.error().message;
  }
  void Tick() {
    auto r = OnLoop(app_->app().flusher().Tick());
    ASSERT_TRUE(r) << r.error().message;
  }

  // Every command Redis ran, inside scripts too (what `make bench` counts for idle cost).
  int64_t RedisCommands() {
    const std::string stats = redis_.Cli("INFO stats");
    const std::string field = "total_commands_processed:";
    const auto at = stats.find(field);
    return at == std::string::npos ? -1 : std::stoll(stats.substr(at + field.size()));
  }

  static std::string ArticlePath(int64_t id) { return "/api/v1/articles/" + std::to_string(id); }
  static model::Target Article(int64_t id) { return model::Target::Article(id); }

  // Half a sweep: the slice read next is far from the first articles' shards (ids 1, 2, …).
  void SweepHalfway() {
    for (int i = 0; i < kSweepPasses / 2; ++i) {
      Tick();
    }
  }
};

TEST_P(FlushTickTest, AnIdlePassSendsAFewCommandsWhereAFullOneSweepsEveryShard) {
  PL_COUNTS_ONE_INSTANCE();
  const int64_t before_full = RedisCommands();
  FullPass();
  const int64_t full = RedisCommands() - before_full - 1;  // the INFO call itself
  constexpr int kPasses = 10;
  const int64_t before = RedisCommands();
  for (int i = 0; i < kPasses; ++i) {
    Tick();
  }
  const double per_pass = static_cast<double>(RedisCommands() - before - 1) / kPasses;
  // The sweep's 4 shards (3 backlog reads and a mark read each) and the views' check and
  // claim (8 with the commands inside their scripts): 24.
  EXPECT_LE(per_pass, 30) << "an idle pass is to cost what its slice of the sweep costs";
  EXPECT_GE(static_cast<double>(full), 20 * per_pass)
      << "a full pass reads every shard: " << full << " commands";
}

TEST_P(FlushTickTest, TheNextPassWritesEveryLikeThisProcessTook) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i) {  // six shards (consecutive ids)
    ids.push_back(NewArticle("liked " + std::to_string(i)));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    for (int64_t uid = 1; uid <= static_cast<int64_t>(i) + 1; ++uid) {
      SetLike(ids[i], uid, true);
    }
  }
  SetLike(ids[0], 1, false);
  Tick();
  for (size_t i = 0; i < ids.size(); ++i) {
    const int64_t want = i == 0 ? 0 : static_cast<int64_t>(i) + 1;
    EXPECT_EQ(SqlLikes(ids[i]), (std::pair<int64_t, int64_t>{want, want})) << "article " << ids[i];
  }
}

// Likes another process took and never flushed (it died): this one's touched set does not
// name their shard, and the sweep must reach it.
TEST_P(FlushTickTest, LikesAnotherProcessLeftReachSqlWithinOneSweep) {
  const int64_t id = NewArticle();
  SweepHalfway();
  for (int64_t uid = 1; uid <= 3; ++uid) {
    SetLike(id, uid, true);
  }
  app_->app().like_store().TakeTouched();  // as if taken by another process
  int passes = 0;
  while (SqlLikes(id).first != 3 && passes < kSweepPasses + 1) {
    Tick();
    ++passes;
  }
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{3, 3}))
      << "not written after " << passes << " passes";
  EXPECT_GT(passes, 1) << "written by a pass that was not to read its shard yet";
}

// A writer of another process that died between its commit and its Redis step leaves its
// mark in a shard this process never marked: the sweep finds it, and the pass after the one
// that found it settled repairs the article from SQL (flush::RedisCheck::RepairMark).
TEST_P(FlushTickTest, AMarkADeadWriterLeftIsRepairedWithinOneSweep) {
  const int64_t id = NewArticle("the writer dies");
  auto c = Client();
  ASSERT_EQ(c.Get(ArticlePath(id)).status, 200);  // cached, published
  SweepHalfway();
  redis::CacheMarks other_process(app_->app().redis());
  auto mark = OnLoop(other_process.Mark(redis::CacheTarget::OfArticle(id)));
  ASSERT_TRUE(mark && *mark);
  UnpublishInSqlUnder(id, **mark);
  // ... and the writer dies here.
  int passes = 0;
  while (c.Get(ArticlePath(id)).status == 200 && passes < kSweepPasses + 2) {
    Tick();
    ++passes;
  }
  EXPECT_EQ(c.Get(ArticlePath(id)).status, 404)
      << "the dead writer's unpublish not repaired after " << passes << " passes";
  EXPECT_EQ(redis_.Cli("ZCARD " + redis::keys::CacheMarks((*mark)->shard)), "0");
  EXPECT_GT(passes, 1) << "repaired by a pass that was not to read its shard yet";
}

// A shard the pass claims in is checked first: one Redis holds older than SQL under the same
// connection (its seq set back, as reloading an older file would leave it) is recovered (its
// counts dropped, to reload from SQL), and the pass goes on as a full one, since the shards it
// did not check are older too: here another article's shard, untouched since.
TEST_P(FlushTickTest, AShardFoundOlderByAPassMakesItCheckEveryShard) {
  PL_NEEDS_ONE_REDIS();
  const int64_t id = NewArticle();
  const int64_t other = NewArticle("untouched since");
  SetLike(id, 1, true);
  SetLike(other, 1, true);
  Tick();
  ASSERT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{1, 1}));
  ASSERT_EQ(SqlLikes(other), (std::pair<int64_t, int64_t>{1, 1}));
  EXPECT_EQ(SetLike(id, 2, true).count, 2);  // pending: the next pass claims in this shard
  // The older dataset: both shards' seqs back, and its counts of both articles.
  for (const int64_t a : {id, other}) {
    const int shard = redis::keys::LikeShard(a);
    ASSERT_EQ(redis_.Cli("SET " + redis::keys::LikeSeq(shard) + " 2"), "OK");
    const std::string count = redis::keys::LikeCount(shard, redis::TargetName(Article(a)));
    ASSERT_EQ(redis_.Cli("SET " + count + " 7"), "OK");
  }
  Tick();
  EXPECT_TRUE(app_->app().redis_check().LikesChecked()) << "the pass went on as a full one";
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{2, 2}));
  EXPECT_EQ(SetLike(id, 3, true).count, 3) << "the older count of the claimed shard was kept";
  EXPECT_EQ(SetLike(other, 2, true).count, 2) << "the older count of the other shard was kept";
  Tick();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{3, 3}));
  EXPECT_EQ(SqlLikes(other), (std::pair<int64_t, int64_t>{2, 2}));
}

// A pass whose flush failed after it read the shard (SQL away, a crash between commit and
// done): the next pass reads that shard again, though nothing was liked in it since.
TEST_P(FlushTickTest, AShardWhoseFlushFailedIsReadAgainByTheNextPass) {
  const int64_t id = NewArticle();
  SetLike(id, 1, true);
  app_->app().flush_faults().like_after_commit = [] { return true; };
  auto failed = OnLoop(app_->app().flusher().Tick());
  app_->app().flush_faults().like_after_commit = nullptr;
  ASSERT_FALSE(failed) << "the fault did not stop the pass";
  Tick();
  EXPECT_EQ(SqlLikes(id), (std::pair<int64_t, int64_t>{1, 1}));
  EXPECT_EQ(redis_.Cli("ZCARD " + redis::keys::LikeDirty(redis::keys::LikeShard(id))), "0");
  EXPECT_EQ(redis_.Cli("SCARD " + redis::keys::LikeInFlightSet(redis::keys::LikeShard(id))), "0");
}

// A FLUSHALL keeps the connection, so no new-connection check runs: the pulse (an INCR every
// pass) comes back lower, and the next pass checks every shard, which sets the emptied
// dataset's birth marks back (what tells it from an older one if it is restored later).
TEST_P(FlushTickTest, AFlushAllIsNoticedByTheNextPass) {
  PL_NEEDS_ONE_REDIS();
  Tick();
  Tick();
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  const std::string birth = redis::keys::LikeBirthMark(200);  // a shard nothing here used
  ASSERT_EQ(redis_.Cli("EXISTS " + birth), "0");
  Tick();
  EXPECT_EQ(redis_.Cli("EXISTS " + birth), "1") << "the pass after the FLUSHALL checked no shard";
  EXPECT_TRUE(app_->app().redis_check().LikesChecked());
}

INSTANTIATE_TEST_SUITE_P(Databases, FlushTickTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
