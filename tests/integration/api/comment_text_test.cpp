// Issue 48, "Comment text": a comment's body is Markdown, rendered once when it is written and
// served as "html" by every path that serves the comment (the 201, a single read, a list page,
// a replies page, the moderation queue), changed by an edit, gone with a delete, given back by
// a moderator's restore; comments stored before html existed get it at start-up, and a cached
// hash from before it is refilled, not served without it.
#include "api_test_base.hpp"
#include "redis/keys.hpp"

namespace plaudit::testing {
namespace {

constexpr std::string_view kUgc = R"( rel="nofollow noopener noreferrer ugc" target="_blank")";

class CommentTextTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override { c.rate_limits = false; }

  void SetUp() override {
    ApiTest::SetUp();
    root_ = Login("root", "rootpassword");
    article_ = PublishArticle(root_);
    ASSERT_NE(article_, 0);
  }

  std::string CommentsPath() const {
    return "/api/v1/articles/" + std::to_string(article_) + "/comments";
  }
  static std::string CommentPath(int64_t id) { return "/api/v1/comments/" + std::to_string(id); }

  static std::string BodyJson(const std::string& body) {
    return boost::json::serialize(boost::json::object{{"body", body}});
  }

  // The comment's html in the article's list page (new first), "" when it is not there.
  std::string ListedHtml(int64_t id) {
    auto r = Client().Get(CommentsPath());
    EXPECT_EQ(r.status, 200) << r.body;
    const boost::json::value json = r.Json();
    for (const auto& item : json.at("items").as_array()) {
      if (item.at("id").as_int64() == id) {
        return std::string(item.at("html").as_string());
      }
      for (const auto& reply : item.at("replies").as_array()) {
        if (reply.at("id").as_int64() == id) {
          return std::string(reply.at("html").as_string());
        }
      }
    }
    ADD_FAILURE() << "comment " << id << " not listed: " << r.body;
    return {};
  }

  std::string root_;
  int64_t article_ = 0;
};

TEST_P(CommentTextTest, EveryPathServesTheRenderedMarkdown) {
  auto c = Client();
  const std::string body =
      "**bold** and [a link](https://ok.example/a) and [bad](javascript:alert(1))\n"
      "then <script>alert(1)</script> see https://ok.example/b";
  const std::string want = "<p><strong>bold</strong> and <a href=\"https://ok.example/a\"" +
                           std::string(kUgc) +
                           ">a link</a> and bad<br>\nthen &lt;script&gt;alert(1)&lt;/script&gt; "
                           "see <a href=\"https://ok.example/b\"" +
                           std::string(kUgc) + ">https://ok.example/b</a></p>";
  auto posted = c.Post(CommentsPath(), BodyJson(body), Bearer(root_));
  ASSERT_EQ(posted.status, 201) << posted.body;
  const int64_t id = posted.Json().at("id").as_int64();
  EXPECT_EQ(posted.Json().at("body").as_string(), body);
  EXPECT_EQ(posted.Json().at("html").as_string(), want);
  EXPECT_EQ(c.Get(CommentPath(id)).Json().at("html").as_string(), want);
  EXPECT_EQ(ListedHtml(id), want);

  // A reply: inline in the list and on its top-level comment's replies page.
  auto reply = c.Post(CommentsPath(),
                      R"({"body":"> quoted\n\n`x < y`","parentId":)" + std::to_string(id) + "}",
                      Bearer(root_));
  ASSERT_EQ(reply.status, 201) << reply.body;
  const int64_t reply_id = reply.Json().at("id").as_int64();
  const std::string reply_html =
      "<blockquote>\n<p>quoted</p>\n</blockquote>\n<p><code>x &lt; y</code></p>";
  EXPECT_EQ(reply.Json().at("html").as_string(), reply_html);
  EXPECT_EQ(ListedHtml(reply_id), reply_html);
  auto replies = c.Get(CommentPath(id) + "/replies");
  ASSERT_EQ(replies.status, 200) << replies.body;
  EXPECT_EQ(replies.Json().at("items").at(0).at("html").as_string(), reply_html);

  // An edit renders the new text; the stored row holds it.
  auto edited = c.Patch(CommentPath(id), BodyJson("now *plain*"), Bearer(root_));
  ASSERT_EQ(edited.status, 200) << edited.body;
  EXPECT_EQ(edited.Json().at("html").as_string(), "<p>now <em>plain</em></p>");
  EXPECT_EQ(ListedHtml(id), "<p>now <em>plain</em></p>");
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE id = $1 AND html = "
                   "'<p>now <em>plain</em></p>'",
                   id),
            1);

  // A delete takes it with the body (a placeholder: the reply keeps it listed).
  ASSERT_EQ(c.Delete(CommentPath(id), Bearer(root_)).status, 204);
  EXPECT_EQ(ListedHtml(id), "");
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE id = $1 AND html = ''", id), 1);
}

