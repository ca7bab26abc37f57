// API.md "Notifications" and invariant 10 against a real SMTP server (aiosmtpd) and a webhook
// receiver on loopback: addresses used only once verified; reply, mention, article-author and
// moderation notices; settings and one-click unsubscribe; guests' confirmed addresses; and
// delivery through the faults an operator meets (the mail server down, then back; a worker that
// dies holding its lease; two workers at once; a receiver answering 500; a mail server that
// hangs while comments are posted). Delivery passes are run directly (Notifier::DeliverNow),
// with the worker's clock moved on instead of waiting.
#include <gtest/gtest.h>
#include <sodium.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <iostream>
#include <set>

#include "api_test_base.hpp"
#include "common/time.hpp"
#include "support/notify_sinks.hpp"

namespace plaudit::testing {
namespace {

constexpr const char* kSecret = "a-webhook-secret-of-32-bytes-ok!";

class NotificationsTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.smtp = smtp_.url();
    c.mail_from = "Plaudit <comments@blog.example>";
    c.public_url = "https://comments.blog.example";
    c.smtp_timeout_ms = 3000;
    if (hooks_) {
      c.webhooks = {hooks_->url()};
      c.webhook_secret = kSecret;
    }
    c.guests = "on";
    c.limit_guest_address = RateLimit{};
    c.sites = SiteList::Parse("https://blog.example").value();
  }
  void SetUp() override {
    ApiTest::SetUp();
    writer_ = AuthorToken("writer");
    article_ = PublishArticle(writer_);
  }

  // One delivery pass on the app (and its peer on a cluster), the worker's clock `ahead_ms`
  // later than now: backoffs and leases pass without waiting.
  notify::DeliveryReport Deliver(int64_t ahead_ms = 0) {
    notify::DeliveryReport total;
    for (AppUnderTest* a : {app_.get(), peer_.get()}) {
      if (a == nullptr) {
        continue;
      }
      auto& n = a->app().notifier();
      n.clock = [ahead_ms] { return NowMs() + ahead_ms; };
      auto r = net::co_spawn(a->app().io(), n.DeliverNow(), net::use_future).get();
      EXPECT_TRUE(r) << r.error().message;
      if (!r) {
        continue;
      }
      total.mail.delivered += r->mail.delivered;
      total.mail.retried += r->mail.retried;
      total.webhook.delivered += r->webhook.delivered;
      total.webhook.retried += r->webhook.retried;
      total.depth = r->depth;
    }
    return total;
  }

  std::string CommentsPath() const {
    return "/api/v1/articles/" + std::to_string(article_) + "/comments";
  }
  // Posts a comment as `token` (optionally a reply); returns its id.
  int64_t Comment(const std::string& token, const std::string& body,
                  std::optional<int64_t> parent = std::nullopt) {
    std::string json = R"({"body":")" + body + R"(")";
    if (parent) {
      json += R"(,"parentId":)" + std::to_string(*parent);
    }
    auto r = Client().Post(CommentsPath(), json + "}", Bearer(token));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }

  // Registers `name` with a verified address `name`@mail.example; returns the session token.
  std::string VerifiedReader(const std::string& name) {
    Register(name);
    const std::string token = Login(name);
    const std::string address = name + "@mail.example";
    auto r = Client().Patch("/api/v1/users/me", R"({"email":")" + address + R"("})", Bearer(token));
    EXPECT_EQ(r.status, 200) << r.body;
    Deliver();
    auto mails = smtp_.To(address);
    EXPECT_EQ(mails.size(), 1u);
    if (mails.empty()) {
      return token;
    }
    const std::string link = LinkIn(mails.back().text, "/api/v1/notifications/confirm?token=");
    const std::string secret = link.substr(link.find("token=") + 6);
    auto v = Client().Post("/api/v1/users/me/email/verify", R"({"token":")" + secret + R"("})",
                           Bearer(token));
    EXPECT_EQ(v.status, 204) << v.body;
    return token;
  }

  // The first URL in `text` that contains `part` (up to the next whitespace).
  static std::string LinkIn(const std::string& text, const std::string& part) {
    const size_t at = text.find(part);
    if (at == std::string::npos) {
      return "";
    }
    size_t start = text.rfind("http", at);
    size_t end = text.find_first_of(" \r\n", at);
    return text.substr(start, end - start);
  }
  // The path and query of a link to plauditd.
  static std::string PathOf(const std::string& url) {
    const std::string origin = "https://comments.blog.example";
    return url.rfind(origin, 0) == 0 ? url.substr(origin.size()) : url;
  }

  SmtpSink smtp_;
  std::unique_ptr<WebhookSink> hooks_;
  std::string writer_;
  int64_t article_ = 0;
};

