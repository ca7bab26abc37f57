// API.md "Comments" over real HTTP, Redis and SQLite/PostgreSQL: two-level threads, the three
// orders, offset and cursor paging, edit and delete rules with exact counts, comment likes
// moving the hot order, the cache rebuilt from SQL after FLUSHALL (once, identically for
// concurrent readers), a write whose Redis step fails, and the round-trip bound of a page.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <future>
#include <set>
#include <thread>

#include "api_test_base.hpp"
#include "redis/keys.hpp"

namespace plaudit::testing {
namespace {

class CommentsTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.rate_limits = false;
    // The tests flush when they need to (FlushNow). A periodic pass would send its own Redis
    // commands into the windows the round-trip tests count: on a loaded box a pass took part
    // of all three reads of APageCostsAFixedNumberOfRedisRoundTripsWhateverItsSize (3 and 2).
    c.flush_interval_ms = 3'600'000;
  }

  void SetUp() override {
    ApiTest::SetUp();
    alice_id_ = Register("alice");
    bob_id_ = Register("bob");
    alice_ = Login("alice");
    bob_ = Login("bob");
    root_ = Login("root", "rootpassword");
    article_ = NewArticle(R"("status":"published")");
  }

  int64_t NewArticle(const std::string& extra) {
    auto r = Client().Post("/api/v1/articles", R"({"title":"t","content":"c",)" + extra + "}",
                           Bearer(alice_));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }

  static std::string CommentsPath(int64_t article) {
    return "/api/v1/articles/" + std::to_string(article) + "/comments";
  }
  static std::string CommentPath(int64_t id) { return "/api/v1/comments/" + std::to_string(id); }

  HttpResponse PostComment(const std::string& token, const std::string& json, int64_t article = 0) {
    return Client().Post(CommentsPath(article ? article : article_), json, Bearer(token));
  }

  int64_t Comment(const std::string& token, const std::string& body,
                  std::optional<int64_t> parent = std::nullopt) {
    std::string json = R"({"body":")" + body + "\"";
    if (parent) {
      json += R"(,"parentId":)" + std::to_string(*parent);
    }
    auto r = PostComment(token, json + "}");
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }

  boost::json::object List(const std::string& query, const std::string& token = "") {
    auto r = Client().Get(CommentsPath(article_) + query,
                          token.empty() ? HttpClient::Headers{} : Bearer(token));
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? r.Json().as_object() : boost::json::object{};
  }

  static std::vector<int64_t> Ids(const boost::json::object& page) {
    std::vector<int64_t> out;
    const auto& items = page.at("items").as_array();
    for (const auto& item : items) {
      out.push_back(item.at("id").as_int64());
    }
    return out;
  }

  int64_t ArticleCommentCount(int64_t article = 0) {
    auto r = Client().Get("/api/v1/articles/" + std::to_string(article ? article : article_));
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? r.Json().at("commentCount").as_int64() : -1;
  }

  // The Redis client's write batches so far (read on the event loop that owns it).
  uint64_t RedisBatches() {
    std::promise<uint64_t> p;
    net::post(app_->app().io(), [&] { p.set_value(app_->app().redis().stats().batches_flushed); });
    return p.get_future().get();
  }
  // The commands it has sent so far.
  uint64_t RedisCommands() {
    std::promise<uint64_t> p;
    net::post(app_->app().io(), [&] { p.set_value(app_->app().redis().stats().commands_sent); });
    return p.get_future().get();
  }

  int64_t alice_id_ = 0, bob_id_ = 0;
  std::string alice_, bob_, root_;
  int64_t article_ = 0;
};

TEST_P(CommentsTest, TopLevelRepliesAndReplyToAReply) {
  auto r = PostComment(bob_, R"({"body":"  first!  "})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto top = r.Json().as_object();
  const int64_t top_id = top.at("id").as_int64();
  EXPECT_EQ(top.at("articleId").as_int64(), article_);
  EXPECT_TRUE(top.at("parentId").is_null());
  EXPECT_TRUE(top.at("replyTo").is_null());
  EXPECT_EQ(top.at("body").as_string(), "first!");  // trimmed
  EXPECT_EQ(top.at("author").at("username").as_string(), "bob");
  EXPECT_EQ(top.at("likeCount").as_int64(), 0);
  EXPECT_EQ(top.at("replyCount").as_int64(), 0);
  EXPECT_FALSE(top.at("liked").as_bool());
  EXPECT_FALSE(top.at("deleted").as_bool());
  EXPECT_EQ(top.at("createdAt").as_string().size(), 24u);

  // A reply to the top-level comment naming whom it answers.
  r = PostComment(alice_, R"({"body":"reply","parentId":)" + std::to_string(top_id) +
                              R"(,"replyToUserId":)" + std::to_string(bob_id_) + "}");
  ASSERT_EQ(r.status, 201) << r.body;
  const int64_t reply_id = r.Json().at("id").as_int64();
  EXPECT_EQ(r.Json().at("parentId").as_int64(), top_id);
  EXPECT_EQ(r.Json().at("replyTo").at("username").as_string(), "bob");

  // A reply to that reply goes under the same top-level comment and answers its author.
  r = PostComment(bob_, R"({"body":"reply to reply","parentId":)" + std::to_string(reply_id) + "}");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json().at("parentId").as_int64(), top_id);
  EXPECT_EQ(r.Json().at("replyTo").at("id").as_int64(), alice_id_);

  auto page = List("");
  ASSERT_EQ(page.at("items").as_array().size(), 1u);
  const auto& item = page.at("items").as_array()[0];
  EXPECT_EQ(item.at("id").as_int64(), top_id);
  EXPECT_EQ(item.at("replyCount").as_int64(), 2);
  ASSERT_EQ(item.at("replies").as_array().size(), 2u);
  EXPECT_EQ(item.at("replies").as_array()[0].at("id").as_int64(), reply_id);  // oldest first
  EXPECT_EQ(page.at("total").as_int64(), 1);
  EXPECT_EQ(ArticleCommentCount(), 3);

  auto got = Client().Get(CommentPath(reply_id));
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(got.Json().at("body").as_string(), "reply");
}

