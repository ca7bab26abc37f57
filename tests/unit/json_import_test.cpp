// import --from waline and --from twikoo: the streaming JSON reader (transfer/json_reader.cpp)
// and the two readers on samples of their real formats (tests/data/import/waline.json and
// twikoo*.json, after docs/import-formats.md §3.8 and §4.5): records with their lines, ids of
// either type, the times each backend writes, statuses, pages by path, bad files refused with
// the line, records over 16 MiB refused without being held whole.
#include <gtest/gtest.h>

#include <sstream>

#include "foreign_test_support.hpp"
#include "transfer/foreign_plan.hpp"
#include "transfer/json_reader.hpp"

namespace plaudit::transfer {
namespace {

using test::Collect;
constexpr auto Data = test::ImportSample;
constexpr auto Read = test::ReadText;

TEST(WalineReaderTest, ReadsTheCommentTableWithLinesParentsStatusesAndMarkdown) {
  Collect got;
  ASSERT_TRUE(Read(Source::kWaline, Data("waline.json"), got));
  EXPECT_TRUE(got.threads.empty());    // pages are the comments' paths (the plan makes them)
  ASSERT_EQ(got.comments.size(), 5u);  // Counter and Users rows are no comments
  const ForeignComment& alice = got.comments[0];
  EXPECT_EQ(alice.id, "1");
  EXPECT_EQ(alice.thread, "/2024/01/hello-world/");
  EXPECT_EQ(alice.thread_url, "/2024/01/hello-world/");
  EXPECT_EQ(alice.parent, "");
  EXPECT_EQ(alice.author, "Alice");
  EXPECT_EQ(alice.email, "alice@example.com");
  EXPECT_EQ(alice.created_ms, int64_t{1705314600000});
  EXPECT_EQ(alice.text, "Great post! Here is a link: [example](https://example.com)");
  EXPECT_EQ(alice.format, TextFormat::kMarkdown);
  EXPECT_EQ(alice.status, ForeignStatus::kApproved);
  EXPECT_EQ(alice.line, 13);
  EXPECT_EQ(got.comments[1].parent, "1");
  EXPECT_EQ(got.comments[1].line, 32);
  EXPECT_EQ(got.comments[2].parent, "2");                      // pid, not rid
  EXPECT_EQ(got.comments[2].status, ForeignStatus::kPending);  // "waiting"
  EXPECT_EQ(got.comments[3].status, ForeignStatus::kSpam);
  EXPECT_EQ(got.comments[4].thread, "/posts/你好/");
}

TEST(WalineReaderTest, TimesOfEveryBackendStringIdsAndRowsWithoutStatus) {
  const std::string json = R"({"type":"waline","version":1,"data":{"Comment":[
{"objectId":"k3j9x0a1b2c","url":"/a/","insertedAt":"2024-01-15 10:30:00","comment":"x"},
{"objectId":"5f1e","url":"/a/","insertedAt":{"__type":"Date","iso":"2024-01-15T10:30:00.000Z"},
 "pid":"k3j9x0a1b2c","status":""},
{"objectId":7,"url":"/a/","insertedAt":{"$date":"2024-01-15T10:30:00Z"},"pid":""},
{"objectId":8,"url":"/a/","createdAt":1705314600000,"pid":null},
{"objectId":9,"url":"","insertedAt":"yesterday"},
"not an object"
]}})";
  Collect got;
  ASSERT_TRUE(Read(Source::kWaline, json, got));
  ASSERT_EQ(got.comments.size(), 6u);
  const int64_t lines[] = {2, 3, 5, 6};  // where each begins (the second has two)
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(got.comments[i].created_ms, int64_t{1705314600000}) << i;
    EXPECT_EQ(got.comments[i].status, ForeignStatus::kApproved) << i;
    EXPECT_EQ(got.comments[i].line, lines[i]) << i;
  }
  EXPECT_EQ(got.comments[0].id, "k3j9x0a1b2c");
  EXPECT_EQ(got.comments[1].parent, "k3j9x0a1b2c");
  EXPECT_EQ(got.comments[2].id, "7");
  EXPECT_EQ(got.comments[2].parent, "");
  EXPECT_EQ(got.comments[3].parent, "");
  EXPECT_EQ(got.comments[4].created_ms, std::nullopt);
  EXPECT_EQ(got.comments[4].skip, "it names no page (no \"url\")");
  EXPECT_EQ(got.comments[5].skip, "it is not a JSON object");
}

