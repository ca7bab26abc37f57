// text::RenderCommentMarkdown (issue 48, "Comment text"): CommonMark renders to the allow-list's
// HTML, readers' links carry rel "… ugc" and a new tab, images are alt text unless allowed, and
// no Markdown vector (link schemes, autolinks, raw HTML, entity tricks, nested emphasis) gets
// anything past the oracle of the sanitiser's tests (safe_html.hpp).
#include "text/markdown.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "safe_html.hpp"
#include "text/mentions.hpp"

namespace plaudit {
namespace {

// Readers' links; and a comment may mention "javascript:" as text (escaped, in no attribute).
const testing_html::Links kUserLinks{"nofollow noopener noreferrer ugc", true, true, true};

std::string Html(std::string_view body, bool images = false) {
  text::MarkdownOptions options;
  options.images = images;
  auto r = text::RenderCommentMarkdown(body, options);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  if (!r) {
    return {};
  }
  testing_html::AssertSafe(r->html, kUserLinks);
  return r->html;
}

TEST(CommentMarkdown, RendersTheCommonMarkAReaderWrites) {
  EXPECT_EQ(Html("hello *world* and **bold**"),
            "<p>hello <em>world</em> and <strong>bold</strong></p>");
  EXPECT_EQ(Html("`x < y`"), "<p><code>x &lt; y</code></p>");
  EXPECT_EQ(Html("> quoted"), "<blockquote>\n<p>quoted</p>\n</blockquote>");
  EXPECT_EQ(Html("- a\n- b"), "<ul>\n<li>a</li>\n<li>b</li>\n</ul>");
  EXPECT_EQ(Html("```\nint x;\n```"), "<pre><code>int x;\n</code></pre>");
  // A newline is a line break; a blank line a new paragraph.
  EXPECT_EQ(Html("one\ntwo\n\nthree"), "<p>one<br>\ntwo</p>\n<p>three</p>");
}

TEST(CommentMarkdown, LinksAreReadersLinks) {
  EXPECT_EQ(Html("[site](https://ok.example/a?b=1&c=2)"),
            "<p><a href=\"https://ok.example/a?b=1&amp;c=2\" "
            "rel=\"nofollow noopener noreferrer ugc\" target=\"_blank\">site</a></p>");
  EXPECT_EQ(Html("<https://ok.example/>"),
            "<p><a href=\"https://ok.example/\" rel=\"nofollow noopener noreferrer ugc\" "
            "target=\"_blank\">https://ok.example/</a></p>");
  EXPECT_EQ(Html("[relative](/x) and [mail](mailto:a@b.example)"),
            "<p>relative and <a href=\"mailto:a@b.example\" "
            "rel=\"nofollow noopener noreferrer ugc\" target=\"_blank\">mail</a></p>");
}

TEST(CommentMarkdown, BareUrlsAreLinks) {
  const std::string ugc = " rel=\"nofollow noopener noreferrer ugc\" target=\"_blank\"";
  EXPECT_EQ(Html("see https://ok.example/a_b?x=1."),
            "<p>see <a href=\"https://ok.example/a_b?x=1\"" + ugc +
                ">https://ok.example/a_b?x=1</a>.</p>");
  EXPECT_EQ(Html("(www.ok.example)"),
            "<p>(<a href=\"http://www.ok.example\"" + ugc + ">www.ok.example</a>)</p>");
  // Not in code, and not a scheme the allow-list refuses.
  EXPECT_EQ(Html("`https://ok.example/`"), "<p><code>https://ok.example/</code></p>");
  EXPECT_EQ(Html("javascript:alert(1)"), "<p>javascript:alert(1)</p>");
}

TEST(CommentMarkdown, MentionsOfParticipantsAreMarked) {
  text::MarkdownOptions options;
  options.mentionable = {"ann", "bob.b"};
  auto html = [&](std::string_view body) {
    auto r = text::RenderCommentMarkdown(body, options);
    EXPECT_TRUE(r.has_value());
    if (!r) {
      return std::string();
    }
    testing_html::AssertSafe(r->html, kUserLinks);
    return r->html;
  };
  EXPECT_EQ(html("hi @Ann and @bob.b. and @carol"),
            "<p>hi <span class=\"mention\">@Ann</span> and <span class=\"mention\">@bob.b</span>. "
            "and @carol</p>");
  // Not in an address (the autolinker makes it a mailto link), a link or code; emphasis
  // around one keeps it.
  EXPECT_EQ(html("x@ann.example `@ann` [@ann](https://ok.example/) *@ann*"),
            "<p><a href=\"mailto:x@ann.example\" rel=\"nofollow noopener noreferrer ugc\" "
            "target=\"_blank\">x@ann.example</a> <code>@ann</code> <a href=\"https://ok.example/\" "
            "rel=\"nofollow noopener noreferrer ugc\" target=\"_blank\">@ann</a> "
            "<em><span class=\"mention\">@ann</span></em></p>");
  // Without participants nothing is marked; a span written as text stays text.
  EXPECT_EQ(Html("@ann <span class=\"mention\">x</span>"),
            "<p>@ann &lt;span class=\"mention\"&gt;x&lt;/span&gt;</p>");
}

TEST(Mentions, FollowTheUsernameRules) {
  const auto found = text::FindMentions("@Ann, mail a@b.example, @ab, @the.end. @x_y-z");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "ann");
  EXPECT_EQ(found[0].at, 0u);
  EXPECT_EQ(found[0].size, 4u);
  EXPECT_EQ(found[1].name, "the.end");
  EXPECT_EQ(found[2].name, "x_y-z");
  EXPECT_EQ(text::MentionedNames("@bob @Ann @bob @cat", 2),
            (std::vector<std::string>{"ann", "bob"}));
  EXPECT_TRUE(text::FindMentions("@" + std::string(33, 'a')).empty());
}

TEST(CommentMarkdown, ImagesAreTheirAltTextUnlessAllowed) {
  EXPECT_EQ(Html("![a cat](https://img.example/cat.png)"), "<p>a cat</p>");
  EXPECT_EQ(Html("![a cat](https://img.example/cat.png)", true),
            "<p><img src=\"https://img.example/cat.png\" alt=\"a cat\"></p>");
  EXPECT_EQ(Html("![x](javascript:alert(1))", true), "<p></p>");
}

TEST(CommentMarkdown, NoVectorGetsThrough) {
  const std::vector<std::string> vectors = {
      "[x](javascript:alert(1))",
      "[x](JaVaScRiPt:alert(1))",
      "[x](jav&#x61;script:alert(1))",
      "[x](&#106;avascript:alert(1))",
      "[x](java\tscript:alert(1))",
      "[x](vbscript:msgbox(1))",
      "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
      "[x](file:///etc/passwd)",
      "[x]( javascript:alert(1))",
      "[x](<javascript:alert(1)>)",
      "<javascript:alert(1)>",
      "[x][r]\n\n[r]: javascript:alert(1)",
      "[x](https://ok.example/\"onmouseover=\"alert(1))",
      "[x](https://ok.example/ \"title\" onclick=alert(1))",
      "<script>alert(1)</script>",
      "<img src=x onerror=alert(1)>",
      "<a href=\"javascript:alert(1)\">x</a>",
      "<iframe src=\"https://evil.example/\"></iframe>",
      "<details open ontoggle=alert(1)>",
      "<svg><script>alert(1)</script></svg>",
      "***[x](javascript:alert(1))***",
      "*_**[x](https://ok.example/)**_*",
      "**<b onclick=alert(1)>x</b>**",
      "`<script>alert(1)</script>`",
      "```html\n<script>alert(1)</script>\n```",
      "&lt;script&gt;alert(1)&lt;/script&gt;",
      "&#60;script&#62;alert(1)&#60;/script&#62;",
      "![x](https://ok.example/\" onerror=\"alert(1))",
      "<!-- <script>alert(1)</script> -->",
      "[<img src=x onerror=alert(1)>](https://ok.example/)",
  };
  for (const std::string& v : vectors) {
    SCOPED_TRACE(v);
    for (bool images : {false, true}) {
      const std::string html = Html(v, images);  // the oracle's structural check
      EXPECT_EQ(testing_html::Lower(html).find("<script"), std::string::npos);
      EXPECT_FALSE(testing_html::HasEventAttribute(html)) << html;
    }
  }
  // A scheme or a handler written as text stays text.
  EXPECT_EQ(Html("<javascript:alert(1)>"), "<p>javascript:alert(1)</p>");
  EXPECT_EQ(Html("[x](https://ok.example/ \"t\" onclick=alert(1))"),
            "<p>[x](<a href=\"https://ok.example/\" rel=\"nofollow noopener noreferrer ugc\" "
            "target=\"_blank\">https://ok.example/</a> \"t\" onclick=alert(1))</p>");
  // Markup written as text stays text, shown as typed (not dropped, as cmark's safe mode
  // would): inline where it stood, an HTML block as a paragraph of its lines.
  EXPECT_EQ(Html("a <b>bold</b> claim"), "<p>a &lt;b&gt;bold&lt;/b&gt; claim</p>");
  EXPECT_EQ(Html("&lt;b&gt;"), "<p>&lt;b&gt;</p>");
  EXPECT_EQ(Html("use a <div> here"), "<p>use a &lt;div&gt; here</p>");
  EXPECT_EQ(Html("<div onclick=\"f()\">\nhi\n</div>"),
            "<p>&lt;div onclick=\"f()\"&gt;<br>\nhi<br>\n&lt;/div&gt;</p>");
  EXPECT_EQ(Html("<script>alert(1)</script>"), "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
  EXPECT_EQ(Html("before\n\n<!-- note -->\n\nafter"),
            "<p>before</p>\n<p>&lt;!-- note --&gt;</p>\n<p>after</p>");
}

// The oracle with readers' links must be able to fail, or the tests above prove nothing.
TEST(CommentMarkdown, TheOracleRefusesAnArticlesLinkOrAnUnsafeOneInAComment) {
  auto failures = [](std::string_view html) {
    ::testing::TestPartResultArray results;
    {
      ::testing::ScopedFakeTestPartResultReporter reporter(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
      testing_html::AssertSafe(html, kUserLinks);
    }
    return results.size();
  };
  const std::string ugc = " rel=\"nofollow noopener noreferrer ugc\" target=\"_blank\"";
  EXPECT_EQ(failures("<p><a href=\"https://x.example/\"" + ugc + ">x</a></p>"), 0);
  EXPECT_GT(failures("<a href=\"https://x.example/\" rel=\"nofollow noopener noreferrer\">x</a>"),
            0);
  EXPECT_GT(
      failures("<a href=\"https://x.example/\" rel=\"nofollow noopener noreferrer ugc\">x</a>"), 0);
  EXPECT_GT(failures("<a href=\"javascript:f()\"" + ugc + ">x</a>"), 0);
  EXPECT_GT(failures("<img src=\"https://x/\" onerror=\"f()\">"), 0);
  EXPECT_EQ(failures("<span class=\"mention\">@ann</span>"), 0);
  EXPECT_GT(failures("<span class=\"other\">@ann</span>"), 0);
  EXPECT_GT(failures("<span>@ann</span>"), 0);
  EXPECT_GT(failures("<span class=\"mention\" onclick=\"f()\">@ann</span>"), 0);
}

TEST(CommentMarkdown, BadTextIsRefused) {
  auto r = text::RenderCommentMarkdown("\xff\xfe");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace plaudit
