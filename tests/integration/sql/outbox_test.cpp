// The notice outbox (migration 023, sql/outbox.hpp) on every database: a notice is
// there once however often its cause enqueues it; claims lease rows to one owner, concurrent
// claimers never share a row, a lease that passed (its worker died) makes the row due again,
// and a worker that lost its lease changes nothing.
#include "sql/outbox.hpp"

#include <gtest/gtest.h>

#include <future>
#include <set>
#include <vector>

#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

class Outbox : public MigratedStoreTest {
 protected:
  void Enqueue(const std::string& event, const std::string& recipient, int64_t now = 1000) {
    Notice n{event, "mail", recipient, "reply", "{}", 0};
    std::function<Result<bool>(Connection&)> job = [n, now](Connection& c) -> Result<bool> {
      auto st = c.Transaction([&](Connection& tx) { return OutboxTable::Enqueue(tx, n, now); });
      if (!st) {
        return tl::unexpected(st.error());
      }
      return true;
    };
    auto r = RunSync(store_->Run<bool>(std::move(job)));
    ASSERT_TRUE(r) << r.error().message;
  }
  std::vector<ClaimedNotice> Claim(OutboxTable& t, const std::string& owner, int64_t now,
                                   int limit = 100) {
    auto r = RunSync(t.Claim(owner, now, 10'000, limit));
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : std::vector<ClaimedNotice>{};
  }
};

// The longest values the code writes fit every database's columns: a mail's event id with
// 20-digit comment ids and times (outbox_fanout.cpp builds them), a webhook URL of 500
// characters (--webhook's bound), a lease owner whose host name alone is 64 characters.
TEST_P(Outbox, TheLongestIdsUrlsAndOwnersFit) {
  OutboxTable t(*store_);
  const std::string big = "18446744073709551615";
  const std::string event = "mail:article_comment:" + big + ":comment.approved:" + big + ":" + big;
  const std::string url = "https://hooks.example/" + std::string(500 - 22, 'x');
  ASSERT_EQ(url.size(), 500u);
  Enqueue(event, url);
  const std::string owner = std::string(64, 'h') + ":4194304:4294967295";
  auto claimed = Claim(t, owner, 2000);
  ASSERT_EQ(claimed.size(), 1u);
  EXPECT_EQ(claimed[0].notice.event_id, event);
  EXPECT_EQ(claimed[0].notice.recipient, url);
  EXPECT_TRUE(*RunSync(t.Retry(claimed[0].id, owner, 3000, false, std::string(2000, 'e'), 2500)));
  auto again = Claim(t, owner + "-b", 3001);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_TRUE(*RunSync(t.Delivered(again[0].id, owner + "-b", 3002)));
}

TEST_P(Outbox, ANoticeIsThereOnceAndGoesToOneOwnerUntilItsLeasePasses) {
  OutboxTable t(*store_);
  Enqueue("comment.created:1", "u:7");
  Enqueue("comment.created:1", "u:7");  // the cause retried: nothing new
  Enqueue("comment.created:1", "u:8");
  auto a = Claim(t, "worker-a", 2000);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].attempts, 1);
  EXPECT_TRUE(Claim(t, "worker-b", 3000).empty());  // leased to a until 12000
  // a delivers one and dies before the other.
  EXPECT_TRUE(*RunSync(t.Delivered(a[0].id, "worker-a", 3000)));
  auto b = Claim(t, "worker-b", 12'001);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].id, a[1].id);
  EXPECT_EQ(b[0].attempts, 2);
  // a comes back: its lease was taken over, it changes nothing.
  EXPECT_FALSE(*RunSync(t.Delivered(a[1].id, "worker-a", 12'002)));
  EXPECT_FALSE(*RunSync(t.Retry(a[1].id, "worker-a", 20'000, false, "late", 12'002)));
  EXPECT_TRUE(*RunSync(t.Delivered(b[0].id, "worker-b", 12'003)));
  EXPECT_TRUE(Claim(t, "worker-c", 100'000).empty());
  EXPECT_EQ(RunSync(t.Measure())->undelivered, 0);
}

TEST_P(Outbox, RetriesWaitTheirBackoffAndAGivenUpRowStaysWithItsReason) {
  OutboxTable t(*store_);
  Enqueue("comment.held:5", "u:1");
  auto a = Claim(t, "w", 2000);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_TRUE(*RunSync(t.Retry(a[0].id, "w", 5000, false, "smtp: connection refused", 2001)));
  EXPECT_TRUE(Claim(t, "w", 4999).empty());
  auto again = Claim(t, "w", 5000);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_TRUE(*RunSync(t.Retry(again[0].id, "w", 0, true, "smtp: 550 no such user", 5001)));
  EXPECT_TRUE(Claim(t, "w", 1'000'000).empty());
  auto kept = Query(*store_, "SELECT last_error FROM outbox WHERE failed_at IS NOT NULL");
  ASSERT_TRUE(kept);
  ASSERT_EQ(kept->rows.size(), 1u);
  EXPECT_EQ(Text(kept->rows[0][0]), "smtp: 550 no such user");
}

TEST_P(Outbox, PruneForgetsOnlyFinishedRowsOlderThanTheirCutoffs) {
  OutboxTable t(*store_);
  Enqueue("e:delivered", "u:1");
  Enqueue("e:failed", "u:1");
  Enqueue("e:waiting", "u:1");
  auto a = Claim(t, "w", 2000);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_TRUE(*RunSync(t.Delivered(a[0].id, "w", 3000)));
  EXPECT_TRUE(*RunSync(t.Retry(a[1].id, "w", 0, true, "gone", 3000)));
  EXPECT_TRUE(*RunSync(t.Retry(a[2].id, "w", 9000, false, "later", 3000)));
  // Cutoffs before the rows finished: nothing goes.
  EXPECT_EQ(*RunSync(t.Prune(3000, 3000, 0)), 0);
  // The delivered one's cutoff passed, not the given-up one's.
  EXPECT_EQ(*RunSync(t.Prune(3001, 3000, 0)), 1);
  EXPECT_EQ(*RunSync(t.Prune(3001, 3001, 0)), 1);
  // The one still to be retried stays whatever the cutoffs.
  EXPECT_EQ(*RunSync(t.Prune(INT64_MAX, INT64_MAX, 0)), 0);
  EXPECT_EQ(RunSync(t.Measure())->undelivered, 1);
}

TEST_P(Outbox, ConcurrentClaimersNeverShareARow) {
  for (int i = 0; i < 200; ++i) {
    Enqueue("e:" + std::to_string(i), "u:1");
  }
  std::vector<std::future<std::vector<int64_t>>> workers;
  for (int w = 0; w < 4; ++w) {
    workers.push_back(std::async(std::launch::async, [this, w] {
      auto store = OpenStore();
      OutboxTable t(*store);
      std::vector<int64_t> mine;
      for (int errors = 0; errors < 50;) {
        auto got = RunSync(t.Claim("w" + std::to_string(w), 2000, 60'000, 7));
        if (!got) {
          ++errors;  // a busy database: try again
          continue;
        }
        if (got->empty()) {
          break;
        }
        for (const auto& n : *got) {
          mine.push_back(n.id);
        }
      }
      return mine;
    }));
  }
  std::multiset<int64_t> all;
  for (auto& f : workers) {
    for (int64_t id : f.get()) {
      all.insert(id);
    }
  }
  EXPECT_EQ(all.size(), 200u);
  EXPECT_EQ(std::set<int64_t>(all.begin(), all.end()).size(), 200u);  // none twice
}

INSTANTIATE_TEST_SUITE_P(Databases, Outbox, AllDialects(), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
