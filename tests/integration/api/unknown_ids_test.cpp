// Issue 41, item 5: GET /api/v1/likes with unknown comment ids cost ten times a batch of known
// ones (each id a trip to SQL and several to Redis); issue 47: unknown article ids 4.67 times.
// Unknown ids now cost SQL at most once per shard change (store/unknown_ids.hpp), and never a
// wrong answer: an id SQL holds but Redis does not, and the id of a comment or an article
// created after it was asked for, answer their likes.
#include <sstream>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

class UnknownIdsTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.rate_limits = false;
    c.flush_interval_ms = 3'600'000;  // no background pass: SQL calls are the requests' own
  }

  // SQL calls the app made so far (the call-duration histogram's count in /metrics).
  int64_t SqlCalls() {
    auto r = app_->Client().Get("/metrics");
    EXPECT_EQ(r.status, 200);
    std::istringstream lines(r.body);
    std::string line;
    const std::string name = "plaudit_sql_call_duration_seconds_count";
    while (std::getline(lines, line)) {
      if (line.rfind(name, 0) == 0) {
        return std::stoll(line.substr(line.rfind(' ') + 1));
      }
    }
    ADD_FAILURE() << "no " << name << " in /metrics";
    return -1;
  }

  static std::string Join(const std::vector<int64_t>& ids) {
    std::string out;
    for (int64_t id : ids) {
      out += (out.empty() ? "" : ",") + std::to_string(id);
    }
    return out;
  }

  // The batch's answers about `kind` ("comment" or "article") as (liked, likeCount), in the
  // order of `ids`, asked as `token`'s user (anonymous without).
  std::vector<std::pair<bool, int64_t>> Batch(const std::vector<int64_t>& ids,
                                              const std::string& kind = "comment",
                                              const std::string& token = "") {
    auto r = app_->Client().Get("/api/v1/likes?" + kind + "=" + Join(ids),
                                token.empty() ? HttpClient::Headers{} : Bearer(token));
    EXPECT_EQ(r.status, 200) << r.body;
    std::vector<std::pair<bool, int64_t>> out;
    if (r.status != 200) {
      return out;
    }
    const boost::json::value json = r.Json();
    const auto& answers = json.at(kind).as_object();
    for (int64_t id : ids) {
      const auto& s = answers.at(std::to_string(id));
      out.emplace_back(s.at("liked").as_bool(), s.at("likeCount").as_int64());
    }
    return out;
  }

  int64_t NewComment(const std::string& token, int64_t article) {
    auto r = app_->Client().Post("/api/v1/articles/" + std::to_string(article) + "/comments",
                                 R"({"body":"hi"})", Bearer(token));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }
};