TEST_P(CommentTextTest, TheQueueShowsItAndAModeratorsRestoreGivesItBack) {
  auto c = Client();
  auto posted = c.Post(CommentsPath(), BodyJson("keep *this*"), Bearer(root_));
  ASSERT_EQ(posted.status, 201) << posted.body;
  const int64_t id = posted.Json().at("id").as_int64();
  auto moderate = [&](const char* action) {
    auto r = c.Post("/api/v1/moderation/comments",
                    R"({"ids":[)" + std::to_string(id) + R"(],"action":")" + action + "\"}",
                    Bearer(root_));
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.Json().at("results").at(std::to_string(id)).as_string(), "ok") << r.body;
  };
  moderate("spam");
  auto queue = c.Get("/api/v1/moderation/comments?status=spam", Bearer(root_));
  ASSERT_EQ(queue.status, 200) << queue.body;
  EXPECT_EQ(queue.Json().at("items").at(0).at("html").as_string(), "<p>keep <em>this</em></p>");
  EXPECT_EQ(c.Get(CommentPath(id)).status, 404);
  moderate("restore");
  moderate("delete");
  EXPECT_EQ(c.Get(CommentPath(id)).status, 404);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE id = $1 AND html = ''", id), 1);
  moderate("restore");
  EXPECT_EQ(c.Get(CommentPath(id)).Json().at("html").as_string(), "<p>keep <em>this</em></p>");
  EXPECT_EQ(ListedHtml(id), "<p>keep <em>this</em></p>");
}

// A comment from before html was stored: its row has html '' and its cached hash no "html"
// field (as the earlier release wrote it). An instance starting on that data renders the row
// before it serves, and takes the old hash for a miss, so readers get the html.
TEST_P(CommentTextTest, CommentsFromBeforeHtmlAreRenderedAtStartUp) {
  auto c = Client();
  std::vector<int64_t> ids;
  for (const char* body : {"old *one*", "old **two**", "three https://ok.example/"}) {
    auto posted = c.Post(CommentsPath(), BodyJson(body), Bearer(root_));
    ASSERT_EQ(posted.status, 201) << posted.body;
    ids.push_back(posted.Json().at("id").as_int64());
  }
  ASSERT_EQ(ListedHtml(ids[0]), "<p>old <em>one</em></p>");  // cached now
  ASSERT_EQ(SqlExec("UPDATE comments SET html = '' WHERE article_id = $1", {article_}), 3);
  for (int64_t id : ids) {
    ASSERT_EQ(redis_.Cli("HDEL " + redis::keys::Comment(id) + " html"), "1");
  }
  const int64_t ver = SqlInt("SELECT ver FROM comments WHERE id = $1", ids[0]);

  auto started = SecondInstance();
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE article_id = $1 AND html = ''", article_),
            0);
  EXPECT_EQ(SqlInt("SELECT ver FROM comments WHERE id = $1", ids[0]), ver);  // no new version
  auto r = started->Client().Get(CommentPath(ids[1]));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json().at("html").as_string(), "<p>old <strong>two</strong></p>");
  auto page = started->Client().Get(CommentsPath());
  ASSERT_EQ(page.status, 200) << page.body;
  const boost::json::value json = page.Json();
  for (const auto& item : json.at("items").as_array()) {
    EXPECT_NE(item.at("html").as_string(), "") << page.body;
  }
  // The refill put the html into the hash the earlier release wrote.
  EXPECT_EQ(redis_.Cli("HGET " + redis::keys::Comment(ids[2]) + " html"),
            "<p>three <a href=\"https://ok.example/\"" + std::string(kUgc) +
                ">https://ok.example/</a></p>");
}