TEST(WalineReaderTest, RefusesOtherFilesBadJsonAndFilesCutShortWithTheLine) {
  Collect got;
  auto st = Read(Source::kWaline, Data("twikoo.json"), got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,  // found out at its end
            "line 98: not a Waline export (no \"type\": \"waline\" in its top object)");

  st = Read(Source::kWaline, R"({"type":"valine","data":{"Comment":[{"objectId":1}]}})", got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "line 1: not a Waline export (no \"type\": \"waline\" in its top object)");

  const std::string sample = Data("waline.json");
  st = Read(Source::kWaline, sample.substr(0, sample.find("\"objectId\": 3")), got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "line 68: the file ends inside a JSON document");

  std::string broken = sample;
  broken.replace(broken.find("\"like\": 0,"), 10, "\"like\": 0,,");
  st = Read(Source::kWaline, broken, got);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("line 44: not well-formed JSON ("), std::string::npos)
      << st.error().message;

  st = Read(Source::kWaline, sample + "\n{}", got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "line 153: more than one JSON document in the file");
}

TEST(TwikooReaderTest, ReadsTheArrayWithPagesParentsAndHiddenCommentsPending) {
  Collect got;
  ASSERT_TRUE(Read(Source::kTwikoo, Data("twikoo.json"), got));
  ASSERT_EQ(got.comments.size(), 5u);
  const ForeignComment& alice = got.comments[0];
  EXPECT_EQ(alice.id, "3f1c2a9be4d04c6f9a7e5b1d2c3a4b5c");
  EXPECT_EQ(alice.thread_url, "/2024/01/hello-world/");
  EXPECT_EQ(alice.parent, "");
  EXPECT_EQ(alice.author, "Alice");
  EXPECT_EQ(alice.created_ms, int64_t{1705314600000});
  EXPECT_EQ(alice.text, "<p>Great post! <a href=\"https://example.com\">example</a></p>\n");
  EXPECT_EQ(alice.format, TextFormat::kHtml);
  EXPECT_EQ(alice.status, ForeignStatus::kApproved);
  EXPECT_EQ(alice.line, 2);
  EXPECT_EQ(got.comments[1].parent, "3f1c2a9be4d04c6f9a7e5b1d2c3a4b5c");
  EXPECT_EQ(got.comments[2].parent, "7a6b5c4d3e2f41a0b9c8d7e6f5a4b3c2");  // pid, not rid
  EXPECT_EQ(got.comments[2].status, ForeignStatus::kPending);             // isSpam: spam or held
  EXPECT_EQ(got.comments[3].status, ForeignStatus::kPending);
  EXPECT_EQ(got.comments[4].thread_url, "/about");
  EXPECT_EQ(got.comments[4].line, 78);
}

