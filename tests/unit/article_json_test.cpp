// The article list writes its JSON as text (render::ArticlePageText); it must say exactly what
// the boost::json objects of ArticleJson and PageJson say, escapes included.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/articles.hpp"
#include "api/comments.hpp"
#include "api/paging.hpp"
#include "render/article_text.hpp"
#include "render/comment_text.hpp"
#include "render/json_text.hpp"
#include "render/page_text.hpp"

namespace plaudit::api {
namespace {

using render::AppendArticleJson;
using render::AppendCommentJson;
using render::ArticlePageText;
using render::PageText;
namespace json_text = render::json_text;

domain::Article Plain() {
  domain::Article a;
  a.id = 42;
  a.kind = domain::ArticleKind::kArticle;
  a.author_id = 7;
  a.author_username = "ada";
  a.author_display_name = "Ada L.";
  a.title = "Hello";
  a.summary = "A first post.";
  a.status = domain::ArticleStatus::kPublished;
  a.pinned = true;
  a.allow_comments = false;
  a.created_at_ms = 1'700'000'000'123;
  a.updated_at_ms = 1'700'000'100'000;
  a.published_at_ms = 1'700'000'050'000;
  a.view_count = 12;
  a.like_count = 3;
  a.comment_count = 9'007'199'254'740'993;  // above 2^53: must stay an exact integer
  a.liked = true;
  return a;
}

domain::Article Tricky() {
  domain::Article a = Plain();
  a.id = 9'000'000'000'000'000'001;
  a.kind = domain::ArticleKind::kPost;
  a.title = std::string("quote \" backslash \\ slash / nul ") + '\0' + " end";
  a.summary = "tab\tnewline\nreturn\rbell\x07 unit\x1f del\x7f";
  a.author_display_name = "caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x98\x80";  // café — 😀 (UTF-8)
  a.content = "<p>body \"with\" markup</p>";
  a.status = domain::ArticleStatus::kDraft;
  a.published_at_ms.reset();
  a.pinned = false;
  a.liked = false;
  a.view_count = 0;
  return a;
}

boost::json::value Parse(const std::string& text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  EXPECT_FALSE(ec) << ec.message() << " in " << text;
  return v;
}

TEST(ArticleJsonText, SaysWhatArticleJsonSays) {
  for (const domain::Article& a : {Plain(), Tricky()}) {
    std::string text;
    AppendArticleJson(text, a);
    EXPECT_EQ(Parse(text), boost::json::value(ArticleJson(a))) << text;
  }
}

TEST(ArticleJsonText, EscapesLikeBoostJson) {
  const std::string all_bytes = [] {
    std::string s;
    for (int c = 0; c < 256; ++c) {
      s.push_back(static_cast<char>(c));
    }
    return s;
  }();
  std::string text;
  json_text::String(text, all_bytes.substr(0, 128));  // ASCII: control characters and all
  EXPECT_EQ(text, boost::json::serialize(boost::json::value(all_bytes.substr(0, 128))));
  text.clear();
  json_text::String(text, "");
  EXPECT_EQ(text, "\"\"");
}

TEST(ArticleJsonText, APageSaysWhatPageJsonSays) {
  domain::PageResult<domain::Article> page;
  page.items = {Plain(), Tricky(), Plain()};
  page.total = 57;
  page.next_cursor = "c:1700000050000:42";
  domain::PageRequest by_page;
  by_page.page = 3;
  by_page.size = 3;
  domain::PageRequest by_cursor;
  by_cursor.size = 3;
  by_cursor.cursor = "c:1700000100000:40";
  for (const auto& req : {by_page, by_cursor}) {
    EXPECT_EQ(Parse(ArticlePageText(page, req)),
              boost::json::value(PageJson(page, req, ArticleJson)));
  }
  domain::PageResult<domain::Article> empty;
  EXPECT_EQ(Parse(ArticlePageText(empty, by_page)),
            boost::json::value(PageJson(empty, by_page, ArticleJson)));
  EXPECT_EQ(ArticlePageText(empty, by_page),
            R"({"items":[],"page":3,"size":3,"total":0,"nextCursor":null})");
}

}  // namespace
}  // namespace plaudit::api

namespace plaudit::api {
namespace {

domain::Comment AComment(int64_t id, bool top) {
  domain::Comment c;
  c.id = id;
  c.article_id = 42;
  if (!top) {
    c.parent_id = 513;
  }
  c.author = {7, "ada", "Ada \"the first\" L."};
  if (!top && id % 2 == 0) {
    c.reply_to = domain::CommentUser{8, "bob",
                                     "B\xc3\xb6"
                                     "b\n"};
  }
  c.body = top ? "Top-level: <b>not markup</b> & \\ \t tab" : "a reply";
  c.created_at_ms = 1'700'000'000'000 + id;
  c.updated_at_ms = c.created_at_ms + 5;
  c.like_count = id % 5;
  c.reply_count = top ? 4 : 0;
  c.liked = id % 3 == 0;
  c.deleted = id == 1027;
  return c;
}

TEST(CommentJsonText, SaysWhatCommentJsonSays) {
  for (const domain::Comment& c :
       {AComment(513, true), AComment(1027, false), AComment(1028, false)}) {
    std::string text;
    AppendCommentJson(text, c);
    EXPECT_EQ(Parse(text), boost::json::value(CommentJson(c))) << text;
  }
}

// Byte for byte, not only the same value: a cached page's ETag names its bytes, and a
// release that wrote them differently would have a client's copy confirmed by a 304.
TEST(CommentJsonText, WritesTheBytesBoostJsonWrites) {
  domain::Comment odd = AComment(1028, false);
  odd.body = std::string("quote \" back \\ ctl \x01\x1f del \x7f nul ") + '\0' +
             " \xe2\x82\xac euro, a long run of plain text before the end\r\n";
  odd.author.display_name = "\x08\x0c";
  odd.created_at_ms = 0;
  odd.updated_at_ms = 253'402'300'799'999;  // 9999-12-31T23:59:59.999Z
  for (const domain::Comment& c :
       {AComment(513, true), AComment(1027, false), AComment(1028, false), odd}) {
    std::string text;
    AppendCommentJson(text, c);
    EXPECT_EQ(text, boost::json::serialize(CommentJson(c)));
  }
}

TEST(CommentJsonText, APageOfThreadsSaysWhatCommentJsonAndItsRepliesSay) {
  domain::PageResult<domain::Comment> page;
  for (int64_t top = 0; top < 3; ++top) {
    domain::Comment c = AComment(513 + 256 * top, true);
    for (int64_t r = 0; r < top; ++r) {
      c.replies.push_back(AComment(2000 + 256 * r, false));
    }
    page.items.push_back(std::move(c));
  }
  page.total = 3;
  domain::PageRequest req;
  const auto text = PageText(page, req, [](std::string& out, const domain::Comment& c) {
    AppendCommentJson(out, c, true);
  });
  auto expected = PageJson(page, req, [](const domain::Comment& c) {
    boost::json::object o = CommentJson(c);
    boost::json::array replies;
    for (const auto& r : c.replies) {
      replies.push_back(CommentJson(r));
    }
    o["replies"] = std::move(replies);
    return o;
  });
  EXPECT_EQ(Parse(text), boost::json::value(expected)) << text;
  EXPECT_EQ(text, boost::json::serialize(expected));
}

}  // namespace
}  // namespace plaudit::api
