// Issue 48, "Live updates" (API.md): a thread's events as text/event-stream, on two instances
// of one Redis and one database. What a reader on one instance sees of writes made through the
// other: new comments, edits, deletions, approvals, in order, each with an id; nothing held;
// a reconnect gets what it missed or a reset; a lost announcement resets; the caps.
#include <boost/json.hpp>

#include "api_test_base.hpp"
#include "redis/keys.hpp"
#include "support/sse_reader.hpp"

namespace plaudit::testing {
namespace {

using namespace std::chrono_literals;

class LiveTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.rate_limits = false;
    c.moderation = policy_;
    c.live_streams_per_address = 3;
  }

  void SetUp() override {
    ApiTest::SetUp();
    other_ = SecondInstance();
    root_ = Login("root", "rootpassword");
    article_ = PublishArticle(root_);
    ASSERT_NE(article_, 0);
    Register("reader");
    reader_ = Login("reader");
  }

  std::string EventsPath() const {
    return "/api/v1/articles/" + std::to_string(article_) + "/events";
  }
  std::string CommentsPath() const {
    return "/api/v1/articles/" + std::to_string(article_) + "/comments";
  }
  // Posts through the first instance; the new comment's id.
  int64_t Post(const std::string& token, const std::string& body, int64_t parent = 0) {
    boost::json::object o{{"body", body}};
    if (parent != 0) {
      o["parentId"] = parent;
    }
    auto r = app_->Client().Post(CommentsPath(), boost::json::serialize(o), Bearer(token));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }
  // The next event's name and data, failing the test when none comes.
  static SseEvent Expect(SseReader& s, const std::string& event) {
    std::optional<SseEvent> e = s.Next();
    EXPECT_TRUE(e.has_value()) << "no event (wanted " << event << ")";
    if (!e) {
      return {};
    }
    EXPECT_EQ(e->event, event) << "id " << e->id << ": " << e->data;
    return *e;
  }
  static int64_t IdOf(const SseEvent& e) { return boost::json::parse(e.data).at("id").as_int64(); }

  std::string policy_ = "off";
  std::unique_ptr<AppUnderTest> other_;
  std::string root_;
  std::string reader_;
  int64_t article_ = 0;
};

TEST_P(LiveTest, AReaderOnOneInstanceSeesWritesMadeThroughTheOther) {
  SseReader s(other_->port(), EventsPath());
  ASSERT_EQ(s.status(), 200) << s.head();
  EXPECT_NE(s.head().find("Content-Type: text/event-stream"), std::string::npos) << s.head();
  EXPECT_NE(s.head().find("Cache-Control: no-store"), std::string::npos) << s.head();

  const int64_t id = Post(reader_, "hello *live*");
  SseEvent shown = Expect(s, "comment");
  EXPECT_EQ(shown.id, "1");
  const boost::json::value json = boost::json::parse(shown.data);
  EXPECT_EQ(json.at("id").as_int64(), id);
  EXPECT_EQ(json.at("html").as_string(), "<p>hello <em>live</em></p>");
  EXPECT_EQ(json.at("liked").as_bool(), false);  // an anonymous reader's view

  // A reply: itself, then its top-level comment's new reply count.
  const int64_t reply = Post(root_, "a reply", id);
  EXPECT_EQ(IdOf(Expect(s, "comment")), reply);
  SseEvent top = Expect(s, "comment_updated");
  EXPECT_EQ(boost::json::parse(top.data).at("replyCount").as_int64(), 1);

  auto edited = app_->Client().Patch("/api/v1/comments/" + std::to_string(reply),
                                     R"({"body":"edited"})", Bearer(root_));
  ASSERT_EQ(edited.status, 200) << edited.body;
  SseEvent upd = Expect(s, "comment_updated");
  EXPECT_EQ(boost::json::parse(upd.data).at("body").as_string(), "edited");
  ASSERT_EQ(
      app_->Client().Delete("/api/v1/comments/" + std::to_string(reply), Bearer(root_)).status,
      204);
  SseEvent gone = Expect(s, "comment_deleted");
  EXPECT_EQ(IdOf(gone), reply);
  EXPECT_EQ(gone.data, R"({"id":)" + std::to_string(reply) + "}");
  // In order, gapless: 1 comment, 2 reply, 3 top, 4 edit, 5 delete (6: the top's count).
  EXPECT_EQ(gone.id, "5");
  SseEvent count = Expect(s, "comment_updated");
  EXPECT_EQ(count.id, "6");
  EXPECT_EQ(IdOf(count), id);
  EXPECT_EQ(boost::json::parse(count.data).at("replyCount").as_int64(), 0);
}

