// text/search_terms.hpp: the terms a text is indexed by and a query looks for, and snippets;
// domain::SearchService::DocOf, what the index keeps of an article.
#include "text/search_terms.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "domain/search.hpp"

namespace plaudit::text {
namespace {

std::vector<std::string> Tokens(std::string_view text) {
  std::vector<std::string> out;
  for (const SearchTerm& t : SearchTerms(text)) {
    out.push_back(t.token);
  }
  return out;
}

// The token of a CJK pair, spelled out.
std::string Pair(std::string_view two) {
  std::string out = "x";
  for (unsigned char b : two) {
    static constexpr char kDigits[] = "0123456789abcdef";
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0xF]);
  }
  return out;
}

// Whether `q` would find `text`: every phrase of the query is a run of the text's tokens.
bool Finds(std::string_view text, std::string_view q) {
  auto query = ParseSearchQuery(q);
  if (!query || query->empty()) {
    return false;
  }
  const std::vector<std::string> tokens = Tokens(text);
  for (const auto& phrase : query->phrases) {
    bool found = false;
    for (size_t i = 0; i + phrase.size() <= tokens.size() && !found; ++i) {
      found = std::equal(phrase.begin(), phrase.end(), tokens.begin() + static_cast<ptrdiff_t>(i));
    }
    if (!found) {
      return false;
    }
  }
  return true;
}

TEST(SearchTerms, WordsAreFoldedAndPrefixedAndOneLetterWordsLeftOut) {
  EXPECT_EQ(Tokens("Hello, World! I am here."),
            (std::vector<std::string>{"qhello", "qworld", "qam", "qhere"}));
  EXPECT_EQ(Tokens("Ｈｅｌｌｏ HELLO hello"),
            (std::vector<std::string>{"qhello", "qhello", "qhello"}));
  EXPECT_EQ(Tokens("the of"), (std::vector<std::string>{"qthe", "qof"}));  // no stopwords
  EXPECT_EQ(Tokens("example.com don't"), (std::vector<std::string>{"qexample", "qcom", "qdon"}));
  EXPECT_EQ(Tokens("Redis7 2026"), (std::vector<std::string>{"qredis7", "q2026"}));
  // Other scripts: their UTF-8 in hex, so that no parser cuts them by its own rules.
  EXPECT_EQ(Tokens("Café"), (std::vector<std::string>{"u636166c3a9"}));
  EXPECT_EQ(Tokens("Café"), Tokens("CAFÉ"));
  EXPECT_EQ(Tokens("Cafe\xCC\x81"), Tokens("Café"));  // NFKC: a decomposed accent too
}

TEST(SearchTerms, CjkRunsBecomeTheirOverlappingPairs) {
  EXPECT_EQ(Tokens("中文搜索"),
            (std::vector<std::string>{Pair("中文"), Pair("文搜"), Pair("搜索")}));
  EXPECT_TRUE(Tokens("我").empty());  // one character: no pair
  // Mixed text: words and pairs in text order, with where each is.
  auto terms = SearchTerms("用Redis写客户端");  // 用: a run of one; 写客户端: of four
  ASSERT_EQ(terms.size(), 4u);
  EXPECT_EQ(terms[0].token, "qredis");
  EXPECT_EQ(terms[1].token, Pair("写客"));
  EXPECT_EQ(terms[2].token, Pair("客户"));
  EXPECT_EQ(terms[3].token, Pair("户端"));
  EXPECT_EQ(std::string("用Redis写客户端").substr(terms[0].begin, terms[0].end - terms[0].begin),
            "Redis");
  // Kana with the prolonged sound mark, Hangul.
  EXPECT_EQ(Tokens("コーヒー").size(), 3u);
  EXPECT_EQ(Tokens("안녕하세요").size(), 4u);
}

TEST(SearchTerms, AnySubstringOfTwoCharactersOrMoreIsFound) {
  const std::string text = "Plaudit 是一个评论系统，支持中文搜索。Redis as the hot path.";
  for (const char* q : {"评论", "评论系统", "中文搜索", "搜索", "一个评", "redis", "HOT path",
                        "plaudit 评论", "ＲＥＤＩＳ"}) {
    EXPECT_TRUE(Finds(text, q)) << q;
  }
  for (const char* q : {"评系", "搜文", "postgres", "评论 postgres", "Redis 日本"}) {
    EXPECT_FALSE(Finds(text, q)) << q;
  }
}

TEST(SearchTerms, QueriesAreCheckedAndMayHoldNothingToLookFor) {
  EXPECT_FALSE(ParseSearchQuery(""));
  EXPECT_FALSE(ParseSearchQuery("   \t"));
  EXPECT_FALSE(ParseSearchQuery("\xFF\xFE"));
  EXPECT_FALSE(ParseSearchQuery(std::string(201, 'a')));
  auto one = ParseSearchQuery("中");
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->empty());
  auto punct = ParseSearchQuery("?!");
  ASSERT_TRUE(punct);
  EXPECT_TRUE(punct->empty());
  auto q = ParseSearchQuery("redis 中文搜索 Redis");
  ASSERT_TRUE(q);
  // One phrase per word (repeats once), one per CJK run, sorted.
  ASSERT_EQ(q->phrases.size(), 2u);
  EXPECT_EQ(q->phrases[0], (std::vector<std::string>{"qredis"}));
  EXPECT_EQ(q->phrases[1], (std::vector<std::string>{Pair("中文"), Pair("文搜"), Pair("搜索")}));
  // Every token is [a-z0-9]: safe inside any backend's query syntax.
  for (const auto& phrase : q->phrases) {
    for (const auto& token : phrase) {
      EXPECT_EQ(token.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789"), std::string::npos);
    }
  }
  EXPECT_TRUE(SearchTerms("\xC3").empty());  // invalid UTF-8: nothing
}