TEST_P(NotificationsTest, AnAddressIsUsedOnlyOnceVerifiedThroughItsLink) {
  Register("alice");
  const std::string alice = Login("alice");
  auto me = Client().Get("/api/v1/users/me", Bearer(alice));
  ASSERT_EQ(me.status, 200);
  EXPECT_TRUE(me.Json().at("email").is_null());
  EXPECT_FALSE(me.Json().at("emailVerified").as_bool());

  // Bad input changes nothing.
  for (const std::string& bad : std::vector<std::string>{
           R"({"email":"not an address"})", R"({"email":"a@b@c"})", R"({"email":7})",
           R"({"email":"x@mail.example","role":"admin"})", R"({"displayName":"x"})"}) {
    EXPECT_EQ(Client().Patch("/api/v1/users/me", bad, Bearer(alice)).status, 400) << bad;
  }
  EXPECT_EQ(Client().Patch("/api/v1/users/me", R"({"email":"a@mail.example"})").status, 401);

  auto set = Client().Patch("/api/v1/users/me", R"({"email":"alice@mail.example"})", Bearer(alice));
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(set.Json().at("email").as_string(), "alice@mail.example");
  EXPECT_FALSE(set.Json().at("emailVerified").as_bool());
  // The address is the user's business: the public profile does not carry it.
  auto pub = Client().Get("/api/v1/users/" + std::to_string(me.Json().at("id").as_int64()));
  EXPECT_EQ(pub.body.find("mail.example"), std::string::npos);
  // A second change at once would mail again: refused for a while.
  EXPECT_EQ(
      Client().Patch("/api/v1/users/me", R"({"email":"other@mail.example"})", Bearer(alice)).status,
      429);

  Deliver();
  auto mails = smtp_.To("alice@mail.example");
  ASSERT_EQ(mails.size(), 1u);
  const SentMail& m = mails[0];
  EXPECT_EQ(m.Subject(), "Confirm your e-mail address");
  EXPECT_EQ(m.Header("from"), "Plaudit <comments@blog.example>");
  EXPECT_EQ(m.Header("x-envelope-from"), "comments@blog.example");
  // Every mail can be stopped in one click, this one too ("it was not me").
  EXPECT_NE(m.Header("list-unsubscribe").find("/api/v1/notifications/unsubscribe?key="),
            std::string::npos);
  const std::string link = LinkIn(m.text, "/api/v1/notifications/confirm?token=");
  ASSERT_FALSE(link.empty()) << m.text;
  EXPECT_NE(m.html.find("confirm?token="), std::string::npos);
  const std::string token = link.substr(link.find("token=") + 6);

  // Only its owner verifies with it, and only that token.
  Register("mallory");
  const std::string mallory = Login("mallory");
  EXPECT_EQ(
      Client()
          .Post("/api/v1/users/me/email/verify", R"({"token":")" + token + R"("})", Bearer(mallory))
          .status,
      404);
  EXPECT_EQ(
      Client().Post("/api/v1/users/me/email/verify", R"({"token":"AAAA"})", Bearer(alice)).status,
      404);
  EXPECT_EQ(
      Client().Post("/api/v1/users/me/email/verify", R"({"token":")" + token + R"("})").status,
      401);
  EXPECT_EQ(
      Client()
          .Post("/api/v1/users/me/email/verify", R"({"token":")" + token + R"("})", Bearer(alice))
          .status,
      204);
  EXPECT_TRUE(Client().Get("/api/v1/users/me", Bearer(alice)).Json().at("emailVerified").as_bool());
  // Used once.
  EXPECT_EQ(
      Client()
          .Post("/api/v1/users/me/email/verify", R"({"token":")" + token + R"("})", Bearer(alice))
          .status,
      404);
}

