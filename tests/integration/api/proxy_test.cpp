// Issue 27, plauditd behind a reverse proxy: the client address per-address rate limits count
// comes from X-Forwarded-For / Forwarded only when the TCP peer is in --trusted-proxies, and
// the session cookie is Secure when a trusted proxy says the client spoke HTTPS, or always
// with --cookie-secure (docs/security.md).
#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

// Every request counts against a budget of 3 per client address.
class ProxyTest : public ApiTest {
 protected:
  explicit ProxyTest(std::string trusted, bool forwarded = false)
      : trusted_(std::move(trusted)), forwarded_(forwarded) {}

  void Configure(config::Config& c) override {
    c.trusted_proxies = AddressSet::Parse(trusted_).value();
    c.proxy_forwarded = forwarded_;
    c.limit_requests_address = RateLimit{3, 60'000};
  }

  // The status of GET /api/v1/users/1 with `headers`.
  int Status(const HttpClient::Headers& headers) {
    return Client().Get("/api/v1/users/1", headers).status;
  }

  std::string trusted_;
  bool forwarded_;
};

// The test client (127.0.0.1) is a stranger: its forwarding headers count for nothing.
class UntrustedPeerTest : public ProxyTest {
 protected:
  UntrustedPeerTest() : ProxyTest("10.0.0.0/8") {}
};

TEST_P(UntrustedPeerTest, ASpoofedAddressGetsNoFreshBudget) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Status({{"X-Forwarded-For", "198.51.100." + std::to_string(i)}}), 200);
  }
  EXPECT_EQ(Status({{"X-Forwarded-For", "203.0.113.50"}}), 429);
  EXPECT_EQ(Status({{"Forwarded", "for=203.0.113.51"}}), 429);
  EXPECT_EQ(Status({{"X-Real-IP", "203.0.113.52"}}), 429);
}

TEST_P(UntrustedPeerTest, ACookieIsNotSecureBecauseAStrangerSaysHttps) {
  Register("eve");
  auto c = Client();
  auto r = c.Post("/api/v1/sessions", R"({"username":"eve","password":"password123"})",
                  {{"X-Forwarded-Proto", "https"}, {"Forwarded", "proto=https"}});
  ASSERT_EQ(r.status, 201) << r.body;
  EXPECT_EQ(r.Header("set-cookie").find("Secure"), std::string::npos) << r.Header("set-cookie");
}

// The test client is the trusted proxy: the client it names is the one counted.
class TrustedPeerTest : public ProxyTest {
 protected:
  TrustedPeerTest() : ProxyTest("127.0.0.1,10.0.0.0/8") {}
};

TEST_P(TrustedPeerTest, EachForwardedClientHasItsOwnBudget) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Status({{"X-Forwarded-For", "203.0.113.7"}}), 200);
  }
  EXPECT_EQ(Status({{"X-Forwarded-For", "203.0.113.7"}}), 429);
  // The proxy's own budget and another client's are untouched.
  EXPECT_EQ(Status({}), 200);
  EXPECT_EQ(Status({{"X-Forwarded-For", "203.0.113.8"}}), 200);
  // What the client wrote left of the address its proxies appended proves nothing; trusted
  // hops to its right are skipped.
  EXPECT_EQ(Status({{"X-Forwarded-For", "198.51.100.99, 203.0.113.7, 10.1.2.3"}}), 429);
  // Behind an X-Forwarded-For proxy (the default --proxy-header), a client's own Forwarded
  // line names nothing: 203.0.113.7's budget stays spent whatever it says.
  EXPECT_EQ(Status({{"Forwarded", "for=203.0.113.99"}, {"X-Forwarded-For", "203.0.113.7"}}), 429);
}

// The trusted proxy writes RFC 7239 Forwarded (--proxy-header forwarded).
class ForwardedProxyTest : public ProxyTest {
 protected:
  ForwardedProxyTest() : ProxyTest("127.0.0.1", /*forwarded=*/true) {}
};

TEST_P(ForwardedProxyTest, ForwardedWithAQuotedIpv6ClientIsCountedByItsNetwork) {
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Status({{"Forwarded", R"(for="[2001:db8:1::1]:4711";proto=https)"}}), 200);
  }
  EXPECT_EQ(Status({{"Forwarded", R"(for="[2001:db8:1::1]:4711")"}}), 429);
  // The same /64, differently spelled: the same client.
  EXPECT_EQ(Status({{"Forwarded", R"(for="2001:db8:1::2")"}}), 429);
  // A client's own X-Forwarded-For (passed on by this proxy) names nothing.
  EXPECT_EQ(
      Status({{"Forwarded", R"(for="[2001:db8:1::1]")"}, {"X-Forwarded-For", "2001:db8:9::1"}}),
      429);
  EXPECT_EQ(Status({{"Forwarded", R"(for="[2001:db8:2::1]")"}}), 200);
  // Obfuscated nodes are no fresh clients: they share the budget of the proxy that wrote them.
  EXPECT_EQ(Status({{"Forwarded", "for=_hidden1"}}), 200);
  EXPECT_EQ(Status({{"Forwarded", "for=_hidden2"}}), 200);
  EXPECT_EQ(Status({{"Forwarded", "for=unknown"}}), 200);
  EXPECT_EQ(Status({{"Forwarded", "for=_hidden3"}}), 429);
}