TEST_P(CommentsTest, BodiesArePlainTextReturnedAsGiven) {
  const std::string body = R"(<script>alert(\"x\")</script> & <b>bold</b> 你好)";
  auto r = PostComment(bob_, R"({"body":")" + body + R"("})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json().at("body").as_string(), "<script>alert(\"x\")</script> & <b>bold</b> 你好");
  auto got = Client().Get(CommentPath(r.Json().at("id").as_int64()));
  EXPECT_EQ(got.Json().at("body").as_string(), r.Json().at("body").as_string());
}

TEST_P(CommentsTest, BadInputIsRefusedAndChangesNothing) {
  const int64_t other_article = NewArticle(R"("status":"published")");
  const int64_t foreign = Comment(bob_, "on the other article");
  (void)foreign;
  // Move that comment's article: create it on the other article instead.
  auto fr = PostComment(bob_, R"({"body":"elsewhere"})", other_article);
  ASSERT_EQ(fr.status, 201);
  const int64_t elsewhere = fr.Json().at("id").as_int64();
  const int64_t before = ArticleCommentCount();
  const int64_t total_before = List("").at("total").as_int64();

  EXPECT_EQ(PostComment(bob_, R"({"body":"   "})").status, 400);
  EXPECT_EQ(PostComment(bob_, R"({"body":""})").status, 400);
  EXPECT_EQ(PostComment(bob_, R"({"body":")" + std::string(10001, 'x') + R"("})").status, 400);
  EXPECT_EQ(PostComment(bob_, R"({"body":")" + std::string(10000, 'x') + R"("})").status, 201);
  EXPECT_EQ(PostComment(bob_, R"({"body":"x","parentId":999999999})").status, 400);
  EXPECT_EQ(
      PostComment(bob_, R"({"body":"x","parentId":)" + std::to_string(elsewhere) + "}").status,
      400);
  EXPECT_EQ(PostComment(bob_, R"({"body":"x","replyToUserId":999999})").status, 400);
  EXPECT_EQ(PostComment(bob_, R"({"body":"x","authorId":1})").status, 400);
  EXPECT_EQ(PostComment(bob_, R"({"body":12})").status, 400);
  EXPECT_EQ(PostComment(bob_, R"({"body":"a\u0000b"})").status, 400);
  EXPECT_EQ(Client().Post(CommentsPath(article_), R"({"body":"anon"})").status, 401);
  EXPECT_EQ(PostComment(bob_, R"({"body":"x"})", 987654321).status, 404);
  // Closed and unpublished articles refuse comments.
  const int64_t closed = NewArticle(R"("status":"published","allowComments":false)");
  EXPECT_EQ(PostComment(bob_, R"({"body":"x"})", closed).status, 403);
  const int64_t draft = NewArticle(R"("status":"draft")");
  EXPECT_EQ(PostComment(alice_, R"({"body":"x"})", draft).status, 403);
  EXPECT_EQ(PostComment(bob_, R"({"body":"x"})", draft).status, 404);  // bob cannot see it
  EXPECT_EQ(Client().Get(CommentsPath(article_) + "?sort=top").status, 400);
  EXPECT_EQ(Client().Get(CommentsPath(article_) + "?replies=21").status, 400);
  EXPECT_EQ(Client().Get(CommentsPath(article_) + "?cursor=bogus").status, 400);

  EXPECT_EQ(ArticleCommentCount(), before + 1);  // only the 10,000-character one
  EXPECT_EQ(List("").at("total").as_int64(), total_before + 1);
  EXPECT_EQ(ArticleCommentCount(closed), 0);
}

TEST_P(CommentsTest, ThousandCommentsPageByOffsetAndCursorExactlyOnceInOrder) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 1000; ++i) {
    ids.push_back(Comment(bob_, "c" + std::to_string(i)));
  }
  const std::vector<int64_t> newest_first(ids.rbegin(), ids.rend());

  std::vector<int64_t> by_offset;
  for (int page = 1; page <= 10; ++page) {
    auto p = List("?sort=new&size=100&replies=0&page=" + std::to_string(page));
    EXPECT_EQ(p.at("total").as_int64(), 1000);
    auto got = Ids(p);
    by_offset.insert(by_offset.end(), got.begin(), got.end());
  }
  EXPECT_EQ(by_offset, newest_first);

  // Cursor walk while new comments keep arriving: it still yields each original once.
  std::vector<int64_t> by_cursor;
  std::string query = "?sort=new&size=70&replies=0";
  for (int guard = 0; guard < 50; ++guard) {
    auto p = List(query);
    auto got = Ids(p);
    by_cursor.insert(by_cursor.end(), got.begin(), got.end());
    Comment(alice_, "arrives mid-walk");
    if (p.at("nextCursor").is_null()) {
      break;
    }
    EXPECT_TRUE(p.at("page").is_null() || query.find("cursor") == std::string::npos);
    query = "?sort=new&size=70&replies=0&cursor=" + std::string(p.at("nextCursor").as_string());
  }
  EXPECT_EQ(by_cursor, newest_first);

  // Oldest first by cursor as well.
  std::vector<int64_t> oldest;
  query = "?sort=old&size=100&replies=0";
  for (int guard = 0; guard < 50; ++guard) {
    auto p = List(query);
    auto got = Ids(p);
    oldest.insert(oldest.end(), got.begin(), got.end());
    if (p.at("nextCursor").is_null()) {
      break;
    }
    query = "?sort=old&size=100&replies=0&cursor=" + std::string(p.at("nextCursor").as_string());
  }
  ASSERT_GE(oldest.size(), 1000u);
  EXPECT_EQ(std::vector<int64_t>(oldest.begin(), oldest.begin() + 1000), ids);
  EXPECT_EQ(std::set<int64_t>(oldest.begin(), oldest.end()).size(), oldest.size());
}

