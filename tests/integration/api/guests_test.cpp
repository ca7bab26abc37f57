// API.md "Guests and sign-in from elsewhere", guests: a comment without an account, its edit
// token, and what a guest must not be able to do (impersonate, like, touch another's comment,
// flood). On SQLite and PostgreSQL, and (api_tests_cluster) on two instances of a cluster.
#include <gtest/gtest.h>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

class GuestsTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.guests = mode_;
    c.sites = SiteList::Parse("https://blog.example").value();
    c.limit_guest_address = RateLimit{};
  }
  void SetUp() override {
    ApiTest::SetUp();
    article_ = PublishArticle(AuthorToken("writer"));
  }
  std::string CommentsPath() const {
    return "/api/v1/articles/" + std::to_string(article_) + "/comments";
  }
  // POST as a guest; the answer.
  HttpResponse Post(const std::string& guest, const std::string& body = "hello",
                    const std::string& extra = "") {
    return Client().Post(CommentsPath(),
                         R"({"body":")" + body + R"(","guest":)" + guest + extra + "}");
  }
  static HttpClient::Headers Token(const std::string& t) { return {{"Plaudit-Edit-Token", t}}; }
  int64_t Comments() { return SqlInt("SELECT COUNT(*) FROM comments"); }

  std::string mode_ = "on";
  int64_t article_ = 0;
};

TEST_P(GuestsTest, AGuestPostsEditsAndDeletesWithItsTokenAlone) {
  auto r = Post(R"({"name":"  Wanderer ","email":"w@mail.example"})");
  ASSERT_EQ(r.status, 201) << r.body;
  const auto posted = r.Json();
  const int64_t id = posted.at("id").as_int64();
  const std::string token(posted.at("editToken").as_string());
  EXPECT_EQ(token.size(), 43u);
  EXPECT_EQ(posted.at("status").as_string(), "approved");
  const auto& author = posted.at("author").as_object();
  EXPECT_TRUE(author.at("id").is_null());
  EXPECT_EQ(author.at("displayName").as_string(), "Wanderer");
  EXPECT_TRUE(author.at("guest").as_bool());
  EXPECT_EQ(author.size(), 3u);  // no username, no e-mail
  EXPECT_EQ(r.body.find("mail.example"), std::string::npos);
  // Only the token's hash is kept.
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE edit_token_hash = $1",
                   std::vector<sql::Value>{token}),
            0);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM comments WHERE guest_email = 'w@mail.example'"), 1);

  // Readers see the guest by name, and never the e-mail.
  auto list = Client().Get(CommentsPath());
  ASSERT_EQ(list.status, 200);
  EXPECT_NE(list.body.find(R"("author":{"id":null,"displayName":"Wanderer","guest":true})"),
            std::string::npos)
      << list.body;
  EXPECT_EQ(list.body.find("mail.example"), std::string::npos);
  auto one = Client().Get("/api/v1/comments/" + std::to_string(id));
  EXPECT_EQ(one.body.find("mail.example"), std::string::npos);

  const std::string path = "/api/v1/comments/" + std::to_string(id);
  EXPECT_EQ(Client().Patch(path, R"({"body":"changed"})").status, 401);
  EXPECT_EQ(Client().Patch(path, R"({"body":"changed"})", Token(token + "x")).status, 403);
  EXPECT_EQ(Client().Patch(path, R"({"body":"changed"})", Token("")).status, 401);
  auto edited = Client().Patch(path, R"({"body":"changed"})", Token(token));
  ASSERT_EQ(edited.status, 200) << edited.body;
  EXPECT_EQ(edited.Json().at("body").as_string(), "changed");
  EXPECT_TRUE(edited.Json().at("author").at("guest").as_bool());

  // Guests cannot like.
  EXPECT_EQ(Client().Put(path + "/like").status, 401);
  EXPECT_EQ(Client().Put(path + "/like", "", Token(token)).status, 401);

  EXPECT_EQ(Client().Delete(path, Token(token)).status, 204);
  EXPECT_EQ(Client().Get(path).status, 404);
  EXPECT_EQ(Client().Delete(path, Token(token)).status, 404);
}