// Behind a trusted proxy, without request limits (each sign-in here is a request).
class TrustedProxyCookieTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.trusted_proxies = AddressSet::Parse("127.0.0.1").value();
  }
};

TEST_P(TrustedProxyCookieTest, ACookieIsSecureWhenTheProxySaysHttpsAndOnlyThen) {
  Register("fay");
  auto c = Client();
  const std::string body = R"({"username":"fay","password":"password123"})";
  for (const auto& header : HttpClient::Headers{{"X-Forwarded-Proto", "https"}}) {
    auto r = c.Post("/api/v1/sessions", body, {header});
    ASSERT_EQ(r.status, 201) << r.body;
    const std::string cookie = r.Header("set-cookie");
    EXPECT_NE(cookie.find("; Secure"), std::string::npos) << header.first << ": " << cookie;
    EXPECT_NE(cookie.find("HttpOnly; SameSite=Lax"), std::string::npos) << cookie;
    EXPECT_NE(cookie.find("Path=/"), std::string::npos) << cookie;
  }
  for (const auto& headers : std::vector<HttpClient::Headers>{
           {},
           {{"X-Forwarded-Proto", "http"}},
           // The default --proxy-header reads X-Forwarded-*: a Forwarded proto= is the client's.
           {{"Forwarded", "for=203.0.113.7;proto=https"}}}) {
    auto r = c.Post("/api/v1/sessions", body, headers);
    ASSERT_EQ(r.status, 201) << r.body;
    EXPECT_EQ(r.Header("set-cookie").find("Secure"), std::string::npos) << r.Header("set-cookie");
  }
}

// plauditd's own pages behind a TLS proxy that rewrites Host: the origin the browser sends is
// the one the proxy names, not 127.0.0.1.
TEST_P(TrustedProxyCookieTest, ItsOwnOriginBehindTheProxyMayWriteWithTheCookie) {
  Register("hub");
  auto c = Client();
  auto session = [&] {
    auto r = SignIn(c, "hub", "password123");
    EXPECT_EQ(r.status, 201) << r.body;
    return "plaudit_session=" + std::string(r.Json().at("token").as_string());
  };
  HttpClient::Headers proxied{{"Origin", "https://plaudit.example"},
                              {"X-Forwarded-Proto", "https"},
                              {"X-Forwarded-Host", "plaudit.example"}};
  HttpClient::Headers with_cookie = proxied;
  with_cookie.emplace_back("Cookie", session());
  EXPECT_EQ(c.Delete("/api/v1/sessions/current", with_cookie).status, 204);
  // Without the proxy's word on the scheme, https://plaudit.example is not its own origin.
  HttpClient::Headers plain{{"Origin", "https://plaudit.example"},
                            {"X-Forwarded-Host", "plaudit.example"},
                            {"Cookie", session()}};
  EXPECT_EQ(c.Delete("/api/v1/sessions/current", plain).status, 403);
}

// /metrics and /readyz still refuse anything that came through a proxy, trusted or not
// (docs/security.md row 7).
TEST_P(TrustedPeerTest, OperationsStillRefuseProxiedRequests) {
  auto c = Client();
  EXPECT_EQ(c.Get("/metrics").status, 200);
  EXPECT_EQ(c.Get("/metrics", {{"X-Forwarded-For", "127.0.0.1"}}).status, 403);
  EXPECT_EQ(c.Get("/readyz", {{"Forwarded", "for=127.0.0.1"}}).status, 403);
}

class CookieSecureTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override { c.cookie_secure = true; }
};

TEST_P(CookieSecureTest, TheCookieIsAlwaysSecure) {
  Register("gil");
  auto c = Client();
  auto r = c.Post("/api/v1/sessions", R"({"username":"gil","password":"password123"})");
  ASSERT_EQ(r.status, 201) << r.body;
  const std::string cookie = r.Header("set-cookie");
  EXPECT_NE(cookie.find("; Secure"), std::string::npos) << cookie;
  EXPECT_NE(cookie.find("HttpOnly; SameSite=Lax"), std::string::npos) << cookie;
  const std::string token(r.Json().at("token").as_string());
  auto out = c.Delete("/api/v1/sessions/current", Bearer(token));
  EXPECT_EQ(out.status, 204);
  EXPECT_NE(out.Header("set-cookie").find("; Secure"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Databases, UntrustedPeerTest, ::testing::Values(Db::kSqlite), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, TrustedPeerTest, ::testing::Values(Db::kSqlite), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, ForwardedProxyTest, ::testing::Values(Db::kSqlite), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, TrustedProxyCookieTest, ::testing::Values(Db::kSqlite), DbName);
INSTANTIATE_TEST_SUITE_P(Databases, CookieSecureTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
