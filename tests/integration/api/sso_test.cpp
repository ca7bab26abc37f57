// API.md "Guests and sign-in from elsewhere", site sign-in: a host site's HS256 token becomes
// a session for the account of (site, sub). Forged, stale, far-future, replayed and other
// sites' tokens are refused, each creating nothing. On SQLite and PostgreSQL, and
// (api_tests_cluster) on two instances of a cluster.
#include <gtest/gtest.h>

#include "api_test_base.hpp"
#include "common/time.hpp"
#include "support/jwt.hpp"

namespace plaudit::testing {
namespace {

constexpr std::string_view kSecret = "blog-secret-0123456789abcdef-0123456789";
constexpr std::string_view kOtherSecret = "other-secret-0123456789abcdef-012345678";

class SsoTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.sites = SiteList::Parse("https://blog.example,https://other.example").value();
    c.sso = {{"https://blog.example", std::string(kSecret)}};
  }
  // A token as the host site signs it: `jti` fresh unless given; `extra` claims appended.
  std::string Token(const std::string& sub, const std::string& name, std::string jti = {},
                    int64_t exp_in_s = 300, const std::string& iss = "https://blog.example",
                    std::string_view secret = kSecret) {
    if (jti.empty()) {
      jti = "j-" + std::to_string(++jti_);
    }
    const int64_t exp = NowMs() / 1000 + exp_in_s;
    return test::SignHs256(R"({"iss":")" + iss + R"(","sub":")" + sub + R"(","name":")" + name +
                               R"(","jti":")" + jti + R"(","exp":)" + std::to_string(exp) + "}",
                           secret);
  }
  HttpResponse SignInWith(const std::string& token) {
    return Client().Post("/api/v1/sessions/sso", R"({"token":")" + token + R"("})");
  }
  int64_t Users() { return SqlInt("SELECT COUNT(*) FROM users"); }
  int jti_ = 0;
};

TEST_P(SsoTest, ASignedTokenSignsTheSitesReaderInAsOneAccount) {
  auto r = SignInWith(Token("u-42", "Ada"));
  ASSERT_EQ(r.status, 201) << r.body;
  const auto first = r.Json();
  const int64_t id = first.at("user").at("id").as_int64();
  EXPECT_EQ(first.at("user").at("displayName").as_string(), "Ada");
  EXPECT_EQ(first.at("user").at("role").as_string(), "user");
  EXPECT_TRUE(first.at("user").at("username").as_string().starts_with("sso-"));
  EXPECT_FALSE(r.Header("set-cookie").empty());
  const std::string session(first.at("token").as_string());
  // The same session as a password gives: it comments, and /users/me knows it.
  auto me = Client().Get("/api/v1/users/me", Bearer(session));
  ASSERT_EQ(me.status, 200);
  EXPECT_EQ(me.Json().at("id").as_int64(), id);
  const int64_t article = PublishArticle(AuthorToken("writer"));
  auto c = Client().Post("/api/v1/articles/" + std::to_string(article) + "/comments",
                         R"({"body":"from the blog"})", Bearer(session));
  ASSERT_EQ(c.status, 201) << c.body;
  EXPECT_EQ(c.Json().at("author").at("id").as_int64(), id);

  // Next time (a new token) the same account, renamed as the site names them now.
  auto again = SignInWith(Token("u-42", "Ada L."));
  ASSERT_EQ(again.status, 201) << again.body;
  EXPECT_EQ(again.Json().at("user").at("id").as_int64(), id);
  EXPECT_EQ(again.Json().at("user").at("displayName").as_string(), "Ada L.");
  // Another sub is another account.
  auto other = SignInWith(Token("u-43", "Bob"));
  ASSERT_EQ(other.status, 201);
  EXPECT_NE(other.Json().at("user").at("id").as_int64(), id);
  // No password signs in to such an account.
  auto pw = Client();
  EXPECT_EQ(SignIn(pw, std::string(first.at("user").at("username").as_string()), "!").status, 401);
}