TEST(TwikooReaderTest, ReadsJsonLinesWithMongoFieldsTheResultsFormAndSkipsCounters) {
  Collect lines;
  ASSERT_TRUE(Read(Source::kTwikoo, Data("twikoo-lines.json"), lines));
  ASSERT_EQ(lines.comments.size(), 2u);
  EXPECT_EQ(lines.comments[0].id, "65a4f0c2e4b0a1b2c3d4e5f6");
  EXPECT_EQ(lines.comments[0].created_ms, int64_t{1705314600000});  // {"$numberLong"}
  EXPECT_EQ(lines.comments[1].parent, "65a4f0c2e4b0a1b2c3d4e5f6");
  EXPECT_EQ(lines.comments[1].line, 2);

  Collect results;
  ASSERT_TRUE(Read(Source::kTwikoo,
                   "{\"results\": [\n{\"_id\": \"a\", \"url\": \"/x\", \"comment\": \"<p>hi</p>\","
                   " \"rid\": \"\", \"isSpam\": \"true\", \"updated\": 1705314600000},\n"
                   "{\"_id\": \"b\", \"url\": \"/x\", \"title\": \"X\", \"time\": 3}]}",
                   results));
  ASSERT_EQ(results.comments.size(), 2u);
  EXPECT_EQ(results.comments[0].line, 2);
  EXPECT_EQ(results.comments[0].status, ForeignStatus::kPending);
  EXPECT_EQ(results.comments[0].created_ms, int64_t{1705314600000});  // updated, when no created
  EXPECT_EQ(results.comments[1].skip, "it is not a comment (no \"comment\": a counter?)");
}

TEST(JsonRecordStreamTest, RefusesDeepNestingAndRecordsOverSixteenMebibytes) {
  Collect got;
  auto st = Read(Source::kTwikoo, std::string(40, '[') + std::string(40, ']'), got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "line 1: JSON nested deeper than 32");

  // A string of 20 MiB in one record, on one line: refused once 16 MiB of it are read.
  st = Read(Source::kTwikoo,
            "[{\"_id\": \"a\", \"comment\": \"" + std::string(size_t{20} << 20, 'x') + "\"}]", got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "line 1: a record longer than 16 MiB");

  // A long text under the limit is read, and kept to its first MiB (cut between characters).
  std::string text = "é" + std::string(kMaxForeignText, 'y');
  got.comments.clear();
  ASSERT_TRUE(Read(Source::kTwikoo,
                   "[{\"_id\": \"a\", \"url\": \"/x\", \"comment\": \"" + text + "\"}]", got));
  ASSERT_EQ(got.comments.size(), 1u);
  EXPECT_EQ(got.comments[0].text.size(), kMaxForeignText);
  EXPECT_TRUE(got.comments[0].text_cut);
  // Text that is not whole records outside the chosen arrays is not held.
  got.comments.clear();
  ASSERT_TRUE(Read(Source::kWaline,
                   "{\"type\": \"waline\", \"data\": {\"Users\": [{\"password\": \"" +
                       std::string(size_t{20} << 20, 'p') + "\"}], \"Comment\": []}}",
                   got));
  EXPECT_TRUE(got.comments.empty());
}

// Twikoo leaves replies behind when it deletes a comment (Twikoo showed them no more): they
// are skipped with their line, as every format's comments whose parent is not in the file.
TEST(JsonImportPlanTest, PagesByPathUnderSiteMergedWithAndWithoutTheTrailingSlash) {
  ForeignPlan plan(PlanOptions{"https://blog.example.org", {"https://blog.example.org"}});
  std::istringstream in(Data("twikoo.json"));
  ASSERT_TRUE(ReadForeign(Source::kTwikoo, in, plan));
  plan.Resolve();
  ASSERT_EQ(plan.pages().size(), 2u);
  EXPECT_EQ(plan.pages()[0].url, "https://blog.example.org/2024/01/hello-world");
  EXPECT_EQ(plan.pages()[1].url, "https://blog.example.org/about");
  EXPECT_EQ(DescribePlan(plan, true, 10),
            "read 0 threads and 5 comments\n"
            "would import: 2 pages; comments: 2 approved, 2 pending, 0 spam, 0 deleted with "
            "replies (placeholders)\n"
            "left out: 0 deleted; skipped: 1\n"
            "  line 78: comment c4d5e6f7a8b94c0d1e2f3a4b5c6d7e8f skipped: its parent "
            "ffffffffffffffffffffffffffffffff is not in the file\n");
}

