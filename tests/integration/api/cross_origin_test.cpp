// Issue 27, a browser on another origin: CORS for the sites of --sites (and nothing for any
// other origin), the CSRF check on cookie-borne writes, and the security headers on every
// answer (API.md "Conventions", "Embedding on other sites"; docs/security.md).
#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

constexpr const char* kSite = "https://blog.example";
constexpr const char* kStranger = "https://evil.example";

HttpClient::Headers From(const std::string& origin, HttpClient::Headers more = {}) {
  more.emplace_back("Origin", origin);
  return more;
}

HttpClient::Headers Cookie(const std::string& token) {
  return {{"Cookie", "plaudit_session=" + token}};
}

// The CORS headers an allowed origin's answer must carry, whatever its status.
void ExpectAllowed(const HttpResponse& r, const std::string& origin) {
  EXPECT_EQ(r.Header("access-control-allow-origin"), origin) << r.status << " " << r.body;
  EXPECT_EQ(r.Header("access-control-allow-credentials"), "true") << r.status;
  EXPECT_NE(r.Header("access-control-expose-headers").find("Retry-After"), std::string::npos);
  EXPECT_EQ(r.Header("vary"), "Origin") << r.status;
}

void ExpectNoAllowHeaders(const HttpResponse& r) {
  for (const auto& [name, value] : r.headers) {
    EXPECT_FALSE(name.starts_with("access-control-allow-")) << name << ": " << value;
  }
}

class CrossOriginTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.sites = SiteList::Parse(std::string(kSite) + ",https://docs.example").value();
    c.max_body = 128;
  }

  // A published article by root; its id.
  int64_t Article() {
    auto r = Client().Post("/api/v1/articles",
                           R"({"title":"t","content":"c","kind":"article","status":"published"})",
                           Bearer(Login("root", "rootpassword")));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }

  std::string LikePath(int64_t id) { return "/api/v1/articles/" + std::to_string(id) + "/like"; }
};

TEST_P(CrossOriginTest, APreflightFromASiteIsAnsweredBeforeRouting) {
  auto c = Client();
  for (const char* path : {"/api/v1/articles/1/like", "/api/v1/sessions", "/api/v1/no/such"}) {
    auto r = c.Send(beast::http::verb::options, path, "", "",
                    From(kSite, {{"Access-Control-Request-Method", "PUT"},
                                 {"Access-Control-Request-Headers", "content-type"}}));
    EXPECT_EQ(r.status, 204) << path << " " << r.body;
    EXPECT_EQ(r.Header("access-control-allow-origin"), kSite);
    EXPECT_EQ(r.Header("access-control-allow-credentials"), "true");
    EXPECT_EQ(r.Header("access-control-allow-methods"), "GET, POST, PUT, PATCH, DELETE");
    // Plaudit-Edit-Token: a guest's edit token (API.md "Guests and sign-in from elsewhere").
    EXPECT_EQ(r.Header("access-control-allow-headers"),
              "Authorization, Content-Type, If-None-Match, Plaudit-Edit-Token");
    EXPECT_EQ(r.Header("access-control-max-age"), "600");
    EXPECT_EQ(r.Header("vary"), "Origin");
  }
  // Each header once: a browser refuses an Allow-Origin with two values.
  const std::string raw = HttpClient::Raw(
      "127.0.0.1", app_->port(),
      "OPTIONS /api/v1/users HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://blog.example\r\n"
      "Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n");
  for (const char* name : {"Access-Control-Allow-Origin:", "Access-Control-Allow-Credentials:",
                           "Access-Control-Allow-Methods:", "Vary:"}) {
    const size_t first = raw.find(name);
    EXPECT_NE(first, std::string::npos) << name << " in " << raw;
    EXPECT_EQ(raw.find(name, first + 1), std::string::npos) << name << " twice in " << raw;
  }
  // The origin as the browser sent it, however it is spelled in --sites.
  auto r = c.Send(beast::http::verb::options, "/api/v1/users/me", "", "",
                  From("https://docs.example", {{"Access-Control-Request-Method", "GET"}}));
  EXPECT_EQ(r.Header("access-control-allow-origin"), "https://docs.example");
}

