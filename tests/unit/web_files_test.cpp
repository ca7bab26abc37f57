// The web files' names, hashes and revalidation (api/web_files): what a host page's cache sees.
#include "api/web_files.hpp"

#include <gtest/gtest.h>

namespace plaudit::api {
namespace {

TEST(WebFiles, StableAndHashedNamesShareOneStrongEtag) {
  EmbeddedFile files[] = {{"embed.js", "console.log(1)"}, {"count.js", "console.log(2)"}};
  auto index = IndexWebFiles(files);
  ASSERT_EQ(index.size(), 2u);
  EXPECT_EQ(index[0].stable_path, "/embed.js");
  const std::string hash = index[0].etag.substr(1, index[0].etag.size() - 2);
  EXPECT_EQ(hash.size(), 16u);
  EXPECT_EQ(index[0].etag, "\"" + hash + "\"");
  EXPECT_EQ(index[0].hashed_path, "/assets/embed." + hash + ".js");
  EXPECT_EQ(index[0].content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(index[0].etag, index[1].etag);
}

TEST(WebFiles, NewContentGetsANewName) {
  EmbeddedFile a[] = {{"embed.js", "v1"}};
  EmbeddedFile b[] = {{"embed.js", "v2"}};
  EXPECT_NE(IndexWebFiles(a)[0].hashed_path, IndexWebFiles(b)[0].hashed_path);
  EXPECT_EQ(IndexWebFiles(a)[0].hashed_path, IndexWebFiles(a)[0].hashed_path);
}

TEST(WebFiles, ContentTypesByExtension) {
  EmbeddedFile files[] = {{"a.css", ""}, {"index.html", ""}, {"x.bin", ""}};
  auto index = IndexWebFiles(files);
  EXPECT_EQ(index[0].content_type, "text/css; charset=utf-8");
  EXPECT_EQ(index[1].content_type, "text/html; charset=utf-8");
  EXPECT_EQ(index[2].content_type, "application/octet-stream");
}

TEST(WebFiles, IfNoneMatchComparesWeaklyAndAcceptsLists) {
  EXPECT_TRUE(EtagMatches("\"abc\"", "\"abc\""));
  EXPECT_TRUE(EtagMatches("W/\"abc\"", "\"abc\""));
  EXPECT_TRUE(EtagMatches("\"x\", \"abc\"", "\"abc\""));
  EXPECT_TRUE(EtagMatches("*", "\"abc\""));
  EXPECT_FALSE(EtagMatches("", "\"abc\""));
  EXPECT_FALSE(EtagMatches("\"abcd\"", "\"abc\""));
  EXPECT_FALSE(EtagMatches("abc", "\"abc\""));
}

TEST(WebFiles, AGzFileIsTheVariantOfItsNamesake) {
  EmbeddedFile files[] = {{"count.js", "c"}, {"embed.js", "e"}, {"embed.js.gz", "gz"}};
  auto index = IndexWebFiles(files);
  ASSERT_EQ(index.size(), 2u);
  EXPECT_EQ(index[0].gzip, "");
  EXPECT_EQ(index[1].stable_path, "/embed.js");
  EXPECT_EQ(index[1].gzip, "gz");
  EXPECT_NE(index[1].gzip_etag, index[1].etag);
}

TEST(WebFiles, AcceptsGzipUnlessWeightedZero) {
  EXPECT_TRUE(AcceptsGzip("gzip"));
  EXPECT_TRUE(AcceptsGzip("gzip, deflate, br"));
  EXPECT_TRUE(AcceptsGzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_TRUE(AcceptsGzip("x-gzip"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("br, deflate"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip;Q=0"));     // the parameter's name is case-insensitive
  EXPECT_FALSE(AcceptsGzip("gzip;q=0, *"));  // a coding named wins over "*"
  EXPECT_FALSE(AcceptsGzip("*;q=0.000"));
  EXPECT_TRUE(AcceptsGzip("identity, *;q=0.1"));
  EXPECT_FALSE(AcceptsGzip("gzip; q=0.000"));
  EXPECT_FALSE(AcceptsGzip("gzipped"));
}

TEST(WebFiles, TheSiteShellLinksTheHashedAssets) {
  EmbeddedFile files[] = {{"site.js", "js"}, {"site.css", "css"}};
  auto index = IndexWebFiles(files);
  const std::string html = LinkHashedAssets(
      R"(<link href="/site.css"><script src="/site.js"></script><p>/site.js</p>)", index);
  EXPECT_EQ(html, "<link href=\"" + index[1].hashed_path + "\"><script src=\"" +
                      index[0].hashed_path + "\"></script><p>/site.js</p>");
}

}  // namespace
}  // namespace plaudit::api
