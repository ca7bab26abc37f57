// plaudit_meta's setter (sql::SetMeta, sql/dialect.hpp) when two processes set one key at
// once, as two `plauditd flush` runs do with comment_html_through at start-up: the second
// waits for the first and then sets its value; neither fails on the key. (A delete and an
// insert failed the second on PostgreSQL with a duplicate key: its delete found no row to
// wait for, or one the first had deleted, and its insert met the first's committed row.)
#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <string>

#include "sql/dialect.hpp"
#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

class Meta : public MigratedStoreTest {
 protected:
  // Sets `key` to "first" in a transaction that holds it until `b` (another store's
  // SetMeta(key, "second")) waits behind it, then commits; both must succeed, "second" last.
  void SetTogether(const std::string& key) {
    auto other = OpenStore(1);
    auto probe = OpenStore(1);
    ASSERT_TRUE(other && probe);
    std::promise<void> a_wrote;
    std::promise<void> a_may_commit;
    auto a_may_commit_f = a_may_commit.get_future().share();
    auto a = std::async(std::launch::async, [&]() -> Result<bool> {
      std::function<Result<bool>(Connection&)> job = [&](Connection& c) -> Result<bool> {
        PL_CHECK(c.Transaction([&](Connection& tx) -> Status {
          PL_CHECK(SetMeta(tx, key, "first"));
          a_wrote.set_value();
          a_may_commit_f.wait();
          return {};
        }));
        return true;
      };
      return RunSync(store_->Run<bool>(std::move(job)));
    });
    a_wrote.get_future().wait();
    auto b = std::async(std::launch::async, [&]() -> Result<bool> {
      std::function<Result<bool>(Connection&)> job = [&](Connection& c) -> Result<bool> {
        PL_CHECK(SetMeta(c, key, "second"));
        return true;
      };
      return RunSync(other->Run<bool>(std::move(job)));
    });
    ExpectWaitsForLock(*probe, b);
    a_may_commit.set_value();
    auto a_done = a.get();
    EXPECT_TRUE(a_done) << a_done.error().message;
    auto b_done = b.get();
    EXPECT_TRUE(b_done) << b_done.error().message;
    auto value = Query(*store_, "SELECT value FROM plaudit_meta WHERE \"key\" = $1", {key});
    ASSERT_TRUE(value) << value.error().message;
    ASSERT_EQ(value->rows.size(), 1u);
    EXPECT_EQ(Text(value->rows[0][0]), "second");
  }
};

TEST_P(Meta, TwoSettingAKeyNotThereYetBothSucceed) { SetTogether("comment_html_through"); }

TEST_P(Meta, TwoSettingAKeyThatIsThereBothSucceed) {
  auto there = Query(*store_, "INSERT INTO plaudit_meta (\"key\", value) VALUES ('k', 'old')");
  ASSERT_TRUE(there) << there.error().message;
  SetTogether("k");
}

INSTANTIATE_TEST_SUITE_P(Dialects, Meta, AllDialects(), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