TEST_P(CommentsTest, HotOrderFollowsLikesAndUnlikesAtOnce) {
  const int64_t a = Comment(bob_, "a");
  const int64_t b = Comment(bob_, "b");
  const int64_t c = Comment(bob_, "c");
  // All at zero likes: newest first.
  EXPECT_EQ(Ids(List("?sort=hot")), (std::vector<int64_t>{c, b, a}));
  auto like = [&](const std::string& token, int64_t id, bool on) {
    auto r = on ? Client().Put(CommentPath(id) + "/like", "", Bearer(token))
                : Client().Delete(CommentPath(id) + "/like", Bearer(token));
    EXPECT_EQ(r.status, 200) << r.body;
    return r.Json().at("likeCount").as_int64();
  };
  EXPECT_EQ(like(alice_, a, true), 1);
  EXPECT_EQ(like(alice_, a, true), 1);  // twice: still one
  EXPECT_EQ(Ids(List("?sort=hot")), (std::vector<int64_t>{a, c, b}));
  EXPECT_EQ(like(bob_, b, true), 1);
  EXPECT_EQ(like(alice_, b, true), 2);
  EXPECT_EQ(Ids(List("?sort=hot")), (std::vector<int64_t>{b, a, c}));
  EXPECT_EQ(like(alice_, b, false), 1);  // b and a tie at 1: newer (b) first
  EXPECT_EQ(Ids(List("?sort=hot")), (std::vector<int64_t>{b, a, c}));
  EXPECT_EQ(like(bob_, b, false), 0);
  EXPECT_EQ(like(bob_, b, false), 0);
  EXPECT_EQ(Ids(List("?sort=hot")), (std::vector<int64_t>{a, c, b}));

  auto page = List("?sort=hot", alice_);
  EXPECT_TRUE(page.at("items").as_array()[0].at("liked").as_bool());
  EXPECT_EQ(page.at("items").as_array()[0].at("likeCount").as_int64(), 1);
  auto batch = Client().Get(
      "/api/v1/likes?comment=" + std::to_string(a) + "," + std::to_string(b) + ",999999999",
      Bearer(alice_));
  ASSERT_EQ(batch.status, 200) << batch.body;
  EXPECT_TRUE(batch.Json().at("comment").at(std::to_string(a)).at("liked").as_bool());
  EXPECT_EQ(batch.Json().at("comment").at(std::to_string(b)).at("likeCount").as_int64(), 0);
  EXPECT_EQ(batch.Json().at("comment").at("999999999").at("likeCount").as_int64(), 0);

  // Replies have their own hot order.
  const int64_t r1 = Comment(bob_, "r1", a);
  const int64_t r2 = Comment(bob_, "r2", a);
  like(alice_, r1, true);
  auto rp = Client().Get(CommentPath(a) + "/replies?sort=hot");
  ASSERT_EQ(rp.status, 200) << rp.body;
  EXPECT_EQ(Ids(rp.Json().as_object()), (std::vector<int64_t>{r1, r2}));

  // The flusher writes comment likes and counts to SQL.
  auto flushed = OnLoop(app_->app().flusher().FlushNow());
  ASSERT_TRUE(flushed);
  EXPECT_EQ(SqlInt("SELECT like_count FROM comments WHERE id = $1", a), 1);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM likes WHERE target_type = 'c' AND target_id = $1 AND "
                   "valid = 1",
                   r1),
            1);
  // After FLUSHALL the counts come back from SQL and a repeat like does not double.
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  alice_ = Login("alice");
  EXPECT_EQ(like(alice_, a, true), 1);
  EXPECT_EQ(Ids(List("?sort=hot&replies=0")).front(), a);
}

