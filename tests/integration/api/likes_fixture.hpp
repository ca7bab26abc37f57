#pragma once
// The fixture of the like tests (likes_test.cpp, write_behind_test.cpp): an app on both
// databases with rate limits off, a poster, and helpers that act through the services
// directly (a like by any user id, a flush, SQL's view of an article's likes).
#include "api_test_base.hpp"
#include "redis/keys.hpp"

namespace plaudit::testing {

class LikesTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override { c.rate_limits = false; }

  void SetUp() override {
    ApiTest::SetUp();
    Register("poster");
    poster_ = Login("poster");
  }

  int64_t NewArticle(const std::string& title = "liked thing") {
    auto r = Client().Post("/api/v1/articles",
                           R"({"title":")" + title + R"(","content":"c","status":"published"})",
                           Bearer(poster_));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.Json().at("id").as_int64();
  }

  // Registers users `prefix`0 … `prefix`<n-1> and returns their session tokens in that order.
  std::vector<std::string> NewUsers(const std::string& prefix, int n) {
    std::vector<std::string> tokens;
    for (int u = 0; u < n; ++u) {
      Register(prefix + std::to_string(u));
      tokens.push_back(Login(prefix + std::to_string(u)));
    }
    return tokens;
  }

  static std::string LikePath(int64_t id) {
    return "/api/v1/articles/" + std::to_string(id) + "/like";
  }

  // A like or unlike of article `target` by user `uid` through the service (no session).
  domain::LikeState SetLike(int64_t target, int64_t uid, bool like) {
    domain::Principal who{uid, "u", "u", domain::Role::kUser};
    const model::Target t = model::Target::Article(target);
    auto r = OnLoop(app_->app().likes().Set(who, t, like));
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : domain::LikeState{};
  }

  // How many times Redis ran `command` (INFO commandstats, inside scripts too).
  int64_t RedisCalls(const std::string& command) {
    const std::string stats = redis_.Cli("INFO commandstats");
    const std::string field = "cmdstat_" + command + ":calls=";
    auto at = stats.find(field);
    if (at == std::string::npos) {
      return 0;
    }
    return static_cast<int64_t>(std::stoll(stats.substr(at + field.size())));
  }

  // The likes part of a flush pass: the check of Redis against SQL, then every shard.
  Result<flush::LikeFlushReport> TryFlushLikes() {
    auto checked = OnLoop(app_->app().redis_check().Check());
    if (!checked) {
      return tl::unexpected(checked.error());
    }
    EXPECT_TRUE(*checked && app_->app().redis_check().LikesChecked());
    return OnLoop(app_->app().like_flush().Flush(app_->app().redis_check().Generation()));
  }
  flush::LikeFlushReport FlushLikes() {
    auto r = TryFlushLikes();
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    return r ? *r : flush::LikeFlushReport{};
  }

  // SQL's view: (valid rows, stored like_count) of an article.
  std::pair<int64_t, int64_t> SqlLikes(int64_t article) {
    std::function<Result<std::pair<int64_t, int64_t>>(sql::Connection&)> job =
        [article](sql::Connection& c) -> Result<std::pair<int64_t, int64_t>> {
      auto rows = c.Query(
          "SELECT COUNT(*) FROM likes WHERE target_type = 'a' AND target_id = $1 AND valid = 1",
          {article});
      if (!rows) {
        return tl::unexpected(rows.error());
      }
      auto count = c.Query("SELECT like_count FROM articles WHERE id = $1", {article});
      if (!count) {
        return tl::unexpected(count.error());
      }
      return std::pair{sql::Int(rows->rows[0][0]), sql::Int(count->rows[0][0])};
    };
    auto r = OnLoop(app_->app().store().Run<std::pair<int64_t, int64_t>>(std::move(job)));
    EXPECT_TRUE(r);
    return r ? *r : std::pair<int64_t, int64_t>{-1, -1};
  }

  void FlushAllRedisAndRelogin() {
    ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
    poster_ = Login("poster");
  }

  std::string poster_;
};

// Only explicit flushes: the periodic pass could claim a pending hash between two changes.
class LikesNoTimerTest : public LikesTest {
 protected:
  void Configure(config::Config& c) override {
    LikesTest::Configure(c);
    c.flush_interval_ms = 3'600'000;
  }
};

}  // namespace plaudit::testing
