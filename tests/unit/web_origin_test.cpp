// API.md "Embedding on other sites": page URL normalisation and the --sites allow-list.
#include "common/web_origin.hpp"

#include <gtest/gtest.h>

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
  for (std::string_view bad :
       {"", "/a/b", "blog.example/a", "ftp://blog.example/a", "javascript:alert(1)",
        "https://user:pw@blog.example/a", "https:///a", "http://exa mple.com/"}) {
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

// Issue 41 #15: an IRI names the page its URI does. Browsers send location.href
// percent-encoded, while a data-url attribute holds the text a writer typed.
TEST(PageUrl, AnIriNamesThePageItsUriDoes) {
  EXPECT_EQ(Page("https://blog.example/posts/评论"),
            "https://blog.example/posts/%E8%AF%84%E8%AE%BA");
  EXPECT_EQ(Page("https://blog.example/posts/评论"),
            Page("https://blog.example/posts/%e8%af%84%e8%ae%ba"));
  EXPECT_EQ(Page("https://blog.example/posts/评论/?页=2#评论区"),
            "https://blog.example/posts/%E8%AF%84%E8%AE%BA");
  EXPECT_EQ(Page("https://blog.example/😀/a"), "https://blog.example/%F0%9F%98%80/a");
  EXPECT_EQ(Page("https://blog.example/😀/a"), Page("https://blog.example/%F0%9F%98%80/a"));
  // The host as a browser's URL parser maps it (UTS #46): lower case, then punycode.
  EXPECT_EQ(Page("https://bücher.example/書"), "https://xn--bcher-kva.example/%E6%9B%B8");
  EXPECT_EQ(Page("https://BÜCHER.Example:443/a"), "https://xn--bcher-kva.example/a");
  EXPECT_EQ(Page("https://b%C3%BCcher.example/a"), "https://xn--bcher-kva.example/a");
  EXPECT_EQ(Page("https://xn--bcher-kva.example/a"), "https://xn--bcher-kva.example/a");
  EXPECT_EQ(Page("https://例子.测试/a"), "https://xn--fsqu00a.xn--0zwm56d/a");
  auto p = NormalisePageUrl("https://bücher.example:8443/x");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->origin, "https://xn--bcher-kva.example:8443");
}

TEST(PageUrl, RefusesAnIriWithABadHost) {
  // An emoji is no IDNA2008 label; a NUL or '/' must not hide in a percent-encoded host.
  for (std::string_view bad :
       {"https://😀.example/a", "https://bü%00.evil/a", "https://bü%2Fcher.example/a",
        "https://%FF%FE.example/a", "https://user@bücher.example/a", "/posts/评论"}) {
    auto p = NormalisePageUrl(bad);
    EXPECT_FALSE(p) << bad << " → " << (p ? p->url : "");
    if (!p) {
      EXPECT_EQ(p.error().code, ErrorCode::kInvalidArgument) << bad;
    }
  }
  // The length counts the bytes a browser sends: 600 CJK characters are 5,400 of them.
  std::string long_path = "https://blog.example/";
  for (int i = 0; i < 600; ++i) {
    long_path += "评";
  }
  ASSERT_LE(long_path.size(), kMaxPageUrlBytes);
  auto p = NormalisePageUrl(long_path);
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message.find("percent-encoded"), std::string::npos) << p.error().message;
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
  // An internationalised site as its Origin header spells it.
  auto idn = SiteList::Parse("https://bücher.example");
  ASSERT_TRUE(idn) << idn.error().message;
  EXPECT_EQ(idn->ToString(), "https://xn--bcher-kva.example");
  EXPECT_TRUE(idn->ListsExactly("https://xn--bcher-kva.example"));
  EXPECT_TRUE(idn->Allows("https://Bücher.example"));
  auto none = SiteList::Parse("");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(none->Allows("https://blog.example"));
}

}  // namespace
}  // namespace plaudit