TEST_P(CommentsTest, InlineRepliesAndReplyPages) {
  const int64_t top = Comment(bob_, "top");
  std::vector<int64_t> replies;
  for (int i = 0; i < 7; ++i) {
    replies.push_back(Comment(alice_, "r" + std::to_string(i), top));
  }
  auto page = List("?replies=2");
  const auto& item = page.at("items").as_array()[0];
  EXPECT_EQ(item.at("replyCount").as_int64(), 7);
  ASSERT_EQ(item.at("replies").as_array().size(), 2u);
  EXPECT_EQ(item.at("replies").as_array()[1].at("id").as_int64(), replies[1]);
  EXPECT_TRUE(List("?replies=0").at("items").as_array()[0].at("replies").as_array().empty());

  std::vector<int64_t> walked;
  std::string query = "?size=3";
  for (int guard = 0; guard < 10; ++guard) {
    auto r = Client().Get(CommentPath(top) + "/replies" + query);
    ASSERT_EQ(r.status, 200) << r.body;
    auto p = r.Json().as_object();
    EXPECT_EQ(p.at("total").as_int64(), 7);
    auto got = Ids(p);
    walked.insert(walked.end(), got.begin(), got.end());
    if (p.at("nextCursor").is_null()) {
      break;
    }
    query = "?size=3&cursor=" + std::string(p.at("nextCursor").as_string());
  }
  EXPECT_EQ(walked, replies);  // default order: oldest first
  auto newest = Client().Get(CommentPath(top) + "/replies?sort=new&page=2&size=5");
  EXPECT_EQ(Ids(newest.Json().as_object()), (std::vector<int64_t>{replies[1], replies[0]}));
}

TEST_P(CommentsTest, EditRules) {
  const int64_t id = Comment(bob_, "original");
  auto r = Client().Patch(CommentPath(id), R"({"body":"edited"})", Bearer(bob_));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json().at("body").as_string(), "edited");
  EXPECT_EQ(Client().Patch(CommentPath(id), R"({"body":"nope"})", Bearer(alice_)).status, 403);
  EXPECT_EQ(Client().Patch(CommentPath(id), R"({"body":"nope"})").status, 401);
  EXPECT_EQ(Client().Patch(CommentPath(id), R"({"body":" "})", Bearer(bob_)).status, 400);
  EXPECT_EQ(Client().Patch(CommentPath(id), R"({"body":"x","parentId":1})", Bearer(bob_)).status,
            400);
  EXPECT_EQ(Client().Patch(CommentPath(999999999), R"({"body":"x"})", Bearer(bob_)).status, 404);
  r = Client().Patch(CommentPath(id), R"({"body":"by admin"})", Bearer(root_));
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Client().Get(CommentPath(id)).Json().at("body").as_string(), "by admin");
  EXPECT_EQ(Ids(List("")).size(), 1u);
}

class CommentsNoEditWindowTest : public CommentsTest {
 protected:
  void Configure(config::Config& c) override {
    CommentsTest::Configure(c);
    c.comment_edit_window_s = 0;
  }
};

TEST_P(CommentsNoEditWindowTest, AuthorCannotEditAfterTheWindowButAdminCan) {
  const int64_t id = Comment(bob_, "original");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past a window of 0 s
  auto r = Client().Patch(CommentPath(id), R"({"body":"late"})", Bearer(bob_));
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(Client().Patch(CommentPath(id), R"({"body":"admin"})", Bearer(root_)).status, 200);
  EXPECT_EQ(Client().Delete(CommentPath(id), Bearer(bob_)).status, 204);  // deleting is not timed
}