TEST_P(GuestsTest, OneGuestsTokenTouchesNoOtherComment) {
  auto a = Post(R"({"name":"Ann"})", "from ann");
  auto b = Post(R"({"name":"Bob"})", "from bob");
  ASSERT_EQ(a.status, 201);
  ASSERT_EQ(b.status, 201);
  const std::string token_a(a.Json().at("editToken").as_string());
  const std::string bob = "/api/v1/comments/" + std::to_string(b.Json().at("id").as_int64());
  EXPECT_EQ(Client().Patch(bob, R"({"body":"by ann"})", Token(token_a)).status, 403);
  EXPECT_EQ(Client().Delete(bob, Token(token_a)).status, 403);
  // Nor an account's comment, nor one that does not exist.
  const std::string reader = Login("root", "rootpassword");
  auto own = Client().Post(CommentsPath(), R"({"body":"an account's"})", Bearer(reader));
  ASSERT_EQ(own.status, 201);
  const std::string own_path = "/api/v1/comments/" + std::to_string(own.Json().at("id").as_int64());
  EXPECT_EQ(Client().Delete(own_path, Token(token_a)).status, 404);
  EXPECT_EQ(Client().Delete("/api/v1/comments/999999", Token(token_a)).status, 404);
  // Bob's comment is as it was.
  auto still = Client().Get(bob);
  ASSERT_EQ(still.status, 200);
  EXPECT_EQ(still.Json().at("body").as_string(), "from bob");
  EXPECT_FALSE(still.Json().at("deleted").as_bool());
}

TEST_P(GuestsTest, AGuestCannotTakeARegisteredUsersName) {
  Register("alice");
  const int64_t before = Comments();
  // The same name in other cases, and in look-alike letters (Cyrillic А, digit 1 for l).
  for (std::string name :
       std::vector<std::string>{"alice", "ALICE", "\xD0\x90lice", "a1ice", "Root"}) {
    auto r = Post(R"({"name":")" + name + R"("})");
    EXPECT_EQ(r.status, 409) << name << ": " << r.body;
  }
  EXPECT_EQ(Comments(), before);
  EXPECT_EQ(Post(R"({"name":"Alicia"})").status, 201);
}

TEST_P(GuestsTest, BadGuestsAreRefusedAndChangeNothing) {
  const int64_t before = Comments();
  for (const std::string& guest : std::vector<std::string>{
           R"({})", R"({"name":""})", R"({"name":"   "})",
           R"({"name":")" + std::string(51, 'x') + "\"}", R"({"name":"a\u0007b"})",
           R"({"name":"a\u202Eb"})", R"({"name":"A","email":"nope"})",
           R"({"name":"A","email":"a@b@c"})", R"({"name":"A","url":"x"})", R"("A")", R"(null)",
           R"({"name":7})"}) {
    auto r = Post(guest);
    EXPECT_EQ(r.status, 400) << guest << ": " << r.body;
  }
  EXPECT_EQ(Post(R"({"name":")" + std::string(50, 'x') + "\"}").status, 201);
  EXPECT_EQ(Comments(), before + 1);
  // Without "guest" (or without a JSON body at all) a post needs a session, as before guests.
  EXPECT_EQ(Client().Post(CommentsPath(), R"({"body":"who am I"})").status, 401);
  EXPECT_EQ(Client().Post(CommentsPath(), "not json").status, 401);
  EXPECT_EQ(Client()
                .Post("/api/v1/pages/comments?url=https%3A%2F%2Fblog.example%2Fp%2F9", "not json")
                .status,
            401);
  // A signed-in writer posts as themself: "guest" is no field of theirs.
  auto signed_in = Client().Post(CommentsPath(), R"({"body":"x","guest":{"name":"Other"}})",
                                 Bearer(Login("root", "rootpassword")));
  EXPECT_EQ(signed_in.status, 400) << signed_in.body;
}

