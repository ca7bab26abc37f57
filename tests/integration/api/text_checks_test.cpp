// Issue 41, item 14: a body of only U+200B counted as not blank; bidi controls were accepted
// in bodies, titles and display names; anyone could take the admin's display name.
#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

class TextChecksTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override { c.rate_limits = false; }

  HttpResponse SignUp(const std::string& name, const std::string& display) {
    return Client().Post("/api/v1/users", R"({"username":")" + name +
                                              R"(","password":"password123","displayName":")" +
                                              display + "\"}");
  }

  int64_t Users() { return SqlInt("SELECT COUNT(*) FROM users"); }
};

TEST_P(TextChecksTest, InvisibleOnlyBodiesAreBlankAndBidiEmbeddingsAreStripped) {
  const std::string root = Login("root", "rootpassword");
  auto c = Client();
  const int64_t article = PublishArticle(root);
  ASSERT_NE(article, 0);
  const std::string path = "/api/v1/articles/" + std::to_string(article) + "/comments";
  for (const char* body : {"\u200B", "\u200B \u200C\u2060\uFEFF", "\u0301\u0301", "\u202E"}) {
    auto r = c.Post(path, std::string(R"({"body":")") + body + "\"}", Bearer(root));
    EXPECT_EQ(r.status, 400) << r.body;
    EXPECT_EQ(r.ErrorCode(), "invalid_field");
  }
  auto r = c.Post(path, R"({"body":"see gnp.\u202Eexe\u202C, \u05D0\u200F!"})", Bearer(root));
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json().at("body").as_string(), "see gnp.exe, \u05D0\u200F!");
  EXPECT_EQ(c.Get("/api/v1/comments/" + std::to_string(r.Json().at("id").as_int64()))
                .Json()
                .at("body")
                .as_string(),
            "see gnp.exe, \u05D0\u200F!");
}

TEST_P(TextChecksTest, TitlesAndDisplayNamesRefuseBidiControlsAndInvisibleOnlyText) {
  const std::string root = Login("root", "rootpassword");
  auto c = Client();
  for (const char* title : {"\u200B", "evil\u202Etxt.exe", "a\u2066b", "x\u200Fy"}) {
    auto r =
        c.Post("/api/v1/articles",
               std::string(R"({"title":")") + title + R"(","content":"c","status":"published"})",
               Bearer(root));
    EXPECT_EQ(r.status, 400) << title << r.body;
  }
  for (const char* name : {"evil\u202Enimda", "\u2067x", "a\u200Eb"}) {
    auto r = SignUp("eve", name);
    EXPECT_EQ(r.status, 400) << r.body;
  }
  // Invisible-only is blank: the username, as for an empty one.
  auto r = SignUp("zed", "\u200B\u200B");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Json().at("displayName").as_string(), "zed");
}

TEST_P(TextChecksTest, NobodyCanTakeANameThatLooksLikeAnotherUsers) {
  Register("alice");
  const int64_t before = Users();
  // The admin's username, and alice's, in look-alike spellings: Cyrillic letters, case,
  // invisible characters, full-width forms, digits for letters.
  for (const char* display : {"root", "Root", "r\u043E\u043Et", "r\u200Boot",
                              "\uFF52\uFF4F\uFF4F\uFF54", "r00t", "ALICE", "\u0430lice"}) {
    auto r = SignUp("mallory", display);
    EXPECT_EQ(r.status, 409) << display << " " << r.body;
    EXPECT_EQ(r.ErrorCode(), "conflict");
  }
  // A username that looks like a display name taken already.
  ASSERT_EQ(SignUp("carol", "Mister Bond").status, 201);
  EXPECT_EQ(SignUp("misterbond", "").status, 201);  // no space: another name
  EXPECT_EQ(SignUp("dave", "mister  bond").status, 409);
  EXPECT_EQ(Users(), before + 2);
  // A name of one's own may look like one's username.
  EXPECT_EQ(SignUp("erin", "Erin").status, 201);
}

// A display name whose skeleton is far longer than the name (NFKC folds U+FDFA into 18 code
// points: 64 of them, 1,152) still signs up on every database (its key is its skeleton's first
// 768 code points, what MySQL's key column holds), and still keeps its look-alikes out.
TEST_P(TextChecksTest, ANameWithAHugeSkeletonSignsUpAndKeepsItsLookAlikesOut) {
  std::string display;
  for (int i = 0; i < 64; ++i) {
    display += "\uFDFA";
  }
  auto r = SignUp("longname", display);
  ASSERT_EQ(r.status, 201) << r.body;
  std::string almost = display;
  almost.resize(almost.size() - 3);  // one U+FDFA (3 bytes) fewer: 63, still 768+ points alike
  auto twin = SignUp("twin", almost);
  EXPECT_EQ(twin.status, 409) << twin.body;
}

// Accounts made before migration 018 (names_keyed = 0) are keyed by the next sign-up, oldest
// first: look-alikes among them keep their names, and nobody new can take either.
TEST_P(TextChecksTest, OlderLookAlikesAreKeptAndKeyedByTheNextSignUp) {
  std::function<Result<int64_t>(sql::Connection&)> job = [](sql::Connection& c) -> Result<int64_t> {
    for (const char* name : {"oldbob", "oldbob2"}) {
      auto r = c.Query(
          "INSERT INTO users (username, username_key, display_name, password_hash, role, "
          "created_at, updated_at) VALUES ($1, $1, 'Bob', '!', 'user', 1, 1)",
          {std::string(name)});
      if (!r) {
        return tl::unexpected(r.error());
      }
    }
    return int64_t{0};
  };
  ASSERT_TRUE(OnLoop(app_->app().store().Run<int64_t>(std::move(job))));
  auto r = SignUp("carol", "Carol");
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(SignUp("mallory", "B\u043Eb").status, 409);
  EXPECT_EQ(SignUp("oldbob3", "").status, 201);
  std::function<Result<int64_t>(sql::Connection&)> owner =
      [](sql::Connection& c) -> Result<int64_t> {
    auto r = c.Query(
        "SELECT u.username_key FROM user_name_keys k JOIN users u ON u.id = k.user_id "
        "WHERE k.name_key = 'bob'");
    if (!r) {
      return tl::unexpected(r.error());
    }
    return r->rows.size() == 1 && sql::Text(r->rows[0][0]) == "oldbob" ? 1 : 0;
  };
  EXPECT_EQ(OnLoop(app_->app().store().Run<int64_t>(std::move(owner))).value(), 1);
}

INSTANTIATE_TEST_SUITE_P(Databases, TextChecksTest, AllDbs(), DbName);

}  // namespace
}  // namespace plaudit::testing