TEST_P(CommentsTest, DeleteLeavesPlaceholdersOnlyWhileRepliesRemainAndCountsStayExact) {
  const int64_t lonely = Comment(bob_, "lonely");
  const int64_t top = Comment(bob_, "top");
  const int64_t r1 = Comment(alice_, "r1", top);
  const int64_t r2 = Comment(alice_, "r2", top);
  EXPECT_EQ(ArticleCommentCount(), 4);

  EXPECT_EQ(Client().Delete(CommentPath(lonely), Bearer(alice_)).status, 403);
  EXPECT_EQ(Client().Delete(CommentPath(lonely), Bearer(bob_)).status, 204);
  EXPECT_EQ(Client().Delete(CommentPath(lonely), Bearer(bob_)).status, 404);
  EXPECT_EQ(Client().Get(CommentPath(lonely)).status, 404);
  EXPECT_EQ(Ids(List("")), (std::vector<int64_t>{top}));
  EXPECT_EQ(ArticleCommentCount(), 3);

  EXPECT_EQ(Client().Delete(CommentPath(top), Bearer(root_)).status, 204);  // admin
  auto page = List("");
  ASSERT_EQ(Ids(page), (std::vector<int64_t>{top}));
  const auto& placeholder = page.at("items").as_array()[0];
  EXPECT_TRUE(placeholder.at("deleted").as_bool());
  EXPECT_EQ(placeholder.at("body").as_string(), "");
  EXPECT_EQ(placeholder.at("replyCount").as_int64(), 2);
  EXPECT_EQ(placeholder.at("replies").as_array().size(), 2u);
  EXPECT_EQ(ArticleCommentCount(), 2);
  EXPECT_EQ(Client().Put(CommentPath(top) + "/like", "", Bearer(alice_)).status, 404);
  EXPECT_EQ(Client().Patch(CommentPath(top), R"({"body":"back"})", Bearer(bob_)).status, 404);

  EXPECT_EQ(Client().Delete(CommentPath(r1), Bearer(alice_)).status, 204);
  page = List("");
  EXPECT_EQ(page.at("items").as_array()[0].at("replyCount").as_int64(), 1);
  EXPECT_EQ(Client().Delete(CommentPath(r2), Bearer(alice_)).status, 204);
  EXPECT_TRUE(Ids(List("")).empty());  // the placeholder goes with its last reply
  EXPECT_EQ(List("").at("total").as_int64(), 0);
  EXPECT_EQ(ArticleCommentCount(), 0);
  EXPECT_EQ(SqlInt("SELECT comment_count FROM articles WHERE id = $1", article_), 0);
  EXPECT_EQ(SqlInt("SELECT reply_count FROM comments WHERE id = $1", top), 0);
}

TEST_P(CommentsTest, FlushAllThenConcurrentReadsRebuildOnceWithIdenticalPages) {
  const int64_t top = Comment(bob_, "top");
  for (int i = 0; i < 30; ++i) {
    Comment(alice_, "c" + std::to_string(i));
  }
  for (int i = 0; i < 5; ++i) {
    Comment(alice_, "r" + std::to_string(i), top);
  }
  Client().Put(CommentPath(top) + "/like", "", Bearer(alice_));
  ASSERT_TRUE(OnLoop(app_->app().flusher().FlushNow()));  // FLUSHALL loses what is unflushed
  const std::string query = "?sort=hot&size=10&replies=3";
  const std::string expected = Client().Get(CommentsPath(article_) + query).body;
  ASSERT_NE(expected.find(R"("likeCount":1,"replyCount":5)"), std::string::npos) << expected;

  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  const int rebuilds_before = app_->app().comments().rebuilds();
  std::vector<std::string> bodies(20);
  std::vector<int> statuses(20);
  std::vector<std::thread> readers;
  for (int i = 0; i < 20; ++i) {
    readers.emplace_back([&, i] {
      auto r = app_->Client().Get(CommentsPath(article_) + query);
      statuses[i] = r.status;
      bodies[i] = r.body;
    });
  }
  for (auto& t : readers) {
    t.join();
  }
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(statuses[i], 200) << bodies[i];
    EXPECT_TRUE(bodies[i] == expected) << "reader " << i << ":\n" << bodies[i].substr(0, 400);
  }
  EXPECT_EQ(app_->app().comments().rebuilds() - rebuilds_before, 1);
  EXPECT_EQ(ArticleCommentCount(), 36);
}