TEST_P(GuestsTest, AReplyToAGuestAnswersNoAccount) {
  auto top = Post(R"({"name":"Ann"})", "top");
  ASSERT_EQ(top.status, 201);
  const int64_t top_id = top.Json().at("id").as_int64();
  auto reply = Post(R"({"name":"Bob"})", "reply", R"(,"parentId":)" + std::to_string(top_id));
  ASSERT_EQ(reply.status, 201) << reply.body;
  // A reply to Bob's reply: placed under Ann's comment, answering nobody's account.
  const std::string reader = Login("root", "rootpassword");
  auto answer = Client().Post(
      CommentsPath(),
      R"({"body":"answer","parentId":)" + std::to_string(reply.Json().at("id").as_int64()) + "}",
      Bearer(reader));
  ASSERT_EQ(answer.status, 201) << answer.body;
  EXPECT_EQ(answer.Json().at("parentId").as_int64(), top_id);
  EXPECT_TRUE(answer.Json().at("replyTo").is_null());
  // Naming the guests' reserved account as the one answered is refused.
  const int64_t guest_account = SqlInt("SELECT id FROM users WHERE username = '@guest'");
  auto named = Client().Post(
      CommentsPath(), R"({"body":"x","replyToUserId":)" + std::to_string(guest_account) + "}",
      Bearer(reader));
  EXPECT_EQ(named.status, 400) << named.body;
}

TEST_P(GuestsTest, TheGuestsAccountCannotBeBannedPromotedOrSignedInTo) {
  const std::string admin = Login("root", "rootpassword");
  const std::string guest_account =
      std::to_string(SqlInt("SELECT id FROM users WHERE username = '@guest'"));
  EXPECT_EQ(Client().Put("/api/v1/users/" + guest_account + "/ban", "{}", Bearer(admin)).status,
            403);
  EXPECT_EQ(
      Client().Patch("/api/v1/users/" + guest_account, R"({"role":"admin"})", Bearer(admin)).status,
      403);
  auto c = Client();
  EXPECT_EQ(SignIn(c, "@guest", "!").status, 401);
}

TEST_P(GuestsTest, ProvidersSayGuestsAreWelcome) {
  auto r = Client().Get("/api/v1/auth/providers");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Json().at("guests").as_string(), "on");
  EXPECT_TRUE(r.Json().at("items").as_array().empty());
}

TEST_P(GuestsTest, AGuestPostsOnAPageThread) {
  auto r = Client().Post("/api/v1/pages/comments?url=https%3A%2F%2Fblog.example%2Fp%2F1",
                         R"({"body":"on a page","title":"P","guest":{"name":"Passer-by"}})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json().at("editToken").as_string().size(), 43u);
  EXPECT_TRUE(r.Json().at("author").at("guest").as_bool());
  // A refused guest creates no thread.
  const int64_t threads = SqlInt("SELECT COUNT(*) FROM pages");
  auto bad = Client().Post("/api/v1/pages/comments?url=https%3A%2F%2Fblog.example%2Fp%2F2",
                           R"({"body":"x","guest":{"name":""}})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM pages"), threads);
}

INSTANTIATE_TEST_SUITE_P(Db, GuestsTest, AllDbs(), DbName);

class GuestsOffTest : public GuestsTest {
 protected:
  GuestsOffTest() { mode_ = "off"; }
};

TEST_P(GuestsOffTest, AGuestIsAskedToSignInAndNothingIsStored) {
  auto r = Post(R"({"name":"Wanderer"})");
  EXPECT_EQ(r.status, 401) << r.body;
  auto page = Client().Post("/api/v1/pages/comments?url=https%3A%2F%2Fblog.example%2Fp%2F1",
                            R"({"body":"x","guest":{"name":"Passer-by"}})");
  EXPECT_EQ(page.status, 401) << page.body;
  EXPECT_EQ(Comments(), 0);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM pages"), 0);
  EXPECT_EQ(Client().Get("/api/v1/auth/providers").Json().at("guests").as_string(), "off");
}