TEST_P(CrossOriginTest, AnOriginOutsideTheListGetsNoAllowHeaders) {
  auto c = Client();
  for (const char* origin :
       {kStranger, "null", "https://blog.example.evil.example", "http://blog.example",
        "https://blog.example:8443",
        // Spellings no browser sends that only normalise to a site: the
        // header is echoed, so they get nothing (review of issue 27).
        "HTTPS://BLOG.EXAMPLE", "https://blog.example:443", "https://blog.example/"}) {
    auto pre = c.Send(beast::http::verb::options, "/api/v1/articles/1/like", "", "",
                      From(origin, {{"Access-Control-Request-Method", "PUT"}}));
    EXPECT_EQ(pre.status, 204) << origin;
    ExpectNoAllowHeaders(pre);
    EXPECT_EQ(pre.Header("vary"), "Origin");
    auto get = c.Get("/api/v1/users/1", From(origin));
    EXPECT_EQ(get.status, 200);
    ExpectNoAllowHeaders(get);
    EXPECT_EQ(get.Header("vary"), "Origin");
  }
  // Without an Origin nothing CORS is added at all.
  auto plain = c.Get("/api/v1/users/1");
  ExpectNoAllowHeaders(plain);
  EXPECT_EQ(plain.Header("vary"), "");
  // An OPTIONS that is no preflight is the router's business.
  EXPECT_EQ(c.Send(beast::http::verb::options, "/api/v1/users/1", "", "", From(kSite)).status, 405);
}

TEST_P(CrossOriginTest, ErrorsCarryTheHeadersSoAWidgetCanReadThem) {
  auto c = Client();
  auto unauthenticated = c.Get("/api/v1/users/me", From(kSite));
  EXPECT_EQ(unauthenticated.status, 401);
  ExpectAllowed(unauthenticated, kSite);
  auto bad_token = c.Get("/api/v1/users/me", From(kSite, Bearer("nope")));
  EXPECT_EQ(bad_token.status, 401);
  ExpectAllowed(bad_token, kSite);
  auto missing = c.Get("/api/v1/users/999999", From(kSite));
  EXPECT_EQ(missing.status, 404);
  ExpectAllowed(missing, kSite);
  auto no_route = c.Get("/api/v1/no/such", From(kSite));
  EXPECT_EQ(no_route.status, 404);
  ExpectAllowed(no_route, kSite);
  auto wrong_method = c.Put("/api/v1/users/me", "", From(kSite));
  EXPECT_EQ(wrong_method.status, 405);
  ExpectAllowed(wrong_method, kSite);
  auto not_json =
      c.Send(beast::http::verb::post, "/api/v1/users", "x=1", "text/plain", From(kSite));
  EXPECT_EQ(not_json.status, 415);
  ExpectAllowed(not_json, kSite);
  auto too_big = c.Post("/api/v1/users", std::string(300, ' '), From(kSite));
  EXPECT_EQ(too_big.status, 413);
  ExpectAllowed(too_big, kSite);
}

// Only the site's answers: never "*", on any route or status.
TEST_P(CrossOriginTest, NeverAWildcard) {
  auto c = Client();
  std::vector<HttpResponse> answers;
  answers.push_back(c.Get("/healthz", From(kSite)));
  answers.push_back(c.Get("/api/v1/articles", From(kSite)));
  answers.push_back(c.Get("/api/v1/articles", From(kStranger)));
  answers.push_back(c.Get("/api/v1/articles", From("*")));
  answers.push_back(c.Send(beast::http::verb::options, "/api/v1/articles", "", "",
                           From("*", {{"Access-Control-Request-Method", "GET"}})));
  for (const auto& r : answers) {
    EXPECT_NE(r.Header("access-control-allow-origin"), "*");
    EXPECT_TRUE(r.Header("access-control-allow-origin").empty() ||
                r.Header("access-control-allow-origin") == kSite);
  }
}