TEST_P(CommentsTest, APageCostsAFixedNumberOfRedisRoundTripsWhateverItsSize) {
  std::vector<int64_t> tops;
  for (int i = 0; i < 20; ++i) {
    tops.push_back(Comment(bob_, "top" + std::to_string(i)));
    for (int j = 0; j < 3; ++j) {
      Comment(alice_, "r", tops.back());
    }
  }
  auto client = Client();
  // The fewest of 3 reads: the counters are the whole client's, and a flusher pass that lands
  // inside one read's window only ever adds to them (seen on a loaded box and under ASan).
  auto batches_for = [&](const std::string& query) {
    client.Get(CommentsPath(article_) + query, Bearer(alice_));  // warm: every load done
    uint64_t fewest = UINT64_MAX;
    for (int k = 0; k < 3; ++k) {
      const uint64_t before = RedisBatches();
      auto r = client.Get(CommentsPath(article_) + query, Bearer(alice_));
      EXPECT_EQ(r.status, 200);
      fewest = std::min(fewest, RedisBatches() - before);
    }
    return fewest;
  };
  const uint64_t small = batches_for("?size=1&replies=3");
  const uint64_t large = batches_for("?size=20&replies=3");
  // Session; article check with the index page; comments with their reply ids; replies with
  // every like state.
  EXPECT_LE(large, 4u);
  EXPECT_EQ(small, large);
  EXPECT_EQ(Ids(List("?size=20&replies=3")).size(), 20u);

  // Commands sent by `app` for the fewest of 3 reads of `query` (after a warming read).
  auto commands_for = [&](AppUnderTest& app, const std::string& query, bool signed_in) {
    auto c = app.Client();
    const std::string path = CommentsPath(article_) + query;
    auto read = [&] { return signed_in ? c.Get(path, Bearer(alice_)) : c.Get(path); };
    read();  // warm
    uint64_t fewest = UINT64_MAX;
    for (int k = 0; k < 3; ++k) {
      std::promise<uint64_t> before;
      net::post(app.app().io(), [&] { before.set_value(app.app().redis().stats().commands_sent); });
      const uint64_t at = before.get_future().get();
      EXPECT_EQ(read().status, 200);
      std::promise<uint64_t> after;
      net::post(app.app().io(), [&] { after.set_value(app.app().redis().stats().commands_sent); });
      fewest = std::min(fewest, after.get_future().get() - at);
    }
    return fewest;
  };
  // A page already rendered at its thread's version comes from the page cache: the article's
  // access fields and the thread's version, two HMGETs whatever its size; signed in, plus the
  // reader's like states (render/comment_pages.cpp).
  EXPECT_LE(commands_for(*app_, "?size=20&replies=3", false), 2u);
  EXPECT_EQ(commands_for(*app_, "?size=1&replies=3", false),
            commands_for(*app_, "?size=20&replies=3", false));
  // Rendering (the first read after a change; always, with the page cache off) grows only with
  // the comments read, signed in or not: per top-level comment an HMGET and its reply-id
  // ZRANGE, an HMGET per inline reply (5 per comment here); the like states stay one command
  // for the whole page. (A script once read them all in one call, but cost Redis ~3x the CPU
  // of these plain commands; see docs/architecture.md.)
  config::Config off = app_->app().config();
  if (!off.database) {
    off.database = config::DefaultDatabaseUrl(off);
  }
  off.bootstrap_admin.reset();
  off.page_cache_mb = 0;
  AppUnderTest renderer(redis_, off);
  for (bool signed_in : {true, false}) {
    const uint64_t one = commands_for(renderer, "?size=1&replies=3", signed_in);
    const uint64_t twenty = commands_for(renderer, "?size=20&replies=3", signed_in);
    EXPECT_LE(one, 8u + 5u) << (signed_in ? "signed in" : "anonymous");
    EXPECT_EQ(twenty - one, 19u * 5u) << (signed_in ? "signed in" : "anonymous");
  }
}

TEST_P(CommentsTest, ACommittedCommentSurvivesAFailedRedisStep) {
  Comment(bob_, "before");
  List("");  // the cache is live
  std::atomic<bool> fail{true};
  app_->app().write_faults().comment_reflect_fails = [&] { return fail.load(); };
  auto r = PostComment(bob_, R"({"body":"committed while Redis failed"})");
  ASSERT_EQ(r.status, 201) << r.body;
  const int64_t id = r.Json().at("id").as_int64();
  fail = false;
  auto page = List("");
  EXPECT_EQ(Ids(page).front(), id);
  EXPECT_EQ(page.at("total").as_int64(), 2);
  EXPECT_EQ(ArticleCommentCount(), 2);
  app_->app().write_faults().comment_reflect_fails = nullptr;
}

TEST_P(CommentsTest, DeletingTheArticleTakesItsCommentsAlong) {
  const int64_t id = Comment(bob_, "soon gone");
  Client().Put(CommentPath(id) + "/like", "", Bearer(alice_));
  ASSERT_TRUE(OnLoop(app_->app().flusher().FlushNow()));
  ASSERT_EQ(Client().Delete("/api/v1/articles/" + std::to_string(article_), Bearer(alice_)).status,
            204);
  EXPECT_EQ(Client().Get(CommentPath(id)).status, 404);
  EXPECT_EQ(Client().Get(CommentsPath(article_)).status, 404);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE article_id = $1", article_), 0);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM likes WHERE target_type = 'c' AND target_id = $1", id), 0);
}