INSTANTIATE_TEST_SUITE_P(Db, GuestsOffTest, AllDbs(), DbName);

class ModeratedGuestsTest : public GuestsTest {
 protected:
  ModeratedGuestsTest() { mode_ = "moderated"; }
};

TEST_P(ModeratedGuestsTest, AGuestsCommentWaitsAndOnlyItsTokenSeesIt) {
  auto r = Post(R"({"name":"Wanderer","email":"w@mail.example"})");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json().at("status").as_string(), "pending");
  const int64_t id = r.Json().at("id").as_int64();
  const std::string token(r.Json().at("editToken").as_string());
  const std::string path = "/api/v1/comments/" + std::to_string(id);
  // Nobody else sees it: not in the list, not in the count, not by id.
  auto list = Client().Get(CommentsPath());
  EXPECT_TRUE(list.Json().at("items").as_array().empty()) << list.body;
  EXPECT_EQ(Client().Get("/api/v1/articles/" + std::to_string(article_)).Json().at("commentCount"),
            0);
  EXPECT_EQ(Client().Get(path).status, 404);
  // The guest does, by the token; it cannot be edited while held.
  auto mine = Client().Get(path, Token(token));
  ASSERT_EQ(mine.status, 200) << mine.body;
  EXPECT_EQ(mine.Json().at("status").as_string(), "pending");
  EXPECT_EQ(Client().Patch(path, R"({"body":"x"})", Token(token)).status, 409);
  // The queue shows why, and the e-mail to admins.
  const std::string admin = Login("root", "rootpassword");
  auto queue = Client().Get("/api/v1/moderation/comments?status=pending", Bearer(admin));
  ASSERT_EQ(queue.status, 200) << queue.body;
  const auto items = queue.Json().at("items").as_array();
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].at("reasons").as_array().at(0).as_string(), "guest");
  EXPECT_EQ(items[0].at("guestEmail").as_string(), "w@mail.example");
  auto approved =
      Client().Post("/api/v1/moderation/comments",
                    R"({"ids":[)" + std::to_string(id) + R"(],"action":"approve"})", Bearer(admin));
  ASSERT_EQ(approved.status, 200) << approved.body;
  auto after = Client().Get(CommentsPath());
  ASSERT_EQ(after.Json().at("items").as_array().size(), 1u) << after.body;
  EXPECT_EQ(Client().Get(path).status, 200);
}

INSTANTIATE_TEST_SUITE_P(Db, ModeratedGuestsTest, AllDbs(), DbName);

class GuestLimitTest : public GuestsTest {
 protected:
  void Configure(config::Config& c) override {
    GuestsTest::Configure(c);
    c.limit_guest_address = RateLimit{3, 10 * 60'000};
    c.duplicate_window_s = 600;
  }
};

TEST_P(GuestLimitTest, GuestsFromOneAddressAreLimitedAndRepeatsRefused) {
  EXPECT_EQ(Post(R"({"name":"A"})", "one").status, 201);
  // The same text again from the same address, under another name: a duplicate.
  EXPECT_EQ(Post(R"({"name":"B"})", "one").status, 409);
  EXPECT_EQ(Post(R"({"name":"C"})", "three").status, 201);
  auto limited = Post(R"({"name":"D"})", "four");
  EXPECT_EQ(limited.status, 429) << limited.body;
  EXPECT_FALSE(limited.Header("retry-after").empty());
  EXPECT_EQ(Comments(), 2);
  // An account is not limited by the guests' budget.
  auto own =
      Client().Post(CommentsPath(), R"({"body":"mine"})", Bearer(Login("root", "rootpassword")));
  EXPECT_EQ(own.status, 201);
}

INSTANTIATE_TEST_SUITE_P(Db, GuestLimitTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