TEST_P(CrossOriginTest, EveryAnswerCarriesTheSecurityHeaders) {
  auto c = Client();
  std::vector<HttpResponse> answers{c.Get("/healthz"), c.Get("/api/v1/users/1"),
                                    c.Get("/api/v1/users/me"), c.Get("/no/such"),
                                    c.Post("/api/v1/users", std::string(300, ' '))};
  for (const auto& r : answers) {
    EXPECT_EQ(r.Header("x-content-type-options"), "nosniff") << r.status;
    EXPECT_EQ(r.Header("referrer-policy"), "strict-origin-when-cross-origin") << r.status;
  }
  // Once each, also where a route sets headers of its own (the widget's files).
  for (const char* path : {"/embed.js", "/api/v1/users/1"}) {
    const std::string raw = HttpClient::Raw(
        "127.0.0.1", app_->port(),
        std::string("GET ") + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    for (const char* name : {"X-Content-Type-Options:", "Referrer-Policy:"}) {
      const size_t first = raw.find(name);
      EXPECT_NE(first, std::string::npos) << path << " " << name;
      EXPECT_EQ(raw.find(name, first + 1), std::string::npos) << path << " " << name << " twice";
    }
  }
}

TEST_P(CrossOriginTest, ACookieWriteFromAForeignOriginIsRefusedAndChangesNothing) {
  const int64_t id = Article();
  Register("amy");
  const std::string token = Login("amy");
  auto c = Client();
  for (const char* origin : {kStranger, "null", "http://127.0.0.1.evil.example"}) {
    auto r = c.Put(LikePath(id), "", From(origin, Cookie(token)));
    EXPECT_EQ(r.status, 403) << origin << " " << r.body;
    EXPECT_EQ(r.ErrorCode(), "forbidden");
  }
  // Without an Origin, the Referer's origin is the one checked.
  auto referred = c.Put(
      LikePath(id), "",
      {{"Cookie", "plaudit_session=" + token}, {"Referer", "https://evil.example/some/page"}});
  EXPECT_EQ(referred.status, 403) << referred.body;
  auto state = c.Get(LikePath(id), Bearer(token));
  EXPECT_FALSE(state.Json().at("liked").as_bool());
  EXPECT_EQ(state.Json().at("likeCount").as_int64(), 0);
  // Signing out is a write too: the session must survive a forged logout.
  auto logout = c.Delete("/api/v1/sessions/current", From(kStranger, Cookie(token)));
  EXPECT_EQ(logout.status, 403);
  EXPECT_EQ(c.Get("/api/v1/users/me", Bearer(token)).status, 200);
}

TEST_P(CrossOriginTest, ACookieWriteFromASiteOrFromItselfGoesThrough) {
  const int64_t id = Article();
  Register("bob");
  const std::string token = Login("bob");
  auto c = Client();
  auto from_site = c.Put(LikePath(id), "", From(kSite, Cookie(token)));
  EXPECT_EQ(from_site.status, 200) << from_site.body;
  ExpectAllowed(from_site, kSite);
  // Its own pages: the Host the request was sent to (the test client sends 127.0.0.1).
  auto own = c.Delete(LikePath(id), From("http://127.0.0.1", Cookie(token)));
  EXPECT_EQ(own.status, 200) << own.body;
  auto referred = c.Put(
      LikePath(id), "",
      {{"Cookie", "plaudit_session=" + token}, {"Referer", "https://docs.example/a/page?q=1"}});
  EXPECT_EQ(referred.status, 200) << referred.body;
  // No Origin and no Referer: not a browser's cross-site request.
  EXPECT_EQ(c.Delete(LikePath(id), Cookie(token)).status, 200);
}

TEST_P(CrossOriginTest, ABearerWriteIsNotChecked) {
  const int64_t id = Article();
  Register("cat");
  auto c = Client();
  auto r = c.Put(LikePath(id), "", From(kStranger, Bearer(Login("cat"))));
  EXPECT_EQ(r.status, 200) << r.body;
  ExpectNoAllowHeaders(r);
}

// Login CSRF: a foreign page must not sign the browser in to an account of its choosing.
TEST_P(CrossOriginTest, ASignInFromAForeignOriginIsRefusedWithoutACookie) {
  Register("dan");
  auto c = Client();
  auto r =
      c.Post("/api/v1/sessions", R"({"username":"dan","password":"password123"})", From(kStranger));
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_EQ(r.Header("set-cookie"), "");
  auto ok =
      c.Post("/api/v1/sessions", R"({"username":"dan","password":"password123"})", From(kSite));
  EXPECT_EQ(ok.status, 201) << ok.body;
  EXPECT_NE(ok.Header("set-cookie"), "");
}

INSTANTIATE_TEST_SUITE_P(Databases, CrossOriginTest, ::testing::Values(Db::kSqlite), DbName);

// A 429 is readable by the widget, with its Retry-After exposed.
class CrossOriginLimitTest : public CrossOriginTest {
 protected:
  void Configure(config::Config& c) override {
    CrossOriginTest::Configure(c);
    c.limit_requests_address = RateLimit{2, 60'000};
  }
};

TEST_P(CrossOriginLimitTest, ARateLimitedAnswerCarriesTheHeadersAndExposesRetryAfter) {
  auto c = Client();
  HttpResponse last;
  for (int i = 0; i < 3; ++i) {
    last = c.Get("/api/v1/users/1", From(kSite));
  }
  ASSERT_EQ(last.status, 429);
  ExpectAllowed(last, kSite);
  EXPECT_FALSE(last.Header("retry-after").empty());
  EXPECT_EQ(last.Header("access-control-expose-headers"), "Retry-After, ETag");
}

INSTANTIATE_TEST_SUITE_P(Databases, CrossOriginLimitTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