// Issue 25, item 6 (PostgreSQL): a comment insert racing its article's delete. The insert's
// transaction has counted itself on the article's row and holds it; the delete used to remove
// the article's comments first (not seeing the uncommitted one), then wait for that row, and
// the comment outlived its article. The delete now takes the article's row first, so it waits,
// then sees the comment and deletes it too. (SQLite serializes the two whole transactions.)
TEST_P(CommentsTest, ACommentInsertRacingItsArticlesDeleteNeverOutlivesIt) {
  const int64_t article = NewArticle(R"("status":"published")");
  const int64_t comment_id = 999 * 256 + article % 256;
  std::promise<void> holding;
  std::atomic<bool> release{false};
  std::function<Result<bool>(sql::Connection&)> insert =
      [&](sql::Connection& conn) -> Result<bool> {
    auto st = conn.Transaction([&](sql::Connection& tx) -> Status {
      auto ins = tx.Query(
          "INSERT INTO comments (id, article_id, author_id, body, created_at, updated_at) "
          "VALUES ($1, $2, $3, 'racing', 1, 1)",
          {comment_id, article, alice_id_});
      if (!ins) {
        return tl::unexpected(ins.error());
      }
      auto count = tx.Query("UPDATE articles SET comment_count = comment_count + 1 WHERE id = $1",
                            {article});
      if (!count) {
        return tl::unexpected(count.error());
      }
      holding.set_value();
      for (int i = 0; i < 1000 && !release; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      return {};
    });
    if (!st) {
      return tl::unexpected(st.error());
    }
    return true;
  };
  auto inserted = net::co_spawn(app_->app().io(), app_->app().store().Run<bool>(std::move(insert)),
                                net::use_future);
  holding.get_future().wait();
  auto deleted = std::async(std::launch::async, [&] {
    return Client().Delete("/api/v1/articles/" + std::to_string(article), Bearer(alice_)).status;
  });
  std::this_thread::sleep_for(
      std::chrono::milliseconds(300));  // the delete reaches the row the insert holds, and waits
  release = true;
  auto done = inserted.get();
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_EQ(deleted.get(), 204);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE article_id = $1", article), 0)
      << "a comment outlived its article";
}

// Issue 25, item 6: a deleted article's comments leave no cached hash or reply index behind
// (only the thread's meta key and indexes went; every comment's hash stayed, forever).
TEST_P(CommentsTest, DeletingTheArticleDropsItsCommentsCachedHashes) {
  const int64_t top = Comment(bob_, "top");
  const int64_t reply = Comment(alice_, "reply", top);
  ASSERT_EQ(Client().Get(CommentsPath(article_)).status, 200);  // cached
  const std::vector<std::string> keys{redis::keys::Comment(top), redis::keys::Comment(reply),
                                      redis::keys::RepliesByTime(top),
                                      redis::keys::RepliesByLikes(top)};
  for (const auto& key : keys) {
    ASSERT_EQ(redis_.Cli("EXISTS " + key), "1") << key;
  }
  ASSERT_EQ(Client().Delete("/api/v1/articles/" + std::to_string(article_), Bearer(alice_)).status,
            204);
  for (const auto& key : keys) {
    EXPECT_EQ(redis_.Cli("EXISTS " + key), "0") << key;
  }
}

TEST_P(CommentsTest, ConcurrentRepliesAndDeletesKeepEveryCountExact) {
  const int64_t top = Comment(bob_, "top");
  List("");  // the cache is live: the storm goes through the incremental Redis path
  constexpr int kThreads = 8, kPerThread = 15;
  std::vector<std::vector<int64_t>> made(kThreads);
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      auto client = app_->Client();
      const std::string& token = t % 2 ? alice_ : bob_;
      for (int i = 0; i < kPerThread; ++i) {
        auto r =
            client.Post(CommentsPath(article_),
                        R"({"body":"r","parentId":)" + std::to_string(top) + "}", Bearer(token));
        if (r.status == 201) {
          made[t].push_back(r.Json().at("id").as_int64());
        }
        // Every third reply is deleted again, twice at once from two connections.
        if (i % 3 == 2 && !made[t].empty()) {
          const int64_t victim = made[t].back();
          auto other = app_->Client();
          std::thread twin([&] { other.Delete(CommentPath(victim), Bearer(token)); });
          client.Delete(CommentPath(victim), Bearer(token));
          twin.join();
        }
      }
    });
  }
  for (auto& w : writers) {
    w.join();
  }
  size_t created = 0;
  for (const auto& m : made) {
    created += m.size();
  }
  ASSERT_EQ(created, static_cast<size_t>(kThreads * kPerThread));
  const int64_t live_replies = kThreads * (kPerThread - kPerThread / 3);
  auto page = List("?replies=0");
  EXPECT_EQ(page.at("items").as_array()[0].at("replyCount").as_int64(), live_replies);
  EXPECT_EQ(ArticleCommentCount(), live_replies + 1);
  EXPECT_EQ(SqlInt("SELECT reply_count FROM comments WHERE id = $1", top), live_replies);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE parent_id = $1 AND deleted = 0", top),
            live_replies);
  EXPECT_EQ(SqlInt("SELECT comment_count FROM articles WHERE id = $1", article_), live_replies + 1);
  auto replies = Client().Get(CommentPath(top) + "/replies?size=100");
  EXPECT_EQ(replies.Json().at("total").as_int64(), live_replies);
  // And the same after the cache is rebuilt from SQL.
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");
  EXPECT_EQ(List("?replies=0").at("items").as_array()[0].at("replyCount").as_int64(), live_replies);
  EXPECT_EQ(ArticleCommentCount(), live_replies + 1);
}