TEST(TwikooReaderTest, RefusesFilesThatAreNoTwikooExportAndReadsAByteOrderMark) {
  for (const std::string text : {"", "  \n", "{}", "null", "\"x\"", "5\n"}) {
    Collect got;
    auto st = Read(Source::kTwikoo, text, got);
    ASSERT_FALSE(st) << text;
    EXPECT_NE(st.error().message.find("not a Twikoo export ("), std::string::npos)
        << text << ": " << st.error().message;
  }
  Collect got;
  auto st = Read(Source::kTwikoo, Data("waline.json"), got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message,
            "line 152: not a Twikoo export (no document in it has a \"comment\")");
  // An empty export is one.
  ASSERT_TRUE(Read(Source::kTwikoo, "[]", got));
  // A byte order mark before the JSON (Windows editors write one).
  Collect bom;
  ASSERT_TRUE(Read(Source::kTwikoo, "\xEF\xBB\xBF" + Data("twikoo.json"), bom));
  EXPECT_EQ(bom.comments.size(), 5u);
}

TEST(TwikooReaderTest, AJsonLinesDocumentOnManyLinesStartsAtItsBrace) {
  Collect got;
  ASSERT_TRUE(Read(Source::kTwikoo,
                   "{\n  \"_id\": \"a\",\n  \"url\": \"/x\",\n  \"comment\": \"1\"\n}\n"
                   "{\n  \"_id\": \"b\", \"url\": \"/x\", \"comment\": \"2\"}\n",
                   got));
  ASSERT_EQ(got.comments.size(), 2u);
  EXPECT_EQ(got.comments[0].line, 1);
  EXPECT_EQ(got.comments[1].line, 6);
}

TEST(JsonFieldsTest, TimesOutOfRangeAreNoneSecondsAreReadAsSecondsAndFloatIdsAreNotTopLevel) {
  Collect got;
  ASSERT_TRUE(Read(Source::kTwikoo, R"([
{"_id":"a","url":"/t","comment":"x","created":1e300},
{"_id":"b","url":"/t","comment":"x","created":{"$numberLong":"9223372036854775807"}},
{"_id":"c","url":"/t","comment":"x","created":1705314600},
{"_id":"d","url":"/t","comment":"x","created":"1705314600000"},
{"_id":3.0,"url":"/t","comment":"x","pid":2.5},
{"_id":"f","url":"/t","comment":"x","created":-1e300}
])",
                   got));
  ASSERT_EQ(got.comments.size(), 6u);
  EXPECT_EQ(got.comments[0].created_ms, std::nullopt);
  // Kept as read: the plan skips a time after 9999 as unreadable (below).
  EXPECT_EQ(got.comments[1].created_ms, INT64_MAX);
  EXPECT_EQ(got.comments[2].created_ms, int64_t{1705314600000});
  EXPECT_EQ(got.comments[3].created_ms, int64_t{1705314600000});
  EXPECT_EQ(got.comments[4].id, "3");
  EXPECT_EQ(got.comments[4].parent, "2.5E0");  // no comment's id
  EXPECT_EQ(got.comments[5].created_ms, std::nullopt);

  ForeignPlan plan(PlanOptions{"https://blog.example.org", {"https://blog.example.org"}});
  for (auto& c : got.comments) {
    c.thread = c.thread_url = "/t";
    ASSERT_TRUE(plan.Comment(c));
  }
  plan.Resolve();
  EXPECT_LT(plan.comment(0).page, 0);
  EXPECT_LT(plan.comment(1).page, 0);
  EXPECT_GE(plan.comment(2).page, 0);
  EXPECT_LT(plan.comment(4).page, 0);  // its parent 2.5 is not in the file
}