class LiveModeratedTest : public LiveTest {
 protected:
  LiveModeratedTest() { policy_ = "all"; }
};

TEST_P(LiveModeratedTest, NothingHeldIsSentAndTheApprovalSendsIt) {
  SseReader s(other_->port(), EventsPath());
  ASSERT_EQ(s.status(), 200);
  const int64_t held = Post(reader_, "wait for me");
  // Even announced (as a stale or hostile announcement would), a held comment is not sent:
  // each instance reads it as an anonymous reader first.
  // Published from the node of the thread's counter, as live_publish.lua does: on a cluster,
  // messages sent from different nodes are not ordered against each other.
  const std::string seq = redis_.Cli(
      "EVAL \"local s = redis.call('INCR', KEYS[1]); redis.call('PUBLISH', 'pl:live:events', "
      "ARGV[1] .. ' ' .. s .. ' comment ' .. ARGV[2]); return s\" 1 " +
      redis::keys::LiveSeq(article_) + " " + std::to_string(article_) + " " + std::to_string(held));
  ASSERT_EQ(seq, "1");
  const int64_t mine = Post(root_, "a moderator is never held");
  // The first thing the reader sees is the moderator's comment, event 2: the held one, 1,
  // sent nothing.
  SseEvent first = Expect(s, "comment");
  EXPECT_EQ(IdOf(first), mine);
  EXPECT_EQ(first.id, "2");
  auto approve = app_->Client().Post(
      "/api/v1/moderation/comments",
      R"({"ids":[)" + std::to_string(held) + R"(],"action":"approve"})", Bearer(root_));
  ASSERT_EQ(approve.status, 200) << approve.body;
  SseEvent approved = Expect(s, "comment");
  EXPECT_EQ(IdOf(approved), held);
  EXPECT_EQ(boost::json::parse(approved.data).at("status").as_string(), "approved");
  // Spam: gone for readers.
  auto spam = app_->Client().Post("/api/v1/moderation/comments",
                                  R"({"ids":[)" + std::to_string(held) + R"(],"action":"spam"})",
                                  Bearer(root_));
  ASSERT_EQ(spam.status, 200) << spam.body;
  EXPECT_EQ(IdOf(Expect(s, "comment_deleted")), held);
  // A held reply under an approved comment: nothing either.
  Post(reader_, "held reply", mine);
  EXPECT_FALSE(s.Next(500ms).has_value());
}

TEST_P(LiveModeratedTest, AHeldCommentsFateIsNotToldNotEvenItsId) {
  SseReader s(other_->port(), EventsPath());
  ASSERT_EQ(s.status(), 200);
  const int64_t spam = Post(reader_, "held, then spam");
  const int64_t gone = Post(reader_, "held, then deleted by its writer");
  auto marked = app_->Client().Post("/api/v1/moderation/comments",
                                    R"({"ids":[)" + std::to_string(spam) + R"(],"action":"spam"})",
                                    Bearer(root_));
  ASSERT_EQ(marked.status, 200) << marked.body;
  ASSERT_EQ(
      app_->Client().Delete("/api/v1/comments/" + std::to_string(gone), Bearer(reader_)).status,
      204);
  // The first thing the stream carries is the next visible comment.
  const int64_t mine = Post(root_, "a moderator's");
  SseEvent first = Expect(s, "comment");
  EXPECT_EQ(IdOf(first), mine) << first.data;
}

TEST_P(LiveTest, AReconnectGetsWhatItMissedOrAReset) {
  std::string last;
  {
    SseReader s(other_->port(), EventsPath());
    ASSERT_EQ(s.status(), 200);
    Post(reader_, "one");
    last = Expect(s, "comment").id;
    EXPECT_EQ(last, "1");
  }  // the reader goes
  const int64_t two = Post(reader_, "two");
  const int64_t three = Post(reader_, "three");
  SseReader back(other_->port(), EventsPath(), last);
  ASSERT_EQ(back.status(), 200);
  SseEvent e2 = Expect(back, "comment");
  EXPECT_EQ(IdOf(e2), two);
  EXPECT_EQ(e2.id, "2");
  SseEvent e3 = Expect(back, "comment");
  EXPECT_EQ(IdOf(e3), three);
  EXPECT_EQ(e3.id, "3");
  EXPECT_FALSE(back.Next(300ms).has_value());  // nothing twice

  // An id this instance did not keep (ahead of it, or from another thread's past): reset.
  SseReader lost(other_->port(), EventsPath(), "99");
  ASSERT_EQ(lost.status(), 200);
  Expect(lost, "reset");
}

