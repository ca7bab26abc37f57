// import --from: the Disqus reader (transfer/disqus.cpp) on a sample of the real format
// (tests/data/import/disqus.xml, written after docs/import-formats.md), and the plan of what
// becomes what (transfer/foreign_plan.hpp): pages merged by URL, replies flattened, deleted
// comments kept only as placeholders with replies, orphans and broken chains skipped with
// their lines, bad XML refused.
#include <gtest/gtest.h>

#include <sstream>

#include "foreign_test_support.hpp"
#include "text/utf8.hpp"
#include "transfer/foreign_plan.hpp"
#include "transfer/xml_reader.hpp"

namespace plaudit::transfer {
namespace {

using test::Collect;

std::string Sample() { return test::ImportSample("disqus.xml"); }

TEST(DisqusReaderTest, ReadsThreadsAndPostsWithTheirReferencesTimesAndLines) {
  std::istringstream in(Sample());
  Collect got;
  ASSERT_TRUE(ReadDisqus(in, got));
  // 7001 is also known by its <id> text (Disqus's own example refers to threads that way).
  ASSERT_EQ(got.threads.size(), 5u);
  EXPECT_EQ(got.threads[0].key, "text:https://blog.example.org/2020/05/hello/");
  EXPECT_EQ(got.threads[1].key, "7001");
  EXPECT_EQ(got.threads[1].url, "https://blog.example.org/2020/05/hello/");
  EXPECT_EQ(got.threads[1].title, "Hello world");
  EXPECT_EQ(got.threads[1].created_ms, int64_t{1588320000000});
  EXPECT_EQ(got.threads[1].line, 9);
  ASSERT_EQ(got.comments.size(), 6u);
  const ForeignComment& first = got.comments[0];
  EXPECT_EQ(first.id, "9001");
  EXPECT_EQ(first.thread, "7001");
  EXPECT_EQ(first.parent, "");
  EXPECT_EQ(first.author, "Alice");
  EXPECT_EQ(first.email, "alice@example.com");
  EXPECT_EQ(first.text,
            "<p>Great post!</p><p><a href=\"https://example.com/\" rel=\"nofollow noopener\" "
            "title=\"https://example.com/\">example.com</a></p>");
  EXPECT_EQ(first.format, TextFormat::kHtml);
  EXPECT_EQ(first.status, ForeignStatus::kApproved);
  EXPECT_FALSE(first.deleted);
  EXPECT_EQ(got.comments[1].parent, "9001");
  EXPECT_EQ(got.comments[1].text, "<p>Thanks Alice &amp; all.<br>Second line.</p>");
  EXPECT_EQ(got.comments[1].email, "");
  EXPECT_TRUE(got.comments[2].deleted);
  EXPECT_EQ(got.comments[4].status, ForeignStatus::kSpam);
  EXPECT_EQ(got.comments[4].text, "cheap pills here");
  EXPECT_EQ(got.comments[5].thread, "7999");
}

TEST(DisqusReaderTest, RefusesWhatIsNotADisqusExportOrNotWellFormedWithTheLine) {
  Collect got;
  std::istringstream rss("<?xml version=\"1.0\"?>\n<rss><channel/></rss>");
  auto st = ReadDisqus(rss, got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "line 2: not a Disqus export (its root is <rss>, not <disqus>)");

  std::string sample = Sample();
  std::istringstream cut(sample.substr(0, sample.find("<post dsq:id=\"9004\">")));
  st = ReadDisqus(cut, got);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("not well-formed XML"), std::string::npos)
      << st.error().message;

  std::string broken = sample;
  broken.replace(broken.find("<isSpam>false</isSpam>"), 22, "<isSpam>false</isSpm>");
  std::istringstream bad(broken);
  st = ReadDisqus(bad, got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "line 69: not well-formed XML (mismatched tag)");
}

TEST(DisqusReaderTest, RefusesDeepNestingAndTagsOfMegabytesWithoutReadingThemWhole) {
  Collect got;
  std::string deep = "<disqus>";
  for (int i = 0; i < 40; ++i) {
    deep += "<a>";
  }
  std::istringstream nested(deep);
  auto st = ReadDisqus(nested, got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "line 1: elements nested deeper than 32");

  // expat 2.5 parses an unfinished token again for every piece fed: quadratic in its length.
  std::istringstream huge(
      "<disqus xmlns:dsq=\"http://disqus.com/disqus-internals\">\n<post "
      "dsq:id=\"" +
      std::string(size_t{9} << 20, 'z') + "\"/></disqus>");
  st = ReadDisqus(huge, got);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("a tag or token longer than 8 MiB"), std::string::npos)
      << st.error().message;