TEST_P(NotificationsTest, AReplyMailsItsAuthorOnceAndNeverTheWriterAboutTheirOwn) {
  const std::string alice = VerifiedReader("alice");
  const std::string bob = VerifiedReader("bob");
  const int64_t top = Comment(alice, "the first word");
  Comment(alice, "alice answers herself", top);
  Deliver();
  EXPECT_EQ(smtp_.To("alice@mail.example").size(), 1u);  // only the confirmation
  const int64_t reply = Comment(bob, "bob answers alice", top);
  Deliver();
  Deliver();  // a second pass sends nothing again
  auto mails = smtp_.To("alice@mail.example");
  ASSERT_EQ(mails.size(), 2u);
  const SentMail& m = mails[1];
  EXPECT_EQ(m.Subject(), "bob replied to your comment on “T”");
  EXPECT_NE(m.text.find("> bob answers alice"), std::string::npos) << m.text;
  EXPECT_NE(
      m.text.find("/articles/" + std::to_string(article_) + "#comment-" + std::to_string(reply)),
      std::string::npos);
  EXPECT_NE(m.html.find("bob answers alice"), std::string::npos);
  EXPECT_NE(m.Header("message-id").find("@comments.blog.example>"), std::string::npos);
  EXPECT_EQ(m.Header("list-unsubscribe-post"), "List-Unsubscribe=One-Click");
  const std::string unsubscribe = m.Header("list-unsubscribe");
  EXPECT_NE(unsubscribe.find("/api/v1/notifications/unsubscribe?key="), std::string::npos);
  // Bob is not told of his own reply.
  EXPECT_EQ(smtp_.To("bob@mail.example").size(), 1u);

  // RFC 8058: the mail client's one-click POST (a form body, no session) unsubscribes.
  const std::string path = PathOf(unsubscribe.substr(1, unsubscribe.size() - 2));
  auto page = Client().Get(path);
  EXPECT_EQ(page.status, 200);  // a GET (a mail scanner's) only shows the button
  EXPECT_NE(page.body.find("<form method=\"post\""), std::string::npos);
  Comment(bob, "still told", top);
  Deliver(120'000);
  EXPECT_EQ(smtp_.To("alice@mail.example").size(), 3u);
  // The button on that page, as a browser sends it: a form POST carrying an origin. Another
  // site's page cannot press it; the page keeps its own origin on the POST (not "null").
  const std::string host = "127.0.0.1:" + std::to_string(app_->port());
  EXPECT_EQ(app_->Client()
                .Post(path, "",
                      {{"Content-Type", "application/x-www-form-urlencoded"},
                       {"Host", host},
                       {"Origin", "https://elsewhere.example"}})
                .status,
            403);
  EXPECT_EQ(page.headers["referrer-policy"], "same-origin");
  auto one_click = Client().Post(path, "List-Unsubscribe=One-Click",
                                 {{"Content-Type", "application/x-www-form-urlencoded"}});
  EXPECT_EQ(one_click.status, 200) << one_click.body;
  auto settings = Client().Get("/api/v1/users/me/notifications", Bearer(alice));
  EXPECT_FALSE(settings.Json().at("replies").as_bool());
  Comment(bob, "no longer told", top);
  Deliver(240'000);
  EXPECT_EQ(smtp_.To("alice@mail.example").size(), 3u);
  EXPECT_EQ(Client().Post("/api/v1/notifications/unsubscribe?key=nope", "").status, 404);
}

TEST_P(NotificationsTest, RepliesInOneThreadWithinAMinuteShareOneMail) {
  const std::string alice = VerifiedReader("alice");
  const std::string bob = VerifiedReader("bob");
  const int64_t top = Comment(alice, "start");
  Comment(bob, "reply one", top);
  Deliver();
  Comment(bob, "reply two", top);
  Comment(bob, "reply three", top);
  Deliver();  // the second and third wait for the minute to pass
  EXPECT_EQ(smtp_.To("alice@mail.example").size(), 2u);
  Deliver(61'000);
  auto mails = smtp_.To("alice@mail.example");
  ASSERT_EQ(mails.size(), 3u);
  EXPECT_EQ(mails[2].Subject(), "2 new comments on “T”");
  EXPECT_NE(mails[2].text.find("reply two"), std::string::npos);
  EXPECT_NE(mails[2].text.find("reply three"), std::string::npos);
  // A busy thread: a mail lists 20 comments and counts the rest.
  for (int i = 0; i < 22; ++i) {
    Comment(bob, "busy " + std::to_string(i), top);
  }
  Deliver(61'000);
  EXPECT_EQ(smtp_.To("alice@mail.example").size(), 3u);  // the minute since the last one runs
  Deliver(122'000);
  mails = smtp_.To("alice@mail.example");
  ASSERT_EQ(mails.size(), 4u);
  EXPECT_EQ(mails[3].Subject(), "20 new comments on “T”");
  EXPECT_NE(mails[3].text.find("busy 19\r\n"), std::string::npos);
  EXPECT_EQ(mails[3].text.find("busy 20"), std::string::npos);
  EXPECT_NE(mails[3].text.find("…and 2 more."), std::string::npos);
}

TEST_P(NotificationsTest, MentionsAndArticleAuthorsAreToldInTheirLanguage) {
  const std::string alice = VerifiedReader("alice");
  const std::string carol = VerifiedReader("carol");
  // The writer of the article hears of comments on it; carol, a participant, of a mention.
  auto w =
      Client().Patch("/api/v1/users/me", R"({"email":"writer@mail.example"})", Bearer(writer_));
  ASSERT_EQ(w.status, 200) << w.body;
  Deliver();
  const auto confirm = smtp_.To("writer@mail.example");
  ASSERT_EQ(confirm.size(), 1u);
  const std::string link = LinkIn(confirm[0].text, "confirm?token=");
  // The link from the mail, as a reader's browser follows it: GET shows, POST confirms.
  EXPECT_EQ(Client().Get(PathOf(link)).status, 200);
  const std::string host = "127.0.0.1:" + std::to_string(app_->port());
  EXPECT_EQ(app_->Client()
                .Post(PathOf(link), "",
                      {{"Content-Type", "application/x-www-form-urlencoded"},
                       {"Host", host},
                       {"Origin", "http://" + host}})
                .status,
            200);  // the page's button, as a browser posts it
  EXPECT_EQ(Client().Post(PathOf(link), "").status, 404);  // once
  auto zh =
      Client().Patch("/api/v1/users/me/notifications", R"({"language":"zh-CN"})", Bearer(carol));
  ASSERT_EQ(zh.status, 200) << zh.body;
  EXPECT_EQ(zh.Json().at("language").as_string(), "zh-CN");
  Comment(carol, "carol was here");
  Comment(alice, "what do you think, @carol?");
  Deliver();
  auto to_writer = smtp_.To("writer@mail.example");
  ASSERT_EQ(to_writer.size(), 2u);  // carol's comment; alice's joins the next minute's mail
  EXPECT_EQ(to_writer[1].Subject(), "carol commented on your article “T”");
  auto to_carol = smtp_.To("carol@mail.example");
  ASSERT_EQ(to_carol.size(), 2u);
  EXPECT_EQ(to_carol[1].Subject(), "alice 在《T》中提到了你");
  EXPECT_NE(to_carol[1].text.find("退订"), std::string::npos);

  // Settings: bad input changes nothing.
  for (const std::string& bad : std::vector<std::string>{
           R"({"replies":"no"})", R"({"language":"fr"})", R"({"email":"x@y.z"})", "[]"}) {
    EXPECT_EQ(Client().Patch("/api/v1/users/me/notifications", bad, Bearer(carol)).status, 400)
        << bad;
  }
  auto off =
      Client().Patch("/api/v1/users/me/notifications", R"({"replies":false})", Bearer(carol));
  EXPECT_EQ(off.Json(),
            boost::json::parse(R"({"replies":false,"articleComments":true,"moderation":true,)"
                               R"("language":"zh-CN"})"));
  Comment(alice, "@carol again");
  Deliver(120'000);
  EXPECT_EQ(smtp_.To("carol@mail.example").size(), 2u);
}

TEST_P(NotificationsTest, AGuestAddressIsMailedOnceAndRepliedToOnlyOnceConfirmed) {
  const std::string bob = VerifiedReader("bob");
  auto post = [&](const std::string& body) {
    auto r = Client().Post(CommentsPath(), R"({"body":")" + body +
                                               R"(","guest":{"name":"Wanderer","email":)"
                                               R"("w@mail.example"}})");
    EXPECT_EQ(r.status, 201) << r.body;
    return r.Json().at("id").as_int64();
  };
  const int64_t first = post("a guest speaks");
  post("and again");
  Deliver();
  auto mails = smtp_.To("w@mail.example");
  ASSERT_EQ(mails.size(), 1u);  // one confirmation, ever, however many comments
  // Not confirmed: a reply tells no one.
  Comment(bob, "hello guest", first);
  Deliver(120'000);
  EXPECT_EQ(smtp_.To("w@mail.example").size(), 1u);
  const std::string link = LinkIn(mails[0].text, "confirm?token=");
  ASSERT_EQ(Client().Post(PathOf(link), "").status, 200);
  Comment(bob, "hello again, guest", first);
  Deliver(240'000);
  mails = smtp_.To("w@mail.example");
  ASSERT_EQ(mails.size(), 2u);
  EXPECT_NE(mails[1].text.find("hello again, guest"), std::string::npos);
  EXPECT_EQ(mails[1].text.find("hello guest\r\n"), std::string::npos);  // told only once confirmed
  const std::string unsubscribe = mails[1].Header("list-unsubscribe");
  ASSERT_FALSE(unsubscribe.empty());
  EXPECT_EQ(Client().Post(PathOf(unsubscribe.substr(1, unsubscribe.size() - 2)), "").status, 200);
  Comment(bob, "nobody hears", first);
  Deliver(360'000);
  EXPECT_EQ(smtp_.To("w@mail.example").size(), 2u);

  // Someone typed a stranger's address: the stranger stops it from the confirmation mail, and a
  // later confirmation (a mistaken click) does not start the mails.
  auto r = Client().Post(CommentsPath(), R"({"body":"posing","guest":{"name":"Poser","email":)"
                                         R"("stranger@mail.example"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  const int64_t posing = r.Json().at("id").as_int64();
  Deliver(480'000);
  auto to_stranger = smtp_.To("stranger@mail.example");
  ASSERT_EQ(to_stranger.size(), 1u);
  const std::string stop = to_stranger[0].Header("list-unsubscribe");
  ASSERT_EQ(Client()
                .Post(PathOf(stop.substr(1, stop.size() - 2)), "List-Unsubscribe=One-Click",
                      {{"Content-Type", "application/x-www-form-urlencoded"}})
                .status,
            200);
  ASSERT_EQ(Client().Post(PathOf(LinkIn(to_stranger[0].text, "confirm?token=")), "").status, 200);
  Comment(bob, "to the poser", posing);
  Deliver(600'000);
  EXPECT_EQ(smtp_.To("stranger@mail.example").size(), 1u);
}

TEST_P(NotificationsTest, WithTheMailServerDownCommentsAre201AndEachNoticeArrivesOnceLater) {
  const std::string alice = VerifiedReader("alice");
  const std::string bob = VerifiedReader("bob");
  const int64_t top = Comment(alice, "start");
  smtp_.Stop();
  for (int i = 0; i < 3; ++i) {
    Comment(bob, "while down " + std::to_string(i), top);
  }
  auto report = Deliver();
  EXPECT_GE(report.mail.retried, 1);
  EXPECT_EQ(report.mail.delivered, 0);
  smtp_.Start(smtp_.port());
  // Backoff passes (the worker's clock moves on), the server is back: everything arrives.
  for (int64_t ahead : {3'600'000, 7'200'000, 10'800'000}) {
    Deliver(ahead);
  }
  auto mails = smtp_.To("alice@mail.example");
  std::set<std::string> ids;
  std::map<std::string, int> seen;
  for (size_t i = 1; i < mails.size(); ++i) {
    ids.insert(mails[i].Header("message-id"));
    for (int n = 0; n < 3; ++n) {
      if (mails[i].text.find("while down " + std::to_string(n)) != std::string::npos) {
        ++seen["while down " + std::to_string(n)];
      }
    }
  }
  EXPECT_EQ(ids.size(), mails.size() - 1);  // no mail twice
  for (int n = 0; n < 3; ++n) {
    EXPECT_EQ(seen["while down " + std::to_string(n)], 1) << n;
  }
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM outbox WHERE delivered_at IS NULL"), 0);
}

TEST_P(NotificationsTest, AWorkerThatDiesHoldingItsLeaseIsReplacedWhenTheLeasePasses) {
  const std::string alice = VerifiedReader("alice");
  const std::string bob = VerifiedReader("bob");
  const int64_t top = Comment(alice, "start");
  Comment(bob, "the reply", top);
  // A worker claims the event and dies before doing anything (its process was SIGKILLed):
  // its lease stays in SQL.
  auto claimed = OnLoop(app_->app().outbox().Claim("dead-worker", NowMs(), 60'000, 100));
  ASSERT_TRUE(claimed);
  ASSERT_FALSE(claimed->empty());
  Deliver();
  EXPECT_EQ(smtp_.To("alice@mail.example").size(), 1u);  // held by the dead one's lease
  Deliver(61'000);
  EXPECT_EQ(smtp_.To("alice@mail.example").size(), 2u);
  // The dead worker, were it to wake, changes nothing: its lease is gone.
  auto late = OnLoop(app_->app().outbox().Delivered(claimed->front().id, "dead-worker", NowMs()));
  ASSERT_TRUE(late);
  EXPECT_FALSE(*late);
}

TEST_P(NotificationsTest, TwoWorkersJoiningOneReadersMailLoseNoReply) {
  // Many replies to one reader in one thread, fanned out by two workers at once: both join
  // notices to the same waiting mail (a lost update there would drop a reply).
  const std::string alice = VerifiedReader("alice");
  auto other = SecondInstance();
  const int64_t top = Comment(alice, "start");
  std::vector<std::string> writers;
  for (int i = 0; i < 4; ++i) {
    Register("replier" + std::to_string(i));
    writers.push_back(Login("replier" + std::to_string(i)));
  }
  Comment(writers[0], "first reply", top);
  Deliver();  // the first goes at once; the rest wait for the minute
  constexpr int kReplies = 16;
  for (int i = 0; i < kReplies; ++i) {
    Comment(writers[i % writers.size()], "batched " + std::to_string(i) + ".", top);
  }
  for (int round = 0; round < 3; ++round) {
    std::vector<std::future<Result<notify::DeliveryReport>>> runs;
    for (AppUnderTest* a : {app_.get(), other.get()}) {
      auto& n = a->app().notifier();
      n.clock = [round] { return NowMs() + round * 61'000; };
      runs.push_back(net::co_spawn(a->app().io(), n.DeliverNow(), net::use_future));
    }
    for (auto& f : runs) {
      EXPECT_TRUE(f.get());
    }
  }
  std::map<int, int> seen;
  for (const SentMail& m : smtp_.To("alice@mail.example")) {
    for (int i = 0; i < kReplies; ++i) {
      if (m.text.find("batched " + std::to_string(i) + ".") != std::string::npos) {
        ++seen[i];
      }
    }
  }
  for (int i = 0; i < kReplies; ++i) {
    EXPECT_EQ(seen[i], 1) << "reply " << i;
  }
}

TEST_P(NotificationsTest, TwoWorkersAtOnceSendEachNoticeOnce) {
  const std::string alice = VerifiedReader("alice");
  auto other = SecondInstance();
  std::vector<std::string> readers;
  std::vector<int64_t> tops;
  for (int i = 0; i < 6; ++i) {
    readers.push_back(VerifiedReader("reader" + std::to_string(i)));
    tops.push_back(Comment(readers.back(), "top " + std::to_string(i)));
  }
  for (int i = 0; i < 6; ++i) {
    Comment(alice, "alice replies " + std::to_string(i), tops[i]);
  }
  for (int round = 0; round < 3; ++round) {
    std::vector<std::future<Result<notify::DeliveryReport>>> runs;
    for (AppUnderTest* a : {app_.get(), other.get()}) {
      runs.push_back(
          net::co_spawn(a->app().io(), a->app().notifier().DeliverNow(), net::use_future));
    }
    for (auto& f : runs) {
      EXPECT_TRUE(f.get());
    }
  }
  std::set<std::string> ids;
  size_t notices = 0;
  for (int i = 0; i < 6; ++i) {
    auto mails = smtp_.To("reader" + std::to_string(i) + "@mail.example");
    ASSERT_EQ(mails.size(), 2u) << i;  // confirmation, then the one reply
    EXPECT_NE(mails[1].text.find("alice replies " + std::to_string(i)), std::string::npos);
    ids.insert(mails[1].Header("message-id"));
    ++notices;
  }
  EXPECT_EQ(ids.size(), notices);
}

INSTANTIATE_TEST_SUITE_P(Db, NotificationsTest, AllDbs(), DbName);

// Webhooks: signed, the exact body, retried on anything but 2xx with the same event id.
class WebhooksTest : public NotificationsTest {
 protected:
  void SetUp() override {
    hooks_ = std::make_unique<WebhookSink>(/*fail_first=*/1);
    NotificationsTest::SetUp();
  }
};

TEST_P(WebhooksTest, EveryEventIsPostedSignedAndRetriedUntilA2xx) {
  Register("alice");
  const std::string alice = Login("alice");
  const int64_t id = Comment(alice, "hooked");
  auto r = Deliver();
  EXPECT_EQ(r.webhook.retried, 1);  // the receiver answered 500
  Deliver(3'600'000);
  auto got = hooks_->Received();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].status, 500);
  EXPECT_EQ(got[1].status, 200);
  EXPECT_EQ(got[0].body, got[1].body);  // the same bytes again
  EXPECT_EQ(got[0].headers["plaudit-event-id"], got[1].headers["plaudit-event-id"]);
  for (const Hook& h : got) {
    // The signature is over the exact body, with the configured secret.
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, reinterpret_cast<const unsigned char*>(kSecret),
                                std::strlen(kSecret));
    crypto_auth_hmacsha256_update(&st, reinterpret_cast<const unsigned char*>(h.body.data()),
                                  h.body.size());
    crypto_auth_hmacsha256_final(&st, mac);
    char hex[2 * sizeof mac + 1];
    sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
    EXPECT_EQ(h.headers.at("plaudit-signature"), std::string("sha256=") + hex);
    EXPECT_EQ(h.headers.at("content-type"), "application/json");
  }
  const auto body = boost::json::parse(got[1].body).as_object();
  EXPECT_EQ(body.at("id").as_string(), got[1].headers["plaudit-event-id"]);
  EXPECT_EQ(body.at("type").as_string(), "comment.created");
  EXPECT_TRUE(body.contains("at"));
  const auto& c = body.at("data").at("comment").as_object();
  EXPECT_EQ(c.at("id").as_int64(), id);
  EXPECT_EQ(c.at("body").as_string(), "hooked");
  EXPECT_EQ(body.at("data").at("article").at("id").as_int64(), article_);

  // Deleted: comment.deleted, once.
  ASSERT_EQ(Client().Delete("/api/v1/comments/" + std::to_string(id), Bearer(alice)).status, 204);
  Deliver();
  got = hooks_->Received();
  ASSERT_EQ(got.size(), 3u);
  const auto deleted = boost::json::parse(got[2].body).as_object();
  EXPECT_EQ(deleted.at("type").as_string(), "comment.deleted");
  EXPECT_EQ(deleted.at("data").at("reason").as_string(), "author");
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM outbox WHERE delivered_at IS NULL"), 0);
}

INSTANTIATE_TEST_SUITE_P(Db, WebhooksTest, AllDbs(), DbName);

// Moderation: a held comment tells moderators (mail, comment.held) and no reader; approval
// tells readers then (comment.approved).
class HeldNoticesTest : public NotificationsTest {
 protected:
  void Configure(config::Config& c) override {
    NotificationsTest::Configure(c);
    c.moderation = "all";
  }
  void SetUp() override {
    hooks_ = std::make_unique<WebhookSink>();
    NotificationsTest::SetUp();
  }
};

TEST_P(HeldNoticesTest, AHeldCommentTellsModeratorsAndReachesReadersOnlyWhenApproved) {
  const std::string root = Login("root", "rootpassword");
  auto e = Client().Patch("/api/v1/users/me", R"({"email":"root@mail.example"})", Bearer(root));
  ASSERT_EQ(e.status, 200) << e.body;
  Deliver();
  const auto confirm = smtp_.To("root@mail.example");
  ASSERT_EQ(confirm.size(), 1u);
  ASSERT_EQ(Client().Post(PathOf(LinkIn(confirm[0].text, "confirm?token=")), "").status, 200);
  const std::string alice = VerifiedReader("alice");
  const std::string bob = VerifiedReader("bob");
  // Alice's own comment is held too; approve it so bob can answer it.
  auto first = Client().Post(CommentsPath(), R"({"body":"alice's"})", Bearer(alice));
  ASSERT_EQ(first.status, 201) << first.body;
  const int64_t top = first.Json().at("id").as_int64();
  const std::string act = R"({"ids":[)" + std::to_string(top) + R"(],"action":"approve"})";
  ASSERT_EQ(Client().Post("/api/v1/moderation/comments", act, Bearer(root)).status, 200);
  Deliver();
  auto held = Client().Post(CommentsPath(),
                            R"({"body":"bob's held reply","parentId":)" + std::to_string(top) + "}",
                            Bearer(bob));
  ASSERT_EQ(held.status, 201);
  ASSERT_EQ(held.Json().at("status").as_string(), "pending");
  const int64_t reply = held.Json().at("id").as_int64();
  Deliver(120'000);
  // Invariant 9: nothing of the held reply reaches alice.
  for (const SentMail& m : smtp_.To("alice@mail.example")) {
    EXPECT_EQ(m.text.find("bob's held reply"), std::string::npos);
  }
  auto to_root = smtp_.To("root@mail.example");
  ASSERT_GE(to_root.size(), 2u);
  EXPECT_NE(to_root.back().text.find("bob's held reply"), std::string::npos);
  EXPECT_NE(to_root.back().text.find("https://comments.blog.example/admin"), std::string::npos);
  std::vector<std::string> types;
  for (const Hook& h : hooks_->Received()) {
    types.emplace_back(boost::json::parse(h.body).at("type").as_string());
  }
  EXPECT_NE(std::find(types.begin(), types.end(), "comment.held"), types.end());

  const std::string approve = R"({"ids":[)" + std::to_string(reply) + R"(],"action":"approve"})";
  ASSERT_EQ(Client().Post("/api/v1/moderation/comments", approve, Bearer(root)).status, 200);
  Deliver(240'000);
  auto to_alice = smtp_.To("alice@mail.example");
  ASSERT_EQ(to_alice.size(), 2u);
  EXPECT_NE(to_alice[1].text.find("bob's held reply"), std::string::npos);
  types.clear();
  for (const Hook& h : hooks_->Received()) {
    types.emplace_back(boost::json::parse(h.body).at("type").as_string());
  }
  EXPECT_EQ(std::count(types.begin(), types.end(), "comment.approved"), 2);
}

TEST_P(HeldNoticesTest, AnApprovedReplyToAGuestsReplyTellsThatGuest) {
  const std::string root = Login("root", "rootpassword");
  const std::string alice = VerifiedReader("alice");
  auto approve = [&](int64_t id) {
    const std::string act = R"({"ids":[)" + std::to_string(id) + R"(],"action":"approve"})";
    ASSERT_EQ(Client().Post("/api/v1/moderation/comments", act, Bearer(root)).status, 200);
  };
  auto guest = [&](const std::string& name, const std::string& body, int64_t parent) {
    auto r =
        Client().Post(CommentsPath(), R"({"body":")" + body + R"(","parentId":)" +
                                          std::to_string(parent) + R"(,"guest":{"name":")" + name +
                                          R"(","email":")" + name + R"(@mail.example"}})");
    EXPECT_EQ(r.status, 201) << r.body;
    return r.Json().at("id").as_int64();
  };
  auto top = Client().Post(CommentsPath(), R"({"body":"alice starts"})", Bearer(alice));
  ASSERT_EQ(top.status, 201);
  const int64_t top_id = top.Json().at("id").as_int64();
  approve(top_id);
  const int64_t g1 = guest("guestone", "a guest answers alice", top_id);
  approve(g1);
  Deliver();
  auto confirm = smtp_.To("guestone@mail.example");
  ASSERT_EQ(confirm.size(), 1u);
  ASSERT_EQ(Client().Post(PathOf(LinkIn(confirm[0].text, "confirm?token=")), "").status, 200);
  // A second guest answers the first guest's reply; it waits, then is approved.
  approve(guest("guesttwo", "answering guest one", g1));
  Deliver(120'000);
  auto mails = smtp_.To("guestone@mail.example");
  ASSERT_EQ(mails.size(), 2u);
  EXPECT_NE(mails[1].text.find("answering guest one"), std::string::npos);
  // Alice's comment was not the one answered.
  for (const SentMail& m : smtp_.To("alice@mail.example")) {
    EXPECT_EQ(m.text.find("answering guest one"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(Db, HeldNoticesTest, AllDbs(), DbName);

// A mail server that accepts and never answers: a comment posted meanwhile is answered as
// quickly as ever (nothing about delivery is on the request's path).
class HangingMailTest : public NotificationsTest {
 protected:
  void SetUp() override {
    smtp_.Stop();
    hanging_ = std::make_unique<SmtpSink>(smtp_.port(), /*hang=*/true);
    NotificationsTest::SetUp();
  }
  std::unique_ptr<SmtpSink> hanging_;
};

TEST_P(HangingMailTest, ACommentIsNotHeldUpWhileTheMailServerHangs) {
  Register("alice");
  const std::string alice = Login("alice");
  // Alice's address waits for verification: its mail is what the worker is stuck sending.
  ASSERT_EQ(
      Client().Patch("/api/v1/users/me", R"({"email":"alice@mail.example"})", Bearer(alice)).status,
      200);
  auto& n = app_->app().notifier();
  auto stuck = net::co_spawn(app_->app().io(), n.DeliverNow(), net::use_future);
  const auto start = std::chrono::steady_clock::now();
  const int64_t id = Comment(alice, "posted while the mail server hangs");
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GT(id, 0);
  // The worker is still waiting on the mail server when the comment's 201 has come back.
  EXPECT_EQ(stuck.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  std::cout << "comment while SMTP hangs: "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";
  auto r = stuck.get();  // gives up on the send at --smtp-timeout-ms, to retry later
  ASSERT_TRUE(r);
  EXPECT_EQ(r->mail.retried, 1);
}

INSTANTIATE_TEST_SUITE_P(Db, HangingMailTest, ::testing::Values(Db::kSqlite), DbName);

// Without --smtp or --webhook nothing is queued and no address is taken.
class NotificationsOffTest : public ApiTest {};

TEST_P(NotificationsOffTest, NoAddressIsTakenAndNothingIsQueued) {
  Register("alice");
  const std::string alice = Login("alice");
  auto r = Client().Patch("/api/v1/users/me", R"({"email":"alice@mail.example"})", Bearer(alice));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("--smtp"), std::string::npos);
  const int64_t article = PublishArticle(AuthorToken("writer"));
  ASSERT_EQ(Client()
                .Post("/api/v1/articles/" + std::to_string(article) + "/comments",
                      R"({"body":"quiet"})", Bearer(alice))
                .status,
            201);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM outbox"), 0);
  auto s = Client().Get("/api/v1/users/me/notifications", Bearer(alice));
  EXPECT_EQ(s.status, 200);
  EXPECT_EQ(Client().Get("/api/v1/users/me/notifications").status, 401);
}

INSTANTIATE_TEST_SUITE_P(Db, NotificationsOffTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