TEST_P(UnknownIdsTest, UnknownCommentIdsCostNoSqlOnceKnownAndNeverHideARealComment) {
  PL_COUNTS_ONE_INSTANCE();
  const std::string root = Login("root", "rootpassword");
  const int64_t article = PublishArticle(root);
  ASSERT_NE(article, 0);
  const int64_t first = NewComment(root, article);
  const int64_t second = NewComment(root, article);
  ASSERT_EQ(app_->Client()
                .Put("/api/v1/comments/" + std::to_string(second) + "/like", "", Bearer(root))
                .status,
            200);

  // Holes below the highest id (a comment id is seq·256 + its article's shard, so the other
  // 255 ids of a seq name nothing) and ids far above it.
  std::vector<int64_t> unknown;
  for (int64_t k = 1; k <= 40; ++k) {
    unknown.push_back(first + k);
  }
  for (int64_t k = 0; k < 40; ++k) {
    unknown.push_back(second * 1000 + k * 256);
  }
  std::vector<int64_t> ids = unknown;
  ids.push_back(first);
  ids.push_back(second);

  auto expect_answers = [&](const std::vector<std::pair<bool, int64_t>>& got) {
    ASSERT_EQ(got.size(), ids.size());
    for (size_t i = 0; i < unknown.size(); ++i) {
      EXPECT_EQ(got[i], std::make_pair(false, int64_t{0})) << "id " << ids[i];
    }
    EXPECT_EQ(got[unknown.size()], std::make_pair(false, int64_t{0}));
    EXPECT_EQ(got[unknown.size() + 1], std::make_pair(false, int64_t{1}));
  };
  expect_answers(Batch(ids));  // the holes are asked of SQL once, in one query
  const int64_t before = SqlCalls();
  for (int round = 0; round < 5; ++round) {
    expect_answers(Batch(ids));
  }
  // Before the fix: two SQL calls per unknown id and request (800 here).
  EXPECT_EQ(SqlCalls() - before, 0);

  // A write in a hole's shard moves that shard's seq: the hole is asked of SQL again, once.
  // (first + 1 is in the shard of article + 1: a comment's low byte is its article's shard.)
  auto b = app_->Client().Post("/api/v1/articles",
                               R"({"title":"U","content":"c","status":"published"})", Bearer(root));
  ASSERT_EQ(b.status, 201) << b.body;
  ASSERT_EQ(b.Json().at("id").as_int64(), article + 1);
  const int64_t after_write = SqlCalls();
  expect_answers(Batch(ids));
  EXPECT_EQ(SqlCalls() - after_write, 1);
  expect_answers(Batch(ids));
  EXPECT_EQ(SqlCalls() - after_write, 1);

  // The id the next comment will take, asked for before it exists, then liked once it does.
  const std::string seq = redis_.Cli("GET " + std::string(redis::keys::kCommentSeq));
  const int64_t next =
      (std::stoll(seq) + 1) * redis::keys::kLikeShards + redis::keys::LikeShard(article);
  ASSERT_EQ(Batch({next}), (std::vector<std::pair<bool, int64_t>>{{false, 0}}));
  ASSERT_EQ(NewComment(root, article), next);
  ASSERT_EQ(app_->Client()
                .Put("/api/v1/comments/" + std::to_string(next) + "/like", "", Bearer(root))
                .status,
            200);
  EXPECT_EQ(Batch({next}), (std::vector<std::pair<bool, int64_t>>{{false, 1}}));
}

TEST_P(UnknownIdsTest, ACommentSqlHasButRedisLostStillAnswersItsLikes) {
  PL_NEEDS_ONE_REDIS();
  const std::string root = Login("root", "rootpassword");
  const int64_t article = PublishArticle(root);
  ASSERT_NE(article, 0);
  const int64_t id = NewComment(root, article);
  ASSERT_EQ(app_->Client()
                .Put("/api/v1/comments/" + std::to_string(id) + "/like", "", Bearer(root))
                .status,
            200);
  // The like reaches SQL, then Redis forgets everything (invariant 3).
  auto checked = OnLoop(app_->app().redis_check().Check());
  ASSERT_TRUE(checked && *checked);
  ASSERT_TRUE(OnLoop(app_->app().like_flush().Flush(app_->app().redis_check().Generation())));
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  // Holes around it, then it: unknown ones answer zero, it answers its like.
  const std::vector<int64_t> ids{id + 1, id + 2, id};
  const std::vector<std::pair<bool, int64_t>> want{{false, 0}, {false, 0}, {false, 1}};
  EXPECT_EQ(Batch(ids), want);
  EXPECT_EQ(Batch(ids), want);
}