TEST_P(LiveTest, AResumeReplaysNoTextThatWasEditedOrRemovedSince) {
  SseReader s(other_->port(), EventsPath());
  ASSERT_EQ(s.status(), 200);
  const int64_t doomed = Post(reader_, "soon removed");
  const int64_t changed = Post(reader_, "first words");
  EXPECT_EQ(Expect(s, "comment").id, "1");
  EXPECT_EQ(Expect(s, "comment").id, "2");
  ASSERT_EQ(
      app_->Client().Delete("/api/v1/comments/" + std::to_string(doomed), Bearer(reader_)).status,
      204);
  ASSERT_EQ(app_->Client()
                .Patch("/api/v1/comments/" + std::to_string(changed), R"({"body":"second words"})",
                       Bearer(reader_))
                .status,
            200);
  EXPECT_EQ(Expect(s, "comment_deleted").id, "3");
  EXPECT_EQ(Expect(s, "comment_updated").id, "4");
  // A reader resuming from before them all: the removed text is not handed out again, and
  // the edited comment comes with its words as they are now.
  SseReader back(other_->port(), EventsPath(), "0");
  ASSERT_EQ(back.status(), 200);
  SseEvent e = Expect(back, "comment");
  EXPECT_EQ(e.id, "2");
  EXPECT_EQ(IdOf(e), changed);
  EXPECT_NE(e.data.find("second words"), std::string::npos) << e.data;
  SseEvent d = Expect(back, "comment_deleted");
  EXPECT_EQ(IdOf(d), doomed);
  SseEvent u = Expect(back, "comment_updated");
  EXPECT_EQ(IdOf(u), changed);
  EXPECT_EQ(back.raw().find("soon removed"), std::string::npos);
  EXPECT_EQ(back.raw().find("first words"), std::string::npos);
}

TEST_P(LiveTest, APlaceholderGoesWithItsLastReply) {
  SseReader s(other_->port(), EventsPath());
  ASSERT_EQ(s.status(), 200);
  const int64_t top = Post(reader_, "top");
  const int64_t reply = Post(reader_, "reply", top);
  EXPECT_EQ(IdOf(Expect(s, "comment")), top);
  EXPECT_EQ(IdOf(Expect(s, "comment")), reply);
  EXPECT_EQ(IdOf(Expect(s, "comment_updated")), top);  // its reply count
  ASSERT_EQ(
      app_->Client().Delete("/api/v1/comments/" + std::to_string(top), Bearer(reader_)).status,
      204);
  SseEvent placeholder = Expect(s, "comment_updated");  // kept for its reply, without text
  EXPECT_EQ(IdOf(placeholder), top);
  EXPECT_EQ(placeholder.data.find("\"top\""), std::string::npos) << placeholder.data;
  ASSERT_EQ(
      app_->Client().Delete("/api/v1/comments/" + std::to_string(reply), Bearer(reader_)).status,
      204);
  EXPECT_EQ(IdOf(Expect(s, "comment_deleted")), reply);
  EXPECT_EQ(IdOf(Expect(s, "comment_deleted")), top);  // nothing left to hold it
}

TEST_P(LiveTest, LikeCountsArriveInPlaceAtMostOnceASecondPerThread) {
  SseReader s(other_->port(), EventsPath());
  ASSERT_EQ(s.status(), 200);
  const int64_t comment = Post(reader_, "like me");
  EXPECT_EQ(Expect(s, "comment").id, "1");
  const std::string article_like = "/api/v1/articles/" + std::to_string(article_) + "/like";
  const std::string comment_like = "/api/v1/comments/" + std::to_string(comment) + "/like";
  // The first like of a quiet thread goes out at once.
  ASSERT_EQ(app_->Client().Put(article_like, "", Bearer(reader_)).status, 200);
  SseEvent first = Expect(s, "likes");
  EXPECT_EQ(first.id, "2");
  auto counts = boost::json::parse(first.data).as_object();
  EXPECT_EQ(counts.at("article").at(std::to_string(article_)).at("likeCount").as_int64(), 1);
  EXPECT_TRUE(counts.at("comment").as_object().empty()) << first.data;
  auto at = std::chrono::steady_clock::now();

  // A burst through both instances: each event at least a second after the one before (the
  // gate is one for all instances), none lost, the last one with every final count.
  ASSERT_EQ(app_->Client().Put(comment_like, "", Bearer(reader_)).status, 200);
  ASSERT_EQ(other_->Client().Put(comment_like, "", Bearer(root_)).status, 200);
  ASSERT_EQ(other_->Client().Put(article_like, "", Bearer(root_)).status, 200);
  ASSERT_EQ(app_->Client().Delete(article_like, Bearer(reader_)).status, 200);
  int64_t article_count = -1;
  int64_t comment_count = -1;
  int events = 0;
  // Each instance tells what it took once the gate opens for it: until both have, and then
  // nothing more.
  while (std::optional<SseEvent> e = s.Next(2500ms)) {
    ASSERT_EQ(e->event, "likes") << e->data;
    const auto now = std::chrono::steady_clock::now();
    EXPECT_GE(now - at, 800ms) << "two likes events within a second: " << e->data;
    at = now;
    ++events;
    auto d = boost::json::parse(e->data).as_object();
    if (auto* a = d.at("article").as_object().if_contains(std::to_string(article_)); a) {
      article_count = a->at("likeCount").as_int64();
    }
    if (auto* c = d.at("comment").as_object().if_contains(std::to_string(comment)); c) {
      comment_count = c->at("likeCount").as_int64();
    }
  }
  EXPECT_EQ(article_count, 1);
  EXPECT_EQ(comment_count, 2);
  EXPECT_GE(events, 1);
  EXPECT_LE(events, 2);  // one per instance that took likes
}