TEST_P(CommentTextTest, MentionsMarkTheThreadsParticipantsOnly) {
  auto c = Client();
  Register("bobby");
  Register("carol");
  const std::string bobby = Login("bobby");
  auto first = c.Post(CommentsPath(), BodyJson("first"), Bearer(bobby));
  ASSERT_EQ(first.status, 201) << first.body;
  // bobby wrote here and root wrote the article; carol exists but took no part.
  auto posted =
      c.Post(CommentsPath(), BodyJson("@Bobby, @root and @carol: `@bobby` mail@bobby.example"),
             Bearer(root_));
  ASSERT_EQ(posted.status, 201) << posted.body;
  const std::string html(posted.Json().at("html").as_string());
  EXPECT_TRUE(html.starts_with(
      "<p><span class=\"mention\">@Bobby</span>, <span class=\"mention\">@root</span> and "
      "@carol: <code>@bobby</code> <a href=\"mailto:mail@bobby.example\""))
      << html;
  // An edit marks them again, by who takes part then.
  auto edited =
      c.Patch(CommentPath(posted.Json().at("id").as_int64()), BodyJson("@carol?"), Bearer(root_));
  ASSERT_EQ(edited.status, 200) << edited.body;
  EXPECT_EQ(edited.Json().at("html").as_string(), "<p>@carol?</p>");
}

TEST_P(CommentTextTest, APreviewRendersWithoutStoringAnything) {
  auto c = Client();
  const int64_t before = SqlInt("SELECT COUNT(*) FROM comments");
  auto r = c.Post("/api/v1/comments/preview", BodyJson("*x* <b>y</b>"));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json().at("html").as_string(), "<p><em>x</em> &lt;b&gt;y&lt;/b&gt;</p>");
  for (const char* bad : {R"({"body":""})", R"({"body":"x","other":1})", R"({"body":3})", "[]"}) {
    auto refused = c.Post("/api/v1/comments/preview", bad);
    EXPECT_EQ(refused.status, 400) << bad << ": " << refused.body;
  }
  auto long_body = c.Post("/api/v1/comments/preview", BodyJson(std::string(10001, 'a')));
  EXPECT_EQ(long_body.status, 400) << long_body.body;
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments"), before);
}

// What an earlier release left: it deleted (or edited) a comment without knowing html, so the
// row and the hash still hold the old rendering. A deleted comment has no text for anyone.
TEST_P(CommentTextTest, ADeletedCommentServesNoHtmlWhateverTheRowStillHolds) {
  auto c = Client();
  auto top = c.Post(CommentsPath(), BodyJson("secret *text*"), Bearer(root_));
  ASSERT_EQ(top.status, 201) << top.body;
  const int64_t id = top.Json().at("id").as_int64();
  auto reply = c.Post(CommentsPath(), R"({"body":"a reply","parentId":)" + std::to_string(id) + "}",
                      Bearer(root_));
  ASSERT_EQ(reply.status, 201) << reply.body;
  ASSERT_EQ(c.Delete(CommentPath(id), Bearer(root_)).status, 204);
  // The older release's delete: body emptied, html kept, in SQL and in the hash.
  ASSERT_EQ(SqlExec("UPDATE comments SET html = '<p>secret</p>' WHERE id = $1", {id}), 1);
  ASSERT_EQ(redis_.Cli("HSET " + redis::keys::Comment(id) + " html '<p>secret</p>'"), "0");
  EXPECT_EQ(ListedHtml(id), "");  // the placeholder, in the list
  auto single = c.Get(CommentPath(id));
  ASSERT_EQ(single.status, 200) << single.body;
  EXPECT_EQ(single.Json().at("html").as_string(), "") << single.body;
  EXPECT_EQ(c.Get(CommentPath(id), Bearer(root_)).Json().at("html").as_string(), "");
}