  // A long text is read (and kept to its first MiB).
  std::istringstream text(
      "<disqus xmlns:dsq=\"http://disqus.com/disqus-internals\"><post "
      "dsq:id=\"1\"><message>" +
      std::string(size_t{20} << 20, 'x') + "</message></post></disqus>");
  got.comments.clear();
  ASSERT_TRUE(ReadDisqus(text, got));
  ASSERT_EQ(got.comments.size(), 1u);
  EXPECT_EQ(got.comments[0].text.size(), kMaxElementText);
  EXPECT_TRUE(got.comments[0].text_cut);

  // ... cut between characters: 349,525 three-byte ones are 1,048,575 bytes, and the next
  // would cross the MiB (a text cut inside one is no longer UTF-8: the importer would halve it);
  // and the text after the cut (here the '&' of an entity, handed over apart) is not added.
  std::string kana;
  for (int i = 0; i < 400000; ++i) {
    kana += "\xe3\x81\x82";  // U+3042
  }
  std::istringstream wide(
      "<disqus xmlns:dsq=\"http://disqus.com/disqus-internals\"><post "
      "dsq:id=\"1\"><message>" +
      kana + "&amp;ab</message></post></disqus>");
  got.comments.clear();
  ASSERT_TRUE(ReadDisqus(wide, got));
  ASSERT_EQ(got.comments.size(), 1u);
  EXPECT_EQ(got.comments[0].text.size(), size_t{1048575});
  EXPECT_TRUE(text::CodePoints(got.comments[0].text).has_value());
  EXPECT_TRUE(got.comments[0].text.ends_with("\xe3\x81\x82"))  // nothing after the cut
      << got.comments[0].text.substr(got.comments[0].text.size() - 8);
  EXPECT_TRUE(got.comments[0].text_cut);
}

ForeignPlan PlanOf(const std::string& xml, PlanOptions options) {
  ForeignPlan plan(std::move(options));
  std::istringstream in(xml);
  EXPECT_TRUE(ReadDisqus(in, plan));
  plan.Resolve();
  return plan;
}

TEST(ForeignPlanTest, MergesAPagesThreadsFlattensRepliesAndKeepsADeletedParentOnlyWithReplies) {
  const ForeignPlan plan =
      PlanOf(Sample(), {"https://blog.example.org", {"https://blog.example.org"}});
  // http:// and https:// of one page are one page under --site; "about" is the other.
  ASSERT_EQ(plan.pages().size(), 2u);
  EXPECT_EQ(plan.pages()[0].url, "https://blog.example.org/2020/05/hello");
  EXPECT_EQ(plan.pages()[0].title, "Hello world");
  EXPECT_EQ(plan.pages()[0].comments, 3);
  EXPECT_EQ(plan.pages()[1].url, "https://blog.example.org/about");
  const PlanCounts& c = plan.counts();
  EXPECT_EQ(c.threads, 3);
  EXPECT_EQ(c.comments, 6);
  EXPECT_EQ(c.approved, 3);
  EXPECT_EQ(c.spam, 1);
  EXPECT_EQ(c.placeholders, 0);
  EXPECT_EQ(c.deleted_left_out, 1);  // 9003: a reply, deleted
  EXPECT_EQ(c.skipped, 1);           // 9006: its thread is not in the file
  ASSERT_EQ(plan.size(), 6u);
  // 9002 answers 9001 under it; 9004 answered the deleted 9003: under 9001, answering nobody.
  EXPECT_EQ(plan.comment(1).top, 0);
  EXPECT_EQ(plan.comment(1).answers, 0);
  EXPECT_EQ(plan.comment(3).top, 0);
  EXPECT_EQ(plan.comment(3).answers, -1);
  EXPECT_EQ(plan.comment(2).page, -1);
  EXPECT_EQ(plan.comment(4).status, ForeignStatus::kSpam);
  ASSERT_EQ(plan.problems().size(), 1u);
  EXPECT_EQ(plan.problems()[0].line, 147);
  EXPECT_EQ(plan.problems()[0].message, "comment 9006 skipped: its thread 7999 is not in the file");
}