TEST_P(UnknownIdsTest, UnknownArticleIdsCostNoSqlOnceKnownAndNeverHideARealArticle) {
  PL_COUNTS_ONE_INSTANCE();
  const std::string root = Login("root", "rootpassword");
  const int64_t article = PublishArticle(root);
  ASSERT_NE(article, 0);
  ASSERT_EQ(app_->Client()
                .Put("/api/v1/articles/" + std::to_string(article) + "/like", "", Bearer(root))
                .status,
            200);
  // A hole below the highest id (a deleted article) and ids far above it; the liked article,
  // and a draft (not in the published index: its cached access fields answer).
  const int64_t gone = PublishArticle(root);
  ASSERT_EQ(app_->Client().Delete("/api/v1/articles/" + std::to_string(gone), Bearer(root)).status,
            204);
  auto d = app_->Client().Post("/api/v1/articles", R"({"title":"D","content":"c"})", Bearer(root));
  ASSERT_EQ(d.status, 201) << d.body;
  const int64_t draft = d.Json().at("id").as_int64();
  std::vector<int64_t> unknown{gone};
  for (int64_t k = 0; k < 40; ++k) {
    unknown.push_back(draft + 1000 + k * 7);
  }
  std::vector<int64_t> ids = unknown;
  ids.push_back(article);
  ids.push_back(draft);
  auto expect_answers = [&](const std::vector<std::pair<bool, int64_t>>& got) {
    ASSERT_EQ(got.size(), ids.size());
    for (size_t i = 0; i < unknown.size(); ++i) {
      EXPECT_EQ(got[i], std::make_pair(false, int64_t{0})) << "id " << ids[i];
    }
    EXPECT_EQ(got[unknown.size()], std::make_pair(true, int64_t{1}));
    EXPECT_EQ(got[unknown.size() + 1], std::make_pair(false, int64_t{0}));
  };
  expect_answers(Batch(ids, "article", root));  // the hole is asked of SQL once
  const int64_t before = SqlCalls();
  for (int round = 0; round < 5; ++round) {
    expect_answers(Batch(ids, "article", root));
  }
  // Before the fix: a query per unknown id and request (205 here).
  EXPECT_EQ(SqlCalls() - before, 0);

  // The id the next article will take, asked for before it exists (as its author, since a
  // draft is in no index), then liked once it does.
  const int64_t next = std::stoll(redis_.Cli("GET " + std::string(redis::keys::kArticleSeq))) + 1;
  ASSERT_EQ(Batch({next}, "article", root), (std::vector<std::pair<bool, int64_t>>{{false, 0}}));
  auto n = app_->Client().Post("/api/v1/articles", R"({"title":"N","content":"c"})", Bearer(root));
  ASSERT_EQ(n.status, 201) << n.body;
  ASSERT_EQ(n.Json().at("id").as_int64(), next);
  ASSERT_EQ(app_->Client()
                .Put("/api/v1/articles/" + std::to_string(next) + "/like", "", Bearer(root))
                .status,
            200);
  EXPECT_EQ(Batch({next}, "article", root), (std::vector<std::pair<bool, int64_t>>{{true, 1}}));
  // Anonymous, the draft is as unknown as the hole.
  EXPECT_EQ(Batch({next, gone}, "article"),
            (std::vector<std::pair<bool, int64_t>>{{false, 0}, {false, 0}}));
}

TEST_P(UnknownIdsTest, AnArticleSqlHasButRedisLostStillAnswersItsLikes) {
  PL_NEEDS_ONE_REDIS();
  const std::string root = Login("root", "rootpassword");
  const int64_t article = PublishArticle(root);
  ASSERT_NE(article, 0);
  ASSERT_EQ(app_->Client()
                .Put("/api/v1/articles/" + std::to_string(article) + "/like", "", Bearer(root))
                .status,
            200);
  auto checked = OnLoop(app_->app().redis_check().Check());
  ASSERT_TRUE(checked && *checked);
  ASSERT_TRUE(OnLoop(app_->app().like_flush().Flush(app_->app().redis_check().Generation())));
  // Redis forgets everything, the sequence too: no frontier, SQL is asked.
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  const std::vector<int64_t> ids{article + 1, article + 2, article};
  const std::vector<std::pair<bool, int64_t>> want{{false, 0}, {false, 0}, {false, 1}};
  EXPECT_EQ(Batch(ids, "article"), want);
  EXPECT_EQ(Batch(ids, "article"), want);
}

INSTANTIATE_TEST_SUITE_P(Databases, UnknownIdsTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