TEST(SearchTerms, ALongCjkRunIsSearchedAsOverlappingPhrasesOfAtMost64Pairs) {
  std::string run;
  for (int i = 0; i < 150; ++i) {
    run += i % 2 ? "文" : "中";
  }
  run += "搜";  // so that the last phrase differs from the others
  auto q = ParseSearchQuery(run);
  ASSERT_TRUE(q);
  size_t pairs = 0;
  for (const auto& phrase : q->phrases) {
    EXPECT_LE(phrase.size(), kMaxPhraseTerms);
    pairs = std::max(pairs, phrase.size());
  }
  EXPECT_EQ(pairs, kMaxPhraseTerms);
  // Every phrase is in the run's own terms, in order: the text itself is still found.
  const std::vector<std::string> all = Tokens(run);
  for (const auto& phrase : q->phrases) {
    EXPECT_NE(std::search(all.begin(), all.end(), phrase.begin(), phrase.end()), all.end());
  }
}

TEST(SearchTerms, LongWordsAreCutAlikeInTextAndQuery) {
  const std::string word(60, 'a');
  auto tokens = Tokens(word);
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].size(), 1 + kMaxWordBytes);
  EXPECT_TRUE(Finds(word, word));
  const std::string cafe = "é" + std::string(50, 'e');  // cut at a code point, not inside one
  auto u = Tokens(cafe);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].size(), 1 + 2 * kMaxWordBytes);
}

TEST(SearchSnippet, MarksEveryMatchEscapesTheRestAndSaysWhereItWasCut) {
  auto q = ParseSearchQuery("redis 搜索");
  ASSERT_TRUE(q);
  EXPECT_EQ(SearchSnippet("Use <Redis> for 搜索 & more", *q),
            "Use &lt;<mark>Redis</mark>&gt; for <mark>搜索</mark> &amp; more");
  const std::string lead(100, 'x');
  const std::string tail(300, 'y');
  const std::string snip = SearchSnippet(lead + " Redis " + tail, *q, 60);
  EXPECT_EQ(snip.rfind("…", 0), 0u) << snip;  // cut before
  EXPECT_NE(snip.find("<mark>Redis</mark>"), std::string::npos) << snip;
  EXPECT_EQ(snip.substr(snip.size() - 3), "…") << snip;  // and after
  // No match (a title-only hit): the text's start.
  EXPECT_EQ(SearchSnippet("nothing here", *q), "nothing here");
  // A match across a CJK phrase is one mark.
  auto cjk = ParseSearchQuery("中文搜索");
  ASSERT_TRUE(cjk);
  EXPECT_EQ(SearchSnippet("支持中文搜索。", *cjk), "支持<mark>中文搜索</mark>。");
}

TEST(SearchSnippet, ALongTextIsReadUpToItsFirstMatchAndNoFurtherThanTheScanBound) {
  auto q = ParseSearchQuery("quokka");
  ASSERT_TRUE(q);
  // Words of every length around the 8 KiB stretches, so that some straddle their seams.
  std::string filler;
  for (int i = 0; filler.size() < 40'000; ++i) {
    filler += std::string(1 + i % 37, static_cast<char>('a' + i % 26)) + " 中文 ";
  }
  const std::string deep = SearchSnippet(filler + "Quokka smiles", *q);
  EXPECT_EQ(deep.rfind("…", 0), 0u) << deep;
  EXPECT_NE(deep.find("<mark>Quokka</mark> smiles"), std::string::npos) << deep;
  // A match at every offset near a seam (the first stretch ends at 8 KiB) is found.
  for (size_t at = 8 * 1024 - 300; at < 8 * 1024 + 40; at += 7) {
    const std::string text = std::string(at, 'z') + " quokka " + std::string(100, 'z');
    EXPECT_NE(SearchSnippet(text, *q).find("<mark>quokka</mark>"), std::string::npos) << at;
  }
  // Past the bound: the text's start, unmarked.
  const std::string far = std::string(kMaxSnippetScanBytes + 100, 'x') + " quokka";
  const std::string start = SearchSnippet(far, *q);
  EXPECT_EQ(start.find("<mark>"), std::string::npos);
  EXPECT_EQ(start.rfind("xxx", 0), 0u);
}

}  // namespace
}  // namespace plaudit::text

// What the index keeps of an article (domain/search.hpp): published articles and posts only,
// by their visible text.
namespace plaudit::domain {
namespace {

TEST(SearchDoc, OnlyPublishedArticlesAndPostsByTheirVisibleText) {
  sql::IndexedArticle a{7, "article", "published", "Redis notes",
                        "<p>Hello <b>world</b></p><script>secret()</script>"};
  auto doc = SearchService::DocOf(a);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->title_terms, "qredis qnotes");
  EXPECT_EQ(doc->body_terms, "qhello qworld");
  EXPECT_EQ(doc->body_text.find("secret"), std::string::npos) << doc->body_text;
  a.kind = "post";
  EXPECT_TRUE(SearchService::DocOf(a));
  a.kind = "page";  // a page's thread is no article to find
  EXPECT_FALSE(SearchService::DocOf(a));
  a.kind = "article";
  a.status = "draft";
  EXPECT_FALSE(SearchService::DocOf(a));
  // A long text is indexed by its start, cut at a code point.
  a.status = "published";
  a.content = "<p>" + std::string(SearchService::kMaxIndexedTextBytes - 1, 'a') + "é tail</p>";
  auto cut = SearchService::DocOf(a);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->body_text.size(), SearchService::kMaxIndexedTextBytes - 1);
}

}  // namespace
}  // namespace plaudit::domain
