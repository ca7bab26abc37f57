// import --from wordpress: the WXR reader (transfer/wordpress.cpp) on a sample of the real
// format (tests/data/import/wordpress.xml, after docs/import-formats.md §2.9), and what the
// plan makes of it: statuses 1/0/spam/trash, replies by comment_parent, pingbacks skipped,
// the comments of a trashed post left out, ids scoped to their post, the local time only
// when the UTC one is missing.
#include <gtest/gtest.h>

#include <sstream>

#include "foreign_test_support.hpp"
#include "transfer/foreign_plan.hpp"

namespace plaudit::transfer {
namespace {

using test::Collect;

std::string Sample() { return test::ImportSample("wordpress.xml"); }

Status Read(const std::string& xml, Collect& got) {
  return test::ReadText(Source::kWordpress, xml, got);
}

TEST(WordpressReaderTest, ReadsPostsAndTheirCommentsWithParentsStatusesTimesAndLines) {
  Collect got;
  ASSERT_TRUE(Read(Sample(), got));
  ASSERT_EQ(got.threads.size(), 2u);
  const ForeignThread& post = got.threads[0];
  EXPECT_EQ(post.key, "p10");
  EXPECT_EQ(post.url, "https://blog.example.org/2024/01/hello-world/");
  EXPECT_EQ(post.title, "Hello world");
  EXPECT_EQ(post.created_ms, int64_t{1705309200000});  // post_date_gmt
  EXPECT_FALSE(post.deleted);
  EXPECT_EQ(post.line, 23);
  EXPECT_TRUE(got.threads[1].deleted);  // wp:status trash

  ASSERT_EQ(got.comments.size(), 6u);
  const ForeignComment& alice = got.comments[0];
  EXPECT_EQ(alice.id, "10:21");
  EXPECT_EQ(alice.thread, "p10");
  EXPECT_EQ(alice.parent, "");
  EXPECT_EQ(alice.author, "Alice");
  EXPECT_EQ(alice.email, "alice@example.com");
  EXPECT_EQ(alice.created_ms, int64_t{1705314600000});  // comment_date_gmt, not the local one
  // wpautop: a newline is a line break, a blank line a new paragraph.
  EXPECT_EQ(alice.text,
            "<p>Nice post!<br>\nSecond line is a <strong>soft</strong> break.</p>\n"
            "<p>New paragraph.</p>");
  EXPECT_EQ(alice.format, TextFormat::kHtml);
  EXPECT_EQ(alice.status, ForeignStatus::kApproved);
  EXPECT_EQ(alice.line, 45);
  EXPECT_TRUE(alice.skip.empty());

  EXPECT_EQ(got.comments[1].parent, "10:21");
  EXPECT_EQ(got.comments[2].parent, "10:22");
  EXPECT_EQ(got.comments[2].status, ForeignStatus::kPending);  // comment_approved 0
  EXPECT_EQ(got.comments[2].created_ms, int64_t{1705388400000});
  EXPECT_TRUE(got.comments[3].deleted);  // trash
  EXPECT_EQ(got.comments[4].skip, "a pingback, not a reader's comment");
  EXPECT_EQ(got.comments[5].id, "12:30");
  EXPECT_EQ(got.comments[5].thread, "p12");
  EXPECT_TRUE(got.comments[5].deleted);  // post-trashed
}

TEST(WordpressReaderTest, SpamLocalTimesOlderNamespacesAndIdsScopedToTheirPost) {
  // WXR 1.0's namespace, a spam comment, a comment without its UTC time, and one comment id in
  // two posts (exports of merged sites have them).
  const std::string xml = R"(<?xml version="1.0"?>
<rss xmlns:wp="http://wordpress.org/export/1.0/"><channel>
<item><link>https://a.example/x/</link><wp:post_id>1</wp:post_id>
<wp:comment><wp:comment_id>5</wp:comment_id><wp:comment_approved>spam</wp:comment_approved>
<wp:comment_date>2024-01-15 11:30:00</wp:comment_date>
<wp:comment_date_gmt>0000-00-00 00:00:00</wp:comment_date_gmt></wp:comment>
</item>
<item><link>https://a.example/y/</link><wp:post_id>2</wp:post_id>
<wp:comment><wp:comment_id>5</wp:comment_id><wp:comment_approved>1</wp:comment_approved>
<wp:comment_parent>0</wp:comment_parent></wp:comment>
<wp:comment><wp:comment_id>6</wp:comment_id><wp:comment_approved>1</wp:comment_approved>
<wp:comment_parent>5</wp:comment_parent><wp:comment_type>trackback</wp:comment_type></wp:comment>
</item>
<item><link>https://a.example/no-comments/</link><wp:post_id>3</wp:post_id></item>
</channel></rss>)";
  Collect got;
  ASSERT_TRUE(Read(xml, got));
  ASSERT_EQ(got.threads.size(), 2u);  // a post without comments is no thread to import
  ASSERT_EQ(got.comments.size(), 3u);
  EXPECT_EQ(got.comments[0].status, ForeignStatus::kSpam);
  EXPECT_EQ(got.comments[0].created_ms, int64_t{1705318200000});  // the site's local time
  EXPECT_EQ(got.comments[0].id, "1:5");
  EXPECT_EQ(got.comments[1].id, "2:5");
  EXPECT_EQ(got.comments[2].parent, "2:5");
  EXPECT_EQ(got.comments[2].skip, "a trackback, not a reader's comment");
  EXPECT_EQ(got.comments[1].author, "");  // the importer names such a guest "Anonymous"
}

TEST(WordpressReaderTest, RefusesWhatIsNotAWordpressExportOrIsCutShort) {
  Collect got;
  std::istringstream disqus("<?xml version=\"1.0\"?>\n<disqus/>");
  auto st = ReadForeign(Source::kWordpress, disqus, got);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "line 2: not a WordPress export (its root is <disqus>, not <rss>)");

