// The CSRF rule of API.md "Conventions" (http/csrf.hpp), request by request.
#include "http/csrf.hpp"

#include <gtest/gtest.h>

namespace plaudit::http {
namespace {

const SiteList kSites = SiteList::Parse("https://blog.example").value();

bool CrossSite(beast::http::verb method, std::vector<std::pair<std::string, std::string>> headers,
               bool https = false, std::string forwarded_host = "") {
  RawRequest raw{method, "/api/v1/articles/1/like", 11};
  raw.set(beast::http::field::host, "plaudit.example:8080");
  for (const auto& [name, value] : headers) {
    raw.set(name, value);
  }
  Request req{raw, "/api/v1/articles/1/like", "", {}, "192.0.2.1", https, forwarded_host};
  return IsCrossSiteWrite(req, kSites);
}

using V = beast::http::verb;

TEST(Csrf, AForeignOriginOnACookieWriteIsCrossSite) {
  for (V method : {V::post, V::put, V::patch, V::delete_}) {
    EXPECT_TRUE(CrossSite(method, {{"Origin", "https://evil.example"}}));
  }
  EXPECT_TRUE(CrossSite(V::put, {{"Origin", "null"}}));
  EXPECT_TRUE(CrossSite(V::put, {{"Origin", "https://plaudit.example:8080"}}));  // wrong scheme
  EXPECT_TRUE(CrossSite(V::put, {{"Origin", "http://plaudit.example"}}));        // wrong port
  EXPECT_TRUE(CrossSite(V::put, {{"Referer", "https://evil.example/page"}}));
  EXPECT_TRUE(CrossSite(V::put, {{"Referer", "not a url"}}));
  // Origin wins over an innocent Referer.
  EXPECT_TRUE(CrossSite(
      V::put, {{"Origin", "https://evil.example"}, {"Referer", "https://blog.example/"}}));
}

TEST(Csrf, ItsOwnOriginASiteReadsNonBrowsersAndBearerPass) {
  EXPECT_FALSE(CrossSite(V::put, {{"Origin", "http://plaudit.example:8080"}}));
  EXPECT_FALSE(CrossSite(V::put, {{"Origin", "HTTP://Plaudit.Example:8080"}}));
  EXPECT_FALSE(CrossSite(V::put, {{"Origin", "https://plaudit.example:8080"}}, /*https=*/true));
  EXPECT_FALSE(CrossSite(V::put, {{"Origin", "https://blog.example"}}));
  // Behind a proxy that rewrote Host, the Host the client sent (per the proxy) is its own.
  EXPECT_FALSE(CrossSite(V::put, {{"Origin", "https://plaudit.example"}}, true, "plaudit.example"));
  EXPECT_TRUE(
      CrossSite(V::put, {{"Origin", "https://plaudit.example:8080"}}, true, "plaudit.example"));
  EXPECT_FALSE(CrossSite(V::put, {{"Referer", "https://blog.example/posts/1?x=2"}}));
  EXPECT_FALSE(CrossSite(V::delete_, {}));
  EXPECT_FALSE(CrossSite(V::get, {{"Origin", "https://evil.example"}}));
  EXPECT_FALSE(CrossSite(V::options, {{"Origin", "https://evil.example"}}));
  EXPECT_FALSE(
      CrossSite(V::put, {{"Origin", "https://evil.example"}, {"Authorization", "Bearer abc"}}));
}

}  // namespace
}  // namespace plaudit::http