TEST(ForeignPlanTest, WithoutSiteTheHttpThreadIsAnotherPageAndItsReplyToTheOtherIsSkipped) {
  const ForeignPlan plan = PlanOf(Sample(), {"", {"https://blog.example.org"}});
  ASSERT_EQ(plan.pages().size(), 2u);  // http://blog.example.org is not one of --sites
  // 9002 (its thread), so 9003 and 9004 (their parents); 9006 (no thread).
  EXPECT_EQ(plan.counts().skipped, 4);
  std::string all;
  for (const auto& p : plan.problems()) {
    all += std::to_string(p.line) + ": " + p.message + "\n";
  }
  EXPECT_NE(all.find("comment 9002 skipped: its thread (line 29) is on http://blog.example.org, "
                     "which is not one of --sites"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("comment 9004 skipped: its parent (line 98) is skipped"), std::string::npos)
      << all;
}

// A thread of `n` posts, each replying to the one before (a chain deeper than any recursion
// would survive), then a cycle, a duplicate id, a missing parent and a bad time.
std::string Chain(int n) {
  std::string xml =
      "<disqus xmlns:dsq=\"http://disqus.com/disqus-internals\">\n"
      "<thread dsq:id=\"1\"><link>https://b.example/p</link></thread>\n";
  for (int i = 1; i <= n; ++i) {
    xml += "<post dsq:id=\"c" + std::to_string(i) + "\"><thread dsq:id=\"1\"/>" +
           (i > 1 ? "<parent dsq:id=\"c" + std::to_string(i - 1) + "\"/>" : "") +
           "<createdAt>2020-01-01T00:00:00Z</createdAt><message>m</message></post>\n";
  }
  xml +=
      "<post dsq:id=\"x\"><thread dsq:id=\"1\"/><parent dsq:id=\"y\"/>"
      "<createdAt>2020-01-01T00:00:00</createdAt></post>\n"
      "<post dsq:id=\"y\"><thread dsq:id=\"1\"/><parent dsq:id=\"x\"/>"
      "<createdAt>2020-01-01T00:00:00</createdAt></post>\n"
      "<post dsq:id=\"c1\"><thread dsq:id=\"1\"/><createdAt>2020-01-01T00:00:00Z</createdAt>"
      "</post>\n"
      "<post dsq:id=\"z\"><thread dsq:id=\"1\"/><parent dsq:id=\"gone\"/>"
      "<createdAt>2020-01-01T00:00:00Z</createdAt></post>\n"
      "<post dsq:id=\"t\"><thread dsq:id=\"1\"/><createdAt>yesterday</createdAt></post>\n"
      "</disqus>\n";
  return xml;
}

TEST(ForeignPlanTest, DeepChainsCyclesDuplicatesMissingParentsAndBadTimes) {
  const int n = 200'000;
  const ForeignPlan plan = PlanOf(Chain(n), {"", {"https://b.example"}});
  EXPECT_EQ(plan.counts().approved, n);
  EXPECT_EQ(plan.comment(n - 1).top, 0);
  EXPECT_EQ(plan.comment(n - 1).answers, n - 2);
  EXPECT_EQ(plan.counts().skipped, 5);
  std::string all;
  for (const auto& p : plan.problems()) {
    all += std::to_string(p.line) + ": " + p.message + "\n";
  }
  // The walk from x meets x again above y: y is decided first, and x after it.
  const std::string y_line = std::to_string(n + 4);
  EXPECT_NE(all.find(y_line + ": comment y skipped: it is its own ancestor"), std::string::npos)
      << all;
  EXPECT_NE(all.find(": comment x skipped: its parent (line " + y_line + ") is skipped"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find(": comment c1 skipped: its id was seen before"), std::string::npos) << all;
  EXPECT_NE(all.find(": comment z skipped: its parent gone is not in the file"), std::string::npos)
      << all;
  EXPECT_NE(all.find(": comment t skipped: its time cannot be read"), std::string::npos) << all;
}

TEST(ForeignPlanTest, AProblemQuotesAtMostTwoHundredBytesOfAUrlOrId) {
  const std::string url = "https://elsewhere.example/" + std::string(size_t{1} << 20, 'p');
  std::string xml =
      "<disqus xmlns:dsq=\"http://disqus.com/disqus-internals\"><thread "
      "dsq:id=\"1\"><link>" +
      url + "</link></thread>";
  for (int i = 0; i < 300; ++i) {
    xml += "<post dsq:id=\"" + std::to_string(i) +
           "\"><thread dsq:id=\"1\"/><createdAt>2020-01-01T00:00:00Z</createdAt></post>";
  }
  xml += "</disqus>";
  const ForeignPlan plan = PlanOf(xml, {"", {"https://b.example"}});
  ASSERT_EQ(plan.problems().size(), 300u);
  for (const auto& p : plan.problems()) {
    ASSERT_LT(p.message.size(), 400u);
  }
  EXPECT_NE(plan.problems()[0].message.find("has a URL that is not a page's "
                                            "(https://elsewhere.example/ppp"),
            std::string::npos)
      << plan.problems()[0].message;
}

TEST(ForeignPlanTest, DescribesWhatWouldBeImportedAndTheProblems) {
  const ForeignPlan plan =
      PlanOf(Sample(), {"https://blog.example.org", {"https://blog.example.org"}});
  EXPECT_EQ(DescribePlan(plan, true, 10),
            "read 3 threads and 6 comments\n"
            "would import: 2 pages; comments: 3 approved, 0 pending, 1 spam, 0 deleted with "
            "replies (placeholders)\n"
            "left out: 1 deleted; skipped: 1\n"
            "  line 147: comment 9006 skipped: its thread 7999 is not in the file\n");
}

}  // namespace
}  // namespace plaudit::transfer