TEST_P(LiveTest, AnAnnouncementMissedResetsTheThreadsReaders) {
  SseReader s(app_->port(), EventsPath());
  ASSERT_EQ(s.status(), 200);
  Post(reader_, "one");
  EXPECT_EQ(Expect(s, "comment").id, "1");
  // A message whose number skips 2..9, as one lost while the subscription was down reads.
  const std::string cli = "PUBLISH pl:live:events '" + std::to_string(article_) + " 10 comment 1'";
  ASSERT_NE(redis_.Cli(cli), "");
  Expect(s, "reset");
}

TEST_P(LiveTest, StreamsAreOnlyForThreadsAnonymousReadersSeeAndAreCapped) {
  // An unknown article, a draft: 404; a page without a thread yet: 404.
  SseReader none(app_->port(), "/api/v1/articles/999999/events");
  EXPECT_EQ(none.status(), 404) << none.head();
  auto draft = Client().Post("/api/v1/articles", R"({"title":"d","content":"c"})", Bearer(root_));
  ASSERT_EQ(draft.status, 201) << draft.body;
  SseReader hidden(app_->port(), "/api/v1/articles/" +
                                     std::to_string(draft.Json().at("id").as_int64()) + "/events");
  EXPECT_EQ(hidden.status(), 404);
  // Per client address: 3 here.
  std::vector<std::unique_ptr<SseReader>> open;
  for (int i = 0; i < 3; ++i) {
    open.push_back(std::make_unique<SseReader>(app_->port(), EventsPath()));
    ASSERT_EQ(open.back()->status(), 200);
  }
  SseReader fourth(app_->port(), EventsPath());
  EXPECT_EQ(fourth.status(), 429) << fourth.head();
  EXPECT_NE(fourth.head().find("Retry-After"), std::string::npos);
  // One goes: room for another.
  open.front()->Close();
  open.erase(open.begin());
  bool admitted = false;
  for (int i = 0; i < 100 && !admitted; ++i) {
    SseReader again(app_->port(), EventsPath());
    admitted = again.status() == 200;
    if (!admitted) {
      std::this_thread::sleep_for(20ms);
    }
  }
  EXPECT_TRUE(admitted);
}

class LiveCappedTest : public LiveTest {
 protected:
  void Configure(config::Config& c) override {
    LiveTest::Configure(c);
    c.live_streams = 2;
  }
};

TEST_P(LiveCappedTest, StreamsBeyondTheInstancesCapAre503AndTheOtherInstanceStillServes) {
  SseReader one(app_->port(), EventsPath());
  SseReader two(app_->port(), EventsPath());
  ASSERT_EQ(one.status(), 200);
  ASSERT_EQ(two.status(), 200);
  SseReader three(app_->port(), EventsPath());
  EXPECT_EQ(three.status(), 503) << three.head();
  EXPECT_NE(three.head().find("Retry-After"), std::string::npos) << three.head();
  // The cap is this instance's; the streams open still get what happens.
  SseReader elsewhere(other_->port(), EventsPath());
  EXPECT_EQ(elsewhere.status(), 200);
  const int64_t id = Post(reader_, "still live");
  EXPECT_EQ(IdOf(Expect(one, "comment")), id);
  EXPECT_EQ(IdOf(Expect(elsewhere, "comment")), id);
}

INSTANTIATE_TEST_SUITE_P(Databases, LiveTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, LiveCappedTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, LiveModeratedTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
