// API.md "Guests and sign-in from elsewhere", OpenID Connect and GitHub: the authorization code
// flow with PKCE against a real OpenID provider (npm's oidc-provider, tests/oidc/provider.mjs)
// and a stand-in of GitHub's endpoints (tests/oidc/github.mjs), both on loopback. The login
// and consent pages are gone through by tests/oidc/login.mjs (cookies and forms, as a browser);
// each test then calls plauditd's callback as the provider's redirect would. What is refused:
// a tampered or replayed state, another browser, a PKCE verifier or a nonce that do not match,
// an ID token signed by a key the provider does not list, a return URL of a foreign origin —
// each with a clear error and no account made. On SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <regex>

#include "api_test_base.hpp"
#include "redis/digest.hpp"
#include "redis/keys.hpp"
#include "support/node_server.hpp"

namespace plaudit::testing {
namespace {

// The output of a shell command (its stdout), trailing newline removed.
std::string RunCommand(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) {
    return out;
  }
  std::array<char, 4096> buf{};
  while (size_t n = std::fread(buf.data(), 1, buf.size(), p)) {
    out.append(buf.data(), n);
  }
  ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
    out.pop_back();
  }
  return out;
}

std::string QueryParam(const std::string& url, const std::string& name) {
  std::smatch m;
  const std::regex re("[?&]" + name + "=([^&#]*)");
  return std::regex_search(url, m, re) ? m[1].str() : std::string();
}

// A provider shared by the suite (its clients are registered per test).
NodeServer& Provider() {
  static NodeServer* provider = new NodeServer("tests/oidc/provider.mjs");
  return *provider;
}

class SocialSignInTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    client_id_ = "plaudit-" + std::to_string(::getpid()) + "-" + std::to_string(++clients_);
    c.sites = SiteList::Parse("https://blog.example").value();
    c.oidc.push_back({"idp", Provider().url(), client_id_, "idp-secret"});
  }
  void SetUp() override {
    ApiTest::SetUp();
    RegisterClient(Provider().url());
  }
  // The provider at `issuer` learns plauditd's redirect URI now that plauditd listens.
  void RegisterClient(const std::string& issuer) {
    HttpClient idp("127.0.0.1", Port(issuer));
    const std::string body = R"({"client_id":")" + client_id_ +
                             R"(","client_secret":"idp-secret","redirect_uris":[")" + Own() +
                             R"(/api/v1/auth/idp/callback"]})";
    ASSERT_EQ(idp.Send(beast::http::verb::put, "/__test/clients", body, "application/json").status,
              204);
  }
  static uint16_t Port(const std::string& url) {
    return static_cast<uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
  }
  std::string Own() const { return "http://127.0.0.1:" + std::to_string(app_->port()); }
  // As a browser of plauditd's origin would ask (Host with the port).
  HttpResponse Plaudit(const std::string& target, const std::string& cookie = {}) {
    HttpClient http("127.0.0.1", app_->port());
    HttpClient::Headers h{{"Host", "127.0.0.1:" + std::to_string(app_->port())}};
    if (!cookie.empty()) {
      h.emplace_back("Cookie", cookie);
    }
    return http.Get(target, h);
  }
  struct Begun {
    std::string location;  // the provider's authorization URL
    std::string binder;    // "plaudit_signin=..." as the browser sends it back
  };
  Begun Start(const std::string& provider = "idp",
              const std::string& return_url = "https://blog.example/post") {
    auto r = Plaudit("/api/v1/auth/" + provider + "/start?return=" + UrlEncode(return_url));
    EXPECT_EQ(r.status, 302) << r.body;
    const std::string cookie = r.Header("set-cookie");
    EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
    EXPECT_NE(cookie.find("Path=/api/v1/auth/"), std::string::npos);
    return {r.Header("location"), cookie.substr(0, cookie.find(';'))};
  }
  // Logs in at the provider as `login`; the URL it redirects back to.
  std::string LoginAt(const std::string& authorize, const std::string& login) {
    const std::string out = RunCommand("node " + SourceDir() + "/tests/oidc/login.mjs '" +
                                       authorize + "' " + login + " '" + Own() + "/api/v1/auth/'");
    EXPECT_EQ(out.rfind(Own() + "/api/v1/auth/idp/callback?", 0), 0u) << out;
    return out.substr(Own().size());
  }
  // The session a signed-in callback page hands to its opener.
  static std::string SessionToken(const HttpResponse& page) {
    std::smatch m;
    static const std::regex re(R"re("token":"([^"]+)")re");
    return std::regex_search(page.body, m, re) ? m[1].str() : std::string();
  }
  // The pending sign-in Redis holds for `state` (JSON), to tamper with as an attacker could not.
  std::string PendingKey(const std::string& state) {
    return redis::keys::SignIn(redis::ShortDigest(state));
  }
  int64_t Users() { return SqlInt("SELECT COUNT(*) FROM users"); }
  int64_t Identities() { return SqlInt("SELECT COUNT(*) FROM user_identities"); }

  std::string client_id_;
  static inline int clients_ = 0;
};

TEST_P(SocialSignInTest, AReaderSignsInAtTheProviderAndComesBackSignedIn) {
  const Begun b = Start();
  EXPECT_EQ(b.location.rfind(Provider().url() + "/auth?", 0), 0u) << b.location;
  EXPECT_EQ(QueryParam(b.location, "code_challenge_method"), "S256");
  EXPECT_EQ(QueryParam(b.location, "code_challenge").size(), 43u);
  EXPECT_EQ(QueryParam(b.location, "nonce").size(), 43u);
  const std::string back = LoginAt(b.location, "alice");
  auto page = Plaudit(back, b.binder);
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.Header("cache-control"), "no-store");
  EXPECT_NE(page.Header("content-security-policy").find("script-src 'nonce-"), std::string::npos);
  EXPECT_NE(page.body.find(R"("origin":"https://blog.example")"), std::string::npos) << page.body;
  const std::string token = SessionToken(page);
  ASSERT_FALSE(token.empty()) << page.body;
  auto me = Client().Get("/api/v1/users/me", Bearer(token));
  ASSERT_EQ(me.status, 200);
  EXPECT_EQ(me.Json().at("displayName").as_string(), "Reader alice");
  EXPECT_TRUE(me.Json().at("username").as_string().starts_with("idp-"));
  const int64_t id = me.Json().at("id").as_int64();

  // Again later: the same account (keyed by the provider's subject).
  const Begun again = Start();
  auto second = Plaudit(LoginAt(again.location, "alice"), again.binder);
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(
      Client().Get("/api/v1/users/me", Bearer(SessionToken(second))).Json().at("id").as_int64(),
      id);
  EXPECT_EQ(Identities(), 1);
  // The callback URL is good once.
  EXPECT_EQ(Plaudit(back, b.binder).status, 401);
}

TEST_P(SocialSignInTest, AStateThatIsForgedReplayedOrFromAnotherBrowserSignsNobodyIn) {
  const int64_t users = Users();
  const Begun b = Start();
  const std::string back = LoginAt(b.location, "mallory");
  const std::string state = QueryParam(back, "state");
  // A forged state.
  std::string forged = back;
  forged.replace(forged.find(state), state.size(), std::string(43, 'A'));
  auto r = Plaudit(forged, b.binder);
  EXPECT_EQ(r.status, 401);
  EXPECT_NE(r.body.find("expired or was already used"), std::string::npos) << r.body;
  // The real callback, in a browser without the binding cookie (login CSRF): refused, and the
  // state is spent.
  r = Plaudit(back);
  EXPECT_EQ(r.status, 401);
  EXPECT_NE(r.body.find("started in another browser"), std::string::npos) << r.body;
  EXPECT_EQ(Plaudit(back, b.binder).status, 401);
  // Another provider's callback path for this state.
  const Begun c = Start();
  const std::string other = LoginAt(c.location, "mallory");
  auto wrong_path = Plaudit("/api/v1/auth/nope/callback" + other.substr(other.find('?')), c.binder);
  EXPECT_EQ(wrong_path.status, 404);
  // The provider's own refusal (the reader said no).
  const Begun d = Start();
  auto denied = Plaudit(
      "/api/v1/auth/idp/callback?error=access_denied&state=" + QueryParam(d.location, "state"),
      d.binder);
  EXPECT_EQ(denied.status, 401);
  EXPECT_NE(denied.body.find("access_denied"), std::string::npos);
  EXPECT_EQ(Users(), users);
  EXPECT_EQ(Identities(), 0);
  EXPECT_TRUE(denied.Header("set-cookie").find("Max-Age=0") != std::string::npos);
}

TEST_P(SocialSignInTest, APkceVerifierOrANonceThatDoNotMatchAreRefused) {
  const int64_t users = Users();
  for (const std::string& field : std::vector<std::string>{"v", "n"}) {
    const Begun b = Start();
    const std::string back = LoginAt(b.location, "eve");
    // What an attacker who swapped the code into another sign-in would hold: this sign-in's
    // PKCE verifier (or nonce) is not the one the code (or ID token) was made for.
    const std::string key = PendingKey(QueryParam(back, "state"));
    std::string pending = redis_.Cli("GET " + key);
    ASSERT_FALSE(pending.empty());
    const std::string marker = "\"" + field + "\":\"";
    const size_t at = pending.find(marker);
    ASSERT_NE(at, std::string::npos) << pending;
    pending.replace(at + marker.size(), 43, std::string(43, 'B'));
    ASSERT_EQ(redis_.Cli("SET " + key + " '" + pending + "' PX 60000"), "OK");
    auto r = Plaudit(back, b.binder);
    EXPECT_EQ(r.status, 401) << field << ": " << r.body;
    EXPECT_NE(
        r.body.find(field == "v" ? "refused the code (invalid_grant)" : "nonce does not match"),
        std::string::npos)
        << r.body;
  }
  EXPECT_EQ(Users(), users);
}

TEST_P(SocialSignInTest, OnlyPagesOfAllowedSitesOrOfPlauditItselfAreReturnedTo) {
  for (const std::string& bad :
       std::vector<std::string>{"https://evil.example/x", "javascript:alert(1)", "/relative",
                                "https://blog.example.evil.example/", "", "//evil.example/"}) {
    auto r = Plaudit("/api/v1/auth/idp/start?return=" + UrlEncode(bad));
    EXPECT_EQ(r.status, 400) << bad << ": " << r.body;
    EXPECT_TRUE(r.Header("location").empty()) << bad;
  }
  EXPECT_EQ(Plaudit("/api/v1/auth/idp/start?return=" + UrlEncode(Own() + "/articles/1")).status,
            302);
  EXPECT_EQ(Plaudit("/api/v1/auth/nope/start?return=" + UrlEncode("https://blog.example/")).status,
            404);
  auto providers = Client().Get("/api/v1/auth/providers");
  EXPECT_EQ(boost::json::serialize(providers.Json().at("items")),
            R"([{"name":"idp","kind":"oidc"}])");
}

INSTANTIATE_TEST_SUITE_P(Db, SocialSignInTest, AllDbs(), DbName);

// An ID token signed by a key the provider does not list (its JWKS serves another key under
// the signing key's kid): refused, nothing made.
class ForgedIdTokenTest : public SocialSignInTest {
 protected:
  void Configure(config::Config& c) override {
    SocialSignInTest::Configure(c);
    c.oidc.back().issuer = Forger().url();
  }
  void SetUp() override {
    ApiTest::SetUp();
    RegisterClient(Forger().url());
    HttpClient idp("127.0.0.1", Port(Forger().url()));
    ASSERT_EQ(
        idp.Send(beast::http::verb::put, "/__test/wrong-keys", "{}", "application/json").status,
        204);
  }
  static NodeServer& Forger() {
    static NodeServer* forger = new NodeServer("tests/oidc/provider.mjs");
    return *forger;
  }
};

TEST_P(ForgedIdTokenTest, AnIdTokenTheProvidersKeysDoNotVerifyIsRefused) {
  const int64_t users = Users();
  const Begun b = Start();
  const std::string authorize = b.location;
  ASSERT_EQ(authorize.rfind(Forger().url(), 0), 0u);
  const std::string out = RunCommand("node " + SourceDir() + "/tests/oidc/login.mjs '" + authorize +
                                     "' trudy '" + Own() + "/api/v1/auth/'");
  auto r = Plaudit(out.substr(Own().size()), b.binder);
  EXPECT_EQ(r.status, 401) << r.body;
  EXPECT_NE(r.body.find("id token: bad signature"), std::string::npos) << r.body;
  EXPECT_EQ(Users(), users);
  EXPECT_EQ(Identities(), 0);
}

INSTANTIATE_TEST_SUITE_P(Db, ForgedIdTokenTest, ::testing::Values(Db::kSqlite), DbName);

// GitHub, by its stand-in.
NodeServer& GitHub() {
  static NodeServer* github =
      new NodeServer("tests/oidc/github.mjs", {"--client", "gh-client", "--secret", "gh-secret"});
  return *github;
}

class GithubSignInTest : public SocialSignInTest {
 protected:
  void Configure(config::Config& c) override {
    SocialSignInTest::Configure(c);
    config::Config::OidcProvider gh;
    gh.name = "github";
    gh.client_id = "gh-client";
    gh.client_secret = secret_;
    c.github = gh;
    c.github_url = GitHub().url();
    c.github_api_url = GitHub().url();
  }
  void SetUser(const std::string& json) {
    HttpClient gh("127.0.0.1", Port(GitHub().url()));
    ASSERT_EQ(gh.Send(beast::http::verb::put, "/__test/user", json, "application/json").status,
              204);
  }
  // The stand-in approves at once: its authorize answer is the redirect back.
  HttpResponse SignInAtGithub() {
    const Begun b = Start("github");
    EXPECT_EQ(b.location.rfind(GitHub().url() + "/login/oauth/authorize?", 0), 0u) << b.location;
    HttpClient gh("127.0.0.1", Port(GitHub().url()));
    auto approve = gh.Get(b.location.substr(GitHub().url().size()));
    EXPECT_EQ(approve.status, 302);
    const std::string back = approve.Header("location");
    return Plaudit(back.substr(Own().size()), b.binder);
  }
  std::string secret_ = "gh-secret";
};

TEST_P(GithubSignInTest, AGithubUserIsKeyedByItsIdAndAnEmailMergesNothing) {
  SetUser(R"({"id":4242,"login":"octo","name":"Octo Cat","email":"alice@idp.example"})");
  auto page = SignInAtGithub();
  ASSERT_EQ(page.status, 200) << page.body;
  auto me = Client().Get("/api/v1/users/me", Bearer(SessionToken(page)));
  EXPECT_EQ(me.Json().at("displayName").as_string(), "Octo Cat");
  EXPECT_TRUE(me.Json().at("username").as_string().starts_with("github-"));
  const int64_t id = me.Json().at("id").as_int64();
  // Renamed login, same numeric id: the same account.
  SetUser(R"({"id":4242,"login":"octo2","name":null,"email":null})");
  auto again = SignInAtGithub();
  ASSERT_EQ(again.status, 200) << again.body;
  auto me2 = Client().Get("/api/v1/users/me", Bearer(SessionToken(again)));
  EXPECT_EQ(me2.Json().at("id").as_int64(), id);
  EXPECT_EQ(me2.Json().at("displayName").as_string(), "octo2");
  // The OpenID provider's alice has the same e-mail: another account all the same.
  const Begun b = Start();
  auto oidc = Plaudit(LoginAt(b.location, "alice"), b.binder);
  ASSERT_EQ(oidc.status, 200) << oidc.body;
  EXPECT_NE(Client().Get("/api/v1/users/me", Bearer(SessionToken(oidc))).Json().at("id").as_int64(),
            id);
  EXPECT_EQ(boost::json::serialize(Client().Get("/api/v1/auth/providers").Json().at("items")),
            R"([{"name":"idp","kind":"oidc"},{"name":"github","kind":"github"}])");
}

INSTANTIATE_TEST_SUITE_P(Db, GithubSignInTest, AllDbs(), DbName);

class GithubWrongSecretTest : public GithubSignInTest {
 protected:
  GithubWrongSecretTest() { secret_ = "not-the-secret"; }
};

TEST_P(GithubWrongSecretTest, ACodeExchangedWithAWrongSecretSignsNobodyIn) {
  const int64_t users = Users();
  auto page = SignInAtGithub();
  EXPECT_EQ(page.status, 401) << page.body;
  EXPECT_NE(page.body.find("GitHub refused the code (incorrect_client_credentials)"),
            std::string::npos);
  EXPECT_EQ(Users(), users);
}

INSTANTIATE_TEST_SUITE_P(Db, GithubWrongSecretTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