TEST_P(CommentsTest, RebuildingAHundredThousandCommentsDoesNotBlockOtherRequests) {
  // 100,000 comments straight into SQL (ids carry the article's shard), then the first read
  // rebuilds the cache. While it runs, other requests must be answered.
  const int64_t quiet = NewArticle(R"("status":"published")");
  ASSERT_EQ(PostComment(bob_, R"({"body":"on another article"})", quiet).status, 201);
  std::function<Result<int64_t>(sql::Connection&)> load =
      [article = article_, author = bob_id_](sql::Connection& c) -> Result<int64_t> {
    if (c.dialect() == Dialect::kMysql) {  // MariaDB stops a recursive CTE at 1,000 rows
      auto raised = c.Query("SET SESSION max_recursive_iterations = 200000");
      if (!raised) {
        return tl::unexpected(raised.error());
      }
    }
    auto r = c.Query(
        "INSERT INTO comments (id, article_id, parent_id, author_id, body, created_at, updated_at) "
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000) "
        "SELECT (1000000 + i) * 256 + $1 % 256, $1, NULL, $2, 'bulk', i, i FROM n",
        {article, author});
    if (!r) {
      return tl::unexpected(r.error());
    }
    auto a = c.Query("UPDATE articles SET comment_count = 100000, comment_ver = 1 WHERE id = $1",
                     {article});
    if (!a) {
      return tl::unexpected(a.error());
    }
    return r->affected;
  };
  auto inserted = OnLoop(app_->app().store().Run<int64_t>(std::move(load)));
  ASSERT_TRUE(inserted) << inserted.error().message;
  ASSERT_EQ(*inserted, 100000);
  ASSERT_EQ(redis_.Cli("FLUSHALL"), "OK");

  HttpResponse big;
  std::thread reader([&] { big = app_->Client().Get(CommentsPath(article_) + "?size=5"); });
  // Wait until the rebuild holds its lease, then use the server meanwhile.
  const std::string meta =
      "pl:cmeta:{l" + std::to_string(article_ % 256) + "}:" + std::to_string(article_);
  bool building = false;
  for (int i = 0; i < 2000 && !building; ++i) {
    building = redis_.Cli("HGET " + meta + " state") == "building";
    if (!building) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ASSERT_TRUE(building) << "the rebuild never started";
  int answered_during_rebuild = 0;
  auto other = app_->Client();
  for (int i = 0; i < 20; ++i) {
    auto h = other.Get("/healthz");
    auto q = other.Get(CommentsPath(quiet));
    EXPECT_EQ(h.status, 200);
    EXPECT_EQ(q.status, 200) << q.body;
    if (redis_.Cli("HGET " + meta + " state") == "building") {
      ++answered_during_rebuild;
    }
  }
  reader.join();
  EXPECT_GT(answered_during_rebuild, 0) << "the rebuild finished before anything else ran";
  ASSERT_EQ(big.status, 200) << big.body;
  EXPECT_EQ(big.Json().at("total").as_int64(), 100000);
  EXPECT_EQ(Ids(big.Json().as_object()).size(), 5u);
  EXPECT_EQ(redis_.Cli("HGET " + meta + " state"), "ready");
}

TEST_P(CommentsTest, DroppingEveryCommentCacheRebuildsThreadsFromSql) {
  const int64_t id = Comment(bob_, "the record");
  ASSERT_EQ(Ids(List("")).size(), 1u);
  // Simulate a cache that missed writes (a double fault): an older version of the comment
  // and an index that lost it.
  const std::string key = "pl:cm:{l" + std::to_string(id % 256) + "}:" + std::to_string(id);
  ASSERT_EQ(redis_.Cli("HSET " + key + " body stale ver 0"), "0");
  ASSERT_EQ(
      redis_.Cli("DEL pl:ct:{l" + std::to_string(article_ % 256) + "}:" + std::to_string(article_)),
      "1");
  EXPECT_TRUE(Ids(List("")).empty());
  auto dropped = OnLoop(app_->app().comments().InvalidateAll());
  ASSERT_TRUE(dropped);
  EXPECT_EQ(*dropped, 1);
  auto page = List("");
  EXPECT_EQ(Ids(page), (std::vector<int64_t>{id}));
  EXPECT_EQ(page.at("items").as_array()[0].at("body").as_string(), "the record");
}

INSTANTIATE_TEST_SUITE_P(Db, CommentsTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Db, CommentsNoEditWindowTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
