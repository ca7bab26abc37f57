// API.md "Embedding on other sites": page URL normalisation and the --sites allow-list.
#include <gtest/gtest.h>

#include "common/web_origin.hpp"

namespace plaudit {
namespace {

std::string Page(std::string_view text) {
  auto p = NormalisePageUrl(text);
  EXPECT_TRUE(p) << text << ": " << p.error().message;
  return p ? p->url : "";
}

TEST(PageUrl, NormalisedAsApiMdSays) {
  EXPECT_EQ(Page("HTTPS://Blog.Example/Posts/1"), "https://blog.example/Posts/1");  // path kept
  EXPECT_EQ(Page("https://blog.example:443/a"), "https://blog.example/a");
  EXPECT_EQ(Page("http://blog.example:80/a"), "http://blog.example/a");
  EXPECT_EQ(Page("http://blog.example:8080/a"), "http://blog.example:8080/a");
  EXPECT_EQ(Page("https://blog.example:80/a"), "https://blog.example:80/a");  // not https' default
  EXPECT_EQ(Page("https://blog.example/a/#comments"), "https://blog.example/a");
  EXPECT_EQ(Page("https://blog.example/a?utm_source=x&b=1"), "https://blog.example/a");
  EXPECT_EQ(Page("https://blog.example/a///"), "https://blog.example/a");
  EXPECT_EQ(Page("https://blog.example"), "https://blog.example/");
  EXPECT_EQ(Page("https://blog.example/"), "https://blog.example/");
  EXPECT_EQ(Page("https://blog.example/?q=1#x"), "https://blog.example/");
  EXPECT_EQ(Page("https://blog.example/a/./b/../c"), "https://blog.example/a/c");
  EXPECT_EQ(Page("https://blog.example/%7euser/%e4%b8%ad"), "https://blog.example/~user/%E4%B8%AD");
  EXPECT_EQ(Page("http://[::1]:8080/x"), "http://[::1]:8080/x");
  EXPECT_EQ(Page("https://blog.example/x/%2e%2E/y"), "https://blog.example/y");  // %2E is '.'
  EXPECT_EQ(Page("https://blog.example/.."), "https://blog.example/");
  EXPECT_EQ(Page("https://blog.example/a/b/.."), "https://blog.example/a");
  auto p = NormalisePageUrl("https://Blog.Example:443/a");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->origin, "https://blog.example");
}

// An encoded '/' is data, not a separator (RFC 3986 2.2): /a%2Fb is another page than /a/b.
// (Boost.URL 1.81's normalize() decoded it; review of issue 27.)
TEST(PageUrl, AnEncodedSlashStaysEncoded) {
  EXPECT_EQ(Page("https://blog.example/a%2Fb"), "https://blog.example/a%2Fb");
  EXPECT_EQ(Page("https://blog.example/a%2f"), "https://blog.example/a%2F");
  EXPECT_EQ(Page("https://blog.example/a%2f%2e%2e%2fc"), "https://blog.example/a%2F..%2Fc");
  EXPECT_NE(Page("https://blog.example/a%2Fb"), Page("https://blog.example/a/b"));
}

TEST(PageUrl, RefusesWhatIsNotAnAbsoluteHttpUrl) {
  for (std::string_view bad : {"", "/a/b", "blog.example/a", "ftp://blog.example/a",
                               "javascript:alert(1)", "https://user:pw@blog.example/a",
                               "https:///a", "http://exa mple.com/"}) {
    auto p = NormalisePageUrl(bad);
    EXPECT_FALSE(p) << bad << " → " << (p ? p->url : "");
    if (!p) {
      EXPECT_EQ(p.error().code, ErrorCode::kInvalidArgument) << bad;
    }
  }
  const std::string base = "https://blog.example/";
  EXPECT_TRUE(NormalisePageUrl(base + std::string(kMaxPageUrlBytes - base.size(), 'a')));
  EXPECT_FALSE(NormalisePageUrl(base + std::string(kMaxPageUrlBytes - base.size() + 1, 'a')));
}

TEST(SiteList, AllowsExactlyItsOrigins) {
  auto sites = SiteList::Parse("https://blog.example, http://localhost:8081");
  ASSERT_TRUE(sites);
  EXPECT_TRUE(sites->Allows("https://blog.example"));
  EXPECT_TRUE(sites->Allows("HTTPS://BLOG.EXAMPLE:443"));
  EXPECT_TRUE(sites->Allows("http://localhost:8081"));
  for (std::string_view no : {"http://blog.example", "https://blog.example:8443",
                              "https://evil.blog.example", "https://blog.example.evil",
                              "http://localhost:8082", "null", "", "https://blog.example/x"}) {
    EXPECT_FALSE(sites->Allows(no)) << no;
  }
  EXPECT_TRUE(sites->ListsExactly("https://blog.example"));
  EXPECT_FALSE(sites->ListsExactly("HTTPS://BLOG.EXAMPLE:443"));
  EXPECT_FALSE(sites->ListsExactly("https://blog.example/"));
  auto none = SiteList::Parse("");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(none->Allows("https://blog.example"));
}

}  // namespace
}  // namespace plaudit