TEST(JsonRecordStreamTest, KeysOutsideRecordsAreNotHeldAndAFirstKeyCountsTowardsItsRecord) {
  Collect got;
  // A key of 20 MiB beside the comments: not kept (memory), the comments read.
  ASSERT_TRUE(Read(Source::kWaline,
                   "{\"type\": \"waline\", \"" + std::string(size_t{20} << 20, 'k') +
                       "\": 1, \"data\": {\"Comment\": [{\"objectId\": 1, \"url\": \"/a\"}]}}",
                   got));
  EXPECT_EQ(got.comments.size(), 1u);
  // A JSON Lines document's first key of 20 MiB: its record is longer than 16 MiB.
  auto st = Read(Source::kTwikoo, "{\"" + std::string(size_t{20} << 20, 'k') + "\": 1}\n", got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "line 1: a record longer than 16 MiB");
}

TEST(JsonImportPlanTest, PathsAnyStringJoinedToSiteEncodedAndQueriesThatJoinPagesReported) {
  Collect got;
  ASSERT_TRUE(Read(Source::kTwikoo, R"([
{"_id":"a","url":"post-a","comment":"x","created":1705314600000},
{"_id":"b","url":"post-b","comment":"x","created":1705314600000},
{"_id":"c","url":"/a b|c/","comment":"x","created":1705314600000},
{"_id":"d","url":"/redirect?u=http://x","comment":"x","created":1705314600000},
{"_id":"e","url":"\u001b[2J","comment":"x","created":1705314600000}
])",
                   got));
  ForeignPlan plan(PlanOptions{"https://blog.example.org", {"https://blog.example.org"}});
  for (auto& c : got.comments) {
    ASSERT_TRUE(plan.Comment(c));
  }
  plan.Resolve();
  ASSERT_EQ(plan.pages().size(), 5u);
  EXPECT_EQ(plan.pages()[0].url, "https://blog.example.org/post-a");
  EXPECT_EQ(plan.pages()[1].url, "https://blog.example.org/post-b");
  EXPECT_EQ(plan.pages()[2].url, "https://blog.example.org/a%20b%7Cc");
  EXPECT_EQ(plan.pages()[3].url, "https://blog.example.org/redirect");
  EXPECT_EQ(plan.pages()[4].url, "https://blog.example.org/%1B%5B2J");

  // Plain permalinks: two posts, one page (the widget's too), said.
  const std::string wxr = R"(<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel>
<item><link>https://blog.example.org/?p=10</link><wp:post_id>10</wp:post_id>
<wp:comment><wp:comment_id>1</wp:comment_id><wp:comment_approved>1</wp:comment_approved>
<wp:comment_date_gmt>2024-01-15 10:30:00</wp:comment_date_gmt></wp:comment></item>
<item><link>https://blog.example.org/?p=11</link><wp:post_id>11</wp:post_id>
<wp:comment><wp:comment_id>2</wp:comment_id><wp:comment_approved>1</wp:comment_approved>
<wp:comment_date_gmt>2024-01-15 10:30:00</wp:comment_date_gmt></wp:comment></item>
</channel></rss>)";
  ForeignPlan wp(PlanOptions{"", {"https://blog.example.org"}});
  std::istringstream in(wxr);
  ASSERT_TRUE(ReadForeign(Source::kWordpress, in, wp));
  wp.Resolve();
  ASSERT_EQ(wp.pages().size(), 1u);
  ASSERT_EQ(wp.problems().size(), 1u);
  EXPECT_EQ(wp.problems()[0].line, 5);
  EXPECT_EQ(wp.problems()[0].message,
            "a thread's URL https://blog.example.org/?p=11 is the page https://blog.example.org/ "
            "of https://blog.example.org/?p=10 (a page's URL has no query): their comments are "
            "joined");
}

TEST(JsonImportPlanTest, ProblemsQuoteControlCharactersEscaped) {
  EXPECT_EQ(QuotedText("a\x1b[2J\x7f"
                       "b"),
            "a\\x1b[2J\\x7fb");
  EXPECT_EQ(QuotedText(std::string(300, 'x')), std::string(200, 'x') + "…");
}

}  // namespace
}  // namespace plaudit::transfer