TEST_P(SsoTest, EveryForgeryIsRefusedAndCreatesNothing) {
  const int64_t users = Users();
  struct Case {
    std::string what;
    std::string token;
  };
  const int64_t now = NowMs() / 1000;
  const std::vector<Case> cases = {
      {"another site's secret", Token("u-1", "A", {}, 300, "https://blog.example", kOtherSecret)},
      {"a site without sign-in", Token("u-1", "A", {}, 300, "https://other.example", kOtherSecret)},
      {"a site not in --sites", Token("u-1", "A", {}, 300, "https://evil.example", kSecret)},
      {"expired", Token("u-1", "A", {}, -120)},
      {"far future", Token("u-1", "A", {}, 3600)},
      {"alg none", test::Base64Url(R"({"alg":"none"})") + "." +
                       test::Base64Url(R"({"iss":"https://blog.example","sub":"u-1","name":"A",)"
                                       R"("jti":"n","exp":)" +
                                       std::to_string(now + 60) + "}") +
                       "."},
      {"HS512 header", test::SignHs256(R"({"alg":"HS512"})",
                                       R"({"iss":"https://blog.example","sub":"u-1","name":"A",)"
                                       R"("jti":"h","exp":)" +
                                           std::to_string(now + 60) + "}",
                                       kSecret)},
      {"not a JWT", "hello"},
  };
  for (const Case& c : cases) {
    auto r = SignInWith(c.token);
    EXPECT_EQ(r.status, 401) << c.what << ": " << r.body;
    EXPECT_TRUE(r.Header("set-cookie").empty()) << c.what;
  }
  EXPECT_EQ(Users(), users);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM user_identities"), 0);
  EXPECT_EQ(Client().Post("/api/v1/sessions/sso", R"({"token":7})").status, 400);
  EXPECT_EQ(Client().Post("/api/v1/sessions/sso", R"({"token":"x","sub":"admin"})").status, 400);
}

TEST_P(SsoTest, ATokenIsUsedOnceOnEveryInstance) {
  const std::string token = Token("u-7", "Eve");
  auto first = SignInWith(token);
  ASSERT_EQ(first.status, 201) << first.body;
  auto replay = SignInWith(token);
  EXPECT_EQ(replay.status, 401) << replay.body;
  EXPECT_NE(replay.body.find("already used"), std::string::npos) << replay.body;
  // Another plauditd on the same Redis refuses it too.
  auto peer = SecondInstance();
  auto again = peer->Client().Post("/api/v1/sessions/sso", R"({"token":")" + token + R"("})");
  EXPECT_EQ(again.status, 401) << again.body;
}

TEST_P(SsoTest, ASiteReadersNameNeverLooksLikeAnotherAccount) {
  Register("ada");
  auto r = SignInWith(Token("u-1", "Ada"));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json().at("user").at("displayName").as_string(), "Ada (2)");
  auto s = SignInWith(Token("u-2", "ADA"));
  ASSERT_EQ(s.status, 201) << s.body;
  EXPECT_EQ(s.Json().at("user").at("displayName").as_string(), "ADA (3)");
  // A rename to another account's name keeps the old one.
  auto renamed = SignInWith(Token("u-1", "root"));
  ASSERT_EQ(renamed.status, 201) << renamed.body;
  EXPECT_EQ(renamed.Json().at("user").at("displayName").as_string(), "Ada (2)");
}

TEST_P(SsoTest, BansAndDeletionApplyToSiteAccounts) {
  auto r = SignInWith(Token("u-9", "Mallory"));
  ASSERT_EQ(r.status, 201);
  const int64_t id = r.Json().at("user").at("id").as_int64();
  const std::string admin = Login("root", "rootpassword");
  ASSERT_EQ(Client()
                .Put("/api/v1/users/" + std::to_string(id) + "/ban", R"({"reason":"spam"})",
                     Bearer(admin))
                .status,
            200);
  const int64_t article = PublishArticle(AuthorToken("writer"));
  auto session = SignInWith(Token("u-9", "Mallory"));
  ASSERT_EQ(session.status, 201);
  auto c =
      Client().Post("/api/v1/articles/" + std::to_string(article) + "/comments", R"({"body":"x"})",
                    Bearer(std::string(session.Json().at("token").as_string())));
  EXPECT_EQ(c.status, 403) << c.body;
  // An account its owner deleted: the next sign-in starts a new one.
  auto fresh = SignInWith(Token("u-10", "Zed"));
  const int64_t zed = fresh.Json().at("user").at("id").as_int64();
  ASSERT_EQ(Client()
                .Delete("/api/v1/users/" + std::to_string(zed),
                        Bearer(std::string(fresh.Json().at("token").as_string())))
                .status,
            204);
  auto back = SignInWith(Token("u-10", "Zed"));
  ASSERT_EQ(back.status, 201) << back.body;
  EXPECT_NE(back.Json().at("user").at("id").as_int64(), zed);
}

TEST_P(SsoTest, ProvidersListTheSite) {
  auto r = Client().Get("/api/v1/auth/providers");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(boost::json::serialize(r.Json()),
            R"({"items":[{"name":"https://blog.example","kind":"sso"}],"guests":"off"})");
}

INSTANTIATE_TEST_SUITE_P(Db, SsoTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