// A hash filled with an empty html (a row start-up had not rendered, e.g. one an older release
// wrote meanwhile) takes SQL's rendering at the same version when the thread is refilled.
TEST_P(CommentTextTest, AnEmptyCachedHtmlIsReplacedBySqlsAtTheSameVersion) {
  auto c = Client();
  auto posted = c.Post(CommentsPath(), BodyJson("*late*"), Bearer(root_));
  ASSERT_EQ(posted.status, 201) << posted.body;
  const int64_t id = posted.Json().at("id").as_int64();
  ASSERT_EQ(ListedHtml(id), "<p><em>late</em></p>");
  ASSERT_EQ(redis_.Cli("HSET " + redis::keys::Comment(id) + " html ''"), "0");
  ASSERT_EQ(c.Get(CommentPath(id)).Json().at("html").as_string(), "");  // as cached
  // The thread's cache goes (as after a FLUSHALL of it): the next read rebuilds it from SQL.
  ASSERT_EQ(redis_.Cli("DEL " + redis::keys::CommentMeta(article_)), "1");
  EXPECT_EQ(ListedHtml(id), "<p><em>late</em></p>");
  EXPECT_EQ(c.Get(CommentPath(id)).Json().at("html").as_string(), "<p><em>late</em></p>");
}

// Each start looks only at the comments after the last pass's end: one an older release wrote
// after it is rendered at the next start; the rest of the table is not read again.
TEST_P(CommentTextTest, StartUpRendersOnlyWhatCameAfterItsLastPass) {
  auto c = Client();
  auto first = c.Post(CommentsPath(), BodyJson("first *one*"), Bearer(root_));
  ASSERT_EQ(first.status, 201) << first.body;
  const int64_t first_id = first.Json().at("id").as_int64();
  SecondInstance();  // a pass up to first_id
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM plaudit_meta WHERE \"key\" = 'comment_html_through' "
                   "AND value = '" +
                   std::to_string(first_id) + "'"),
            1);
  auto later = c.Post(CommentsPath(), BodyJson("later *one*"), Bearer(root_));
  ASSERT_EQ(later.status, 201) << later.body;
  const int64_t later_id = later.Json().at("id").as_int64();
  ASSERT_EQ(SqlExec("UPDATE comments SET html = '' WHERE id IN ($1, $2)", {first_id, later_id}), 2);
  SecondInstance();
  EXPECT_EQ(
      SqlInt("SELECT COUNT(*) FROM comments WHERE id = $1 AND html = '<p>later <em>one</em></p>'",
             later_id),
      1);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE id = $1 AND html = ''", first_id), 1);
}

class CommentImagesTest : public CommentTextTest {
 protected:
  void Configure(config::Config& c) override {
    c.rate_limits = false;
    c.comment_images = images_;
  }
  bool images_ = true;
};

TEST_P(CommentImagesTest, ImagesShowOnlyWhereTheSiteAllowsThem) {
  auto posted = Client().Post(CommentsPath(), BodyJson("![a cat](https://img.example/cat.png)"),
                              Bearer(root_));
  ASSERT_EQ(posted.status, 201) << posted.body;
  EXPECT_EQ(posted.Json().at("html").as_string(),
            "<p><img src=\"https://img.example/cat.png\" alt=\"a cat\"></p>");
}

TEST_P(CommentTextTest, ImagesAreTheirAltTextByDefault) {
  auto posted = Client().Post(CommentsPath(), BodyJson("![a cat](https://img.example/cat.png)"),
                              Bearer(root_));
  ASSERT_EQ(posted.status, 201) << posted.body;
  EXPECT_EQ(posted.Json().at("html").as_string(), "<p>a cat</p>");
}

INSTANTIATE_TEST_SUITE_P(Databases, CommentTextTest, AllDbs(), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, CommentImagesTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