  const std::string sample = Sample();
  got = Collect{};
  st = Read(sample.substr(0, sample.find("<wp:comment_id>24")), got);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("not well-formed XML"), std::string::npos)
      << st.error().message;
}

TEST(WordpressReaderTest, ThePlanKeepsPendingAndRepliesAndSkipsPingbacksAndTrashedPosts) {
  ForeignPlan plan(PlanOptions{"https://blog.example.org", {"https://blog.example.org"}});
  std::istringstream in(Sample());
  ASSERT_TRUE(ReadForeign(Source::kWordpress, in, plan));
  plan.Resolve();
  ASSERT_EQ(plan.pages().size(), 1u);
  EXPECT_EQ(plan.pages()[0].url, "https://blog.example.org/2024/01/hello-world");
  EXPECT_EQ(plan.pages()[0].title, "Hello world");
  // 22 answers 21; 23 (pending) answers 22, flattened under 21.
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_EQ(plan.comment(0).top, 0);
  EXPECT_EQ(plan.comment(1).top, 0);
  EXPECT_EQ(plan.comment(2).top, 0);
  EXPECT_EQ(plan.comment(2).answers, 1);
  EXPECT_EQ(plan.comment(2).status, ForeignStatus::kPending);
  EXPECT_LT(plan.comment(3).page, 0);  // trashed, without replies
  EXPECT_LT(plan.comment(4).page, 0);  // the pingback
  EXPECT_LT(plan.comment(5).page, 0);  // on a trashed post
  EXPECT_EQ(DescribePlan(plan, true, 10),
            "read 2 threads and 6 comments\n"
            "would import: 1 pages; comments: 2 approved, 1 pending, 0 spam, 0 deleted with "
            "replies (placeholders)\n"
            "left out: 1 deleted; skipped: 2\n"
            "  line 112: comment 10:25 skipped: a pingback, not a reader's comment\n"
            "  line 149: comment 12:30 skipped: its thread (line 128) is deleted\n");
}

// A post's comments are handed over as they are read, not held till the post ends: one post of
// 100,000 comments takes the memory of a few.
TEST(WordpressReaderTest, APostsCommentsAreHandedOverAsTheyAreRead) {
  std::string xml = R"(<rss xmlns:wp="http://wordpress.org/export/1.2/"><channel><item>
<link>https://a.example/x/</link><wp:post_id>1</wp:post_id>)";
  for (int i = 0; i < 3; ++i) {
    xml += "<wp:comment><wp:comment_id>" + std::to_string(i) + "</wp:comment_id></wp:comment>\n";
  }
  xml += "<wp:comment><broken></wp:comment>";  // not well-formed, inside the same post
  Collect got;
  auto st = Read(xml, got);
  ASSERT_FALSE(st);
  EXPECT_EQ(got.threads.size(), 1u);
  EXPECT_EQ(got.comments.size(), 3u);  // handed over before the post ended
  // A comment before the post's id (not WordPress's order) waits for it, and is named by it.
  Collect late;
  ASSERT_TRUE(Read(R"(<rss><channel><item><link>https://a.example/y/</link>
<wp:comment xmlns:wp="w"><wp:comment_id>7</wp:comment_id></wp:comment>
<wp:post_id xmlns:wp="w">9</wp:post_id>
<wp:comment xmlns:wp="w"><wp:comment_id>8</wp:comment_id><wp:comment_parent>7</wp:comment_parent></wp:comment>
</item></channel></rss>)",
                   late));
  ASSERT_EQ(late.comments.size(), 2u);
  EXPECT_EQ(late.comments[0].id, "9:7");
  EXPECT_EQ(late.comments[0].thread, "p9");
  EXPECT_EQ(late.comments[1].parent, "9:7");
}

}  // namespace
}  // namespace plaudit::transfer
