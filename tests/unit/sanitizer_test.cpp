#include "text/sanitizer.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <gumbo.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "safe_html.hpp"
#include "text/utf8.hpp"

namespace plaudit {
namespace {

using namespace std::string_literals;
using testing_html::AssertSafe;
using testing_html::HasEventAttribute;
using testing_html::Lower;

text::SanitizedHtml Sanitize(std::string_view input) {
  auto result = text::SanitizeHtml(input);
  EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
  return result.value_or(text::SanitizedHtml{});
}

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) {
    out += s;
  }
  return out;
}

// How many failures AssertSafe reports for `html`, without failing this test.
int FailuresOf(std::string_view html) {
  testing::TestPartResultArray results;
  {
    testing::ScopedFakeTestPartResultReporter reporter(
        testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    AssertSafe(html);
  }
  return results.size();
}

TEST(SanitizerCheck, AssertSafeCatchesUnsafeMarkup) {
  // The checker itself must be able to fail, or the vector tests below prove nothing.
  const std::string rel = " rel=\"nofollow noopener noreferrer\"";
  EXPECT_EQ(FailuresOf("<p>ok <a href=\"https://x.example/\"" + rel + ">x</a></p>"), 0);
  EXPECT_GT(FailuresOf("<div>x</div>"), 0);
  EXPECT_GT(FailuresOf("<img src=\"https://x/\" onerror=\"f()\">"), 0);
  EXPECT_TRUE(HasEventAttribute("<img src=x/onerror = f()>"));
  EXPECT_TRUE(HasEventAttribute("<IMG alt=''ONLOAD=f()>"));
  EXPECT_FALSE(HasEventAttribute("<p>click on = here</p><a href=\"https://x/?on=1\">"));
  // Inside a quoted value it is text (fuzz/sanitizer.cpp found the check reading there); after
  // the value it is an attribute again.
  EXPECT_FALSE(HasEventAttribute("<a href=\"https://;b=2b onclick=\" rel=\"x\">t</a>"));
  EXPECT_FALSE(HasEventAttribute("<img alt='a onload=b' src=\"https://x/\">"));
  EXPECT_TRUE(HasEventAttribute("<a href=\"https://x/\" onclick=\"f()\">t</a>"));
  EXPECT_TRUE(HasEventAttribute("<a href=\"https://x/\"onclick=f()>t</a>"));
  EXPECT_GT(FailuresOf("<a href=\"&#106;avascript:f()\"" + rel + ">x</a>"), 0);
  EXPECT_GT(FailuresOf("<a href=\"//evil.example/\"" + rel + ">x</a>"), 0);
  EXPECT_GT(FailuresOf("<a href=\"https://x.example/\">no rel</a>"), 0);
  EXPECT_GT(FailuresOf("<p style=\"color:red\">x</p>"), 0);
  EXPECT_GT(FailuresOf("<!-- x -->"), 0);
  EXPECT_GT(FailuresOf("<math><mi>x</mi></math>"), 0);
}

// OWASP XSS filter evasion cheat sheet and friends, plus mutation-XSS and parser-confusion
// vectors. Every one must come out as allow-listed markup only.
const std::vector<std::string> kXssVectors = {
    "<script>alert(1)</script>",
    "<SCRIPT SRC=http://xss.rocks/xss.js></SCRIPT>",
    "<ScRiPt>alert(1)</sCrIpT>",
    "<SCRIPT/XSS SRC=\"http://xss.rocks/xss.js\"></SCRIPT>",
    "<<SCRIPT>alert(\"XSS\");//<</SCRIPT>",
    "<SCRIPT SRC=http://xss.rocks/xss.js?< B >",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    "<img src=x onerror=alert(1)>",
    "<IMG SRC=\"javascript:alert('XSS');\">",
    "<IMG SRC=JaVaScRiPt:alert('XSS')>",
    "<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;"
    "&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>",
    "<IMG SRC=&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112"
    "&#0000116&#0000058&#0000097&#0000108&#0000101&#0000114&#0000116&#0000040&#0000039>",
    "<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A&#x61&#x6C&#x65&#x72&#x74>",
    "<IMG SRC=\"jav\tascript:alert('XSS');\">",
    "<IMG SRC=\"jav&#x09;ascript:alert('XSS');\">",
    "<IMG SRC=\"jav&#x0A;ascript:alert('XSS');\">",
    "<IMG SRC=\"jav&#x0D;ascript:alert('XSS');\">",
    "<IMG SRC=\" &#14;  javascript:alert('XSS');\">",
    "<IMG SRC=# onmouseover=\"alert('xxs')\">",
    "<IMG DYNSRC=\"javascript:alert('XSS')\">",
    "<IMG SRC=\"https://ok.example/x.png\" STYLE=\"xss:expression(alert('XSS'))\">",
    "<img src=x:alert(alt) onerror=eval(src) alt=0>",
    "<img \"\"\"><script>alert(\"XSS\")</script>\">",
    "<IMG SRC=\"javascript:alert('XSS')\"",
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<svg></p><style><a id=\"</style><img src=1 onerror=alert(1)>\">",
    "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    "<a href=\"javascript:alert(1)\">x</a>",
    "<a href=\"  JaVaScRiPt:alert(1)\">x</a>",
    "<A HREF=\"JAVASCRIPT:alert(1)\">x</A>",
    "<a href=\"&#106;avascript:alert(1)\">x</a>",
    "<a href=\"&#0000106avascript:alert(1)\">x</a>",
    "<a href=\"&#x6a;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;:alert(1)\">x</a>",
    "<a href=\"javascript&colon;alert(1)\">x</a>",
    "<a href=\"java\nscript:alert(1)\">x</a>",
    "<a href=\"jav&#x09;ascript:alert(1)\">x</a>",
    "<a href=\"\x01javascript:alert(1)\">x</a>",
    "<a href=\"vbscript:msgbox(1)\">x</a>",
    "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
    "<a href=\"data:image/svg+xml,<svg onload=alert(1)>\">x</a>",
    "<a href=\"//evil.example/x\">x</a>",
    "<a href=\"x\" onclick=\"alert(1)\">x</a>",
    "<a href=\"https://ok.example/\" onmouseover=\"alert(1)\">ok</a>",
    "<a title='\"><script>alert(1)</script>'>x</a>",
    "<a href=\"http://x\" <script>alert(1)</script>>x</a>",
    "<body onload=alert(1)>",
    "<BODY BACKGROUND=\"javascript:alert('XSS')\">",
    "<style>@import 'http://xss.rocks/xss.css';</style>",
    "<STYLE>li {list-style-image: url(\"javascript:alert('XSS')\");}</STYLE><UL><LI>XSS</br>",
    "<p style=\"background:url(javascript:alert(1))\">x</p>",
    "<DIV STYLE=\"background-image: url(javascript:alert('XSS'))\">x</DIV>",
    "<LINK REL=\"stylesheet\" HREF=\"javascript:alert('XSS');\">",
    "<object data=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\"></object>",
    "<embed src=\"javascript:alert(1)\">",
    "<applet code=\"x\">hidden</applet>",
    "<form action=\"javascript:alert(1)\"><button formaction=\"javascript:alert(1)\">x</button>"
    "</form>",
    "<isindex action=javascript:alert(1) type=image>",
    "<base href=\"javascript:alert(1)//\">",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<input autofocus onfocus=alert(1)>",
    "<details open ontoggle=alert(1)>",
    "<video><source onerror=\"alert(1)\"></video>",
    "<audio src=x onerror=alert(1)>",
    "<TABLE BACKGROUND=\"javascript:alert('XSS')\"><TD BACKGROUND=\"javascript:alert('XSS')\">",
    "<FRAMESET><FRAME SRC=\"javascript:alert('XSS');\"></FRAMESET>",
    "<BGSOUND SRC=\"javascript:alert('XSS');\">",
    "<!--<script>alert(1)</script>-->",
    "<!--[if gte IE 4]><SCRIPT>alert('XSS');</SCRIPT><![endif]-->",
    "<![CDATA[<script>alert(1)</script>]]>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<template><script>alert(1)</script></template>",
    "<xmp><script>alert(1)</script></xmp>",
    "<textarea><script>alert(1)</script></textarea>",
    "</title><script>alert(1)</script>",
    "<title><script>alert(1)</script></title>",
    "<plaintext><script>alert(1)</script>",
    "<scri\0pt>alert(1)</scri\0pt>"s,
    "<a href=\"java\0script:alert(1)\">x</a>"s,
    "<img src=\"java\0script:alert(1)\">"s,
    "<div><a href=\"javascript:alert(1)\"><b>x</b></a></div>",
    "<a href=\"https://ok.example/\"><a href=\"javascript:alert(1)\">nested</a></a>",
};

TEST(SanitizerXss, EveryVectorComesOutSafe) {
  ASSERT_GE(kXssVectors.size(), 45u);
  for (const std::string& vector : kXssVectors) {
    SCOPED_TRACE(vector);
    auto result = text::SanitizeHtml(vector);
    ASSERT_TRUE(result.has_value());
    AssertSafe(result->html);
    // The visible text never carries the script either.
    EXPECT_EQ(Lower(result->text).find("alert(1)</script"), std::string::npos);
  }
}

TEST(SanitizerXss, UnsafeLinksKeepTheirTextButLoseTheTag) {
  EXPECT_EQ(Sanitize("<a href=\"javascript:alert(1)\">click</a>").html, "click");
  EXPECT_EQ(Sanitize("<a href=\"//evil.example/\">x</a>").html, "x");
  EXPECT_EQ(Sanitize("<a href=\"/relative\">x</a>").html, "x");
  EXPECT_EQ(Sanitize("<a>plain</a>").html, "plain");
  EXPECT_EQ(Sanitize("<img src=x onerror=alert(1)>").html, "");
  EXPECT_EQ(Sanitize("<img src=\"data:image/png;base64,AAAA\" alt=\"x\">").html, "");
}

TEST(SanitizerXss, DroppedElementsTakeTheirContentWithThem) {
  EXPECT_EQ(Sanitize("a<script>alert(1)</script>b").html, "ab");
  EXPECT_EQ(Sanitize("a<style>p{}</style><iframe>x</iframe><svg><text>y</text></svg>b").html, "ab");
  EXPECT_EQ(Sanitize("a<form>f<input value=v><button>go</button><select><option>o</select></form>"
                     "b")
                .html,
            "ab");
  EXPECT_EQ(Sanitize("a<object>x</object><template>t</template><noscript>n</noscript>b").html,
            "ab");
  EXPECT_EQ(Sanitize("<title>t</title><math><mi>x</mi></math>ok").html, "ok");
}

TEST(SanitizerXss, EntitiesCannotSmuggleMarkup) {
  auto out = Sanitize("&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(out.html, "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(out.text, "<script>alert(1)</script>");  // plain text: callers escape it
  AssertSafe(out.html);
  out = Sanitize("<img src=\"https://x.example/a.png\" alt='\"><script>alert(1)</script>'>");
  EXPECT_EQ(out.html,
            "<img src=\"https://x.example/a.png\" alt=\"&quot;&gt;&lt;script&gt;alert(1)&lt;/"
            "script&gt;\">");
  AssertSafe(out.html);
}

TEST(Sanitizer, AllowedMarkupSurvivesExactly) {
  for (const char* html : {
           "<p>Hello <b>world</b></p>",
           "<h1>T</h1><h2>a</h2><h3>b</h3><h4>c</h4><h5>d</h5><h6>e</h6>",
           "<blockquote><p><em>e</em> <strong>s</strong> <i>i</i><br>next</p></blockquote>",
           "<ul><li>one<ol><li>a</li><li>b</li></ol></li><li>two</li></ul>",
           "<pre><code>  x = 1;\n    if (a &lt; b) {}\n</code></pre>",
           "<pre>\n\nleading newline</pre>",
           "<p>a &lt; b &amp; c &gt; d</p>",
       }) {
    SCOPED_TRACE(html);
    auto out = Sanitize(html);
    EXPECT_EQ(out.html, html);
    AssertSafe(out.html);
    EXPECT_EQ(Sanitize(out.html).html, out.html);  // stable when sanitised again
  }
}

TEST(Sanitizer, LinksGetRelAndKeepHttpHttpsMailto) {
  const std::string rel = " rel=\"nofollow noopener noreferrer\"";
  EXPECT_EQ(Sanitize("<a href=\"https://example.com/x?a=1&amp;b=2\" target=_blank>x</a>").html,
            "<a href=\"https://example.com/x?a=1&amp;b=2\"" + rel + ">x</a>");
  EXPECT_EQ(Sanitize("<a href=' HTTP://Example.com/ '>x</a>").html,
            "<a href=\"HTTP://Example.com/\"" + rel + ">x</a>");
  EXPECT_EQ(Sanitize("<a href=\"mailto:me@example.com\">mail</a>").html,
            "<a href=\"mailto:me@example.com\"" + rel + ">mail</a>");
  EXPECT_EQ(Sanitize("<a href=\"https://x.example/?q='&quot;\">q</a>").html,
            "<a href=\"https://x.example/?q=&#39;&quot;\"" + rel + ">q</a>");
}

TEST(Sanitizer, ImagesKeepOnlySrcAndAlt) {
  EXPECT_EQ(Sanitize("<img width=10 src=\"https://example.com/a.png\" class=c alt=\"A cat\" "
                     "id=i>")
                .html,
            "<img src=\"https://example.com/a.png\" alt=\"A cat\">");
  EXPECT_EQ(Sanitize("<img src=\"http://example.com/a.png\">").html,
            "<img src=\"http://example.com/a.png\">");
  EXPECT_EQ(Sanitize("<img src=\"mailto:a@b.example\">").html, "");
  EXPECT_EQ(Sanitize("<img src=\"https://x.example/\" alt=\"it's &quot;q&quot; <b>\">").html,
            "<img src=\"https://x.example/\" alt=\"it&#39;s &quot;q&quot; &lt;b&gt;\">");
}

TEST(Sanitizer, EscapesText) {
  auto out = Sanitize("a < b & c");
  EXPECT_EQ(out.html, "a &lt; b &amp; c");
  EXPECT_EQ(out.text, "a < b & c");
  EXPECT_EQ(Sanitize("5 > 3 &amp; &copy;").html, "5 &gt; 3 &amp; \u00a9");
}

TEST(Sanitizer, UnwrapsUnknownElementsKeepingText) {
  EXPECT_EQ(Sanitize("<div><span>Hello</span> <font color=red>world</font></div>").html,
            "Hello world");
  auto out = Sanitize("<div>a</div><div>b</div>");
  EXPECT_EQ(out.html, "a\nb");
  EXPECT_EQ(out.text, "a b");
  EXPECT_EQ(Sanitize("<table><tr><td>x</td><td>y</td></tr></table>").text, "x y");
  EXPECT_EQ(Sanitize("<p class=c id=i style=s>x<u>y</u><custom-el>z</custom-el></p>").html,
            "<p>xyz</p>");
}

TEST(Sanitizer, RepairsMalformedMarkup) {
  EXPECT_EQ(Sanitize("<p><b>bold<i>both</b>italic</p>").html,
            "<p><b>bold<i>both</i></b><i>italic</i></p>");
  EXPECT_EQ(Sanitize("<ul><li>one<li>two</ul>").html, "<ul><li>one</li><li>two</li></ul>");
  EXPECT_EQ(Sanitize("<b>unclosed").html, "<b>unclosed</b>");
  EXPECT_EQ(Sanitize("</p>x</b>").html, "<p></p>x");
  EXPECT_EQ(Sanitize("a<!-- hidden -->b<!DOCTYPE html>c<?php x ?>d").html, "abcd");
}

TEST(Sanitizer, TextIsTheVisibleTextWithWhitespaceCollapsed) {
  EXPECT_EQ(Sanitize("<p>Hi</p><p>there</p>").text, "Hi there");
  EXPECT_EQ(Sanitize("<p>  a \n\t b </p>").text, "a b");
  EXPECT_EQ(Sanitize("x<br>y").text, "x y");
  EXPECT_EQ(Sanitize("<b>wo</b>rd").text, "word");
  EXPECT_EQ(Sanitize("<ul><li>a</li><li>b</li></ul>").text, "a b");
  EXPECT_EQ(Sanitize("a<script>var x;</script><style>p{}</style>b").text, "ab");
  EXPECT_EQ(Sanitize("<img src=\"https://x.example/\" alt=\"alt\">").text, "");
  EXPECT_EQ(Sanitize("").text, "");
}

TEST(Sanitizer, RejectsInvalidUtf8) {
  for (std::string_view bad : {"\xC3(", "<p>\xFF</p>", "\xED\xA0\x80"}) {
    auto result = text::SanitizeHtml(bad);
    ASSERT_FALSE(result.has_value());
    EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument);
  }
}

TEST(Sanitizer, RejectsInputOverOneMebibyte) {
  auto result = text::SanitizeHtml(std::string(text::kMaxHtmlBytes + 1, 'a'));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument);
  auto ok = text::SanitizeHtml(std::string(text::kMaxHtmlBytes, 'a'));
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->html.size(), text::kMaxHtmlBytes);
}

// gumbo 0.10 does work proportional to nesting depth for every tag and every character, and
// frees its tree recursively: these must stay fast and must not overflow the stack.
TEST(SanitizerLimits, DeepNestingIsBoundedAndFast) {
  auto start = std::chrono::steady_clock::now();
  auto out = Sanitize(Repeat("<b>", 10'000) + "deep");
  EXPECT_EQ(out.text, "deep");
  EXPECT_LE(AssertSafe(out.html), static_cast<int>(text::kMaxHtmlDepth));
  EXPECT_LE(out.html.size(), 4 * 7 * text::kMaxHtmlDepth);

  // Text below the depth limit is kept; dangerous elements there are still dropped.
  out = Sanitize(Repeat("<div>", 300) + "<p>kept</p><object>gone</object><b>x</b>");
  EXPECT_EQ(out.text, "kept x");
  AssertSafe(out.html);
  out = Sanitize(Repeat("<table><td>", 150) + "<p>kept</p><object>gone</object><i>x</i>");
  EXPECT_EQ(out.text, "kept x");
  EXPECT_LE(AssertSafe(out.html), static_cast<int>(text::kMaxHtmlDepth));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(SanitizerLimits, HostileInputsFinishQuickly) {
  // Half the limit keeps the test quick under ASan; without the depth bound 512 KiB of
  // "<div>" alone takes over 15 s.
  const size_t n = text::kMaxHtmlBytes / 2;
  auto fill = [n](std::string prefix, std::string_view unit) {
    while (prefix.size() + unit.size() <= n) {
      prefix += unit;
    }
    return prefix;
  };
  for (const std::string& input : {
           fill("", "<div>"),
           fill("", "<span>"),
           fill(Repeat("<div>", 150) + "<b>", "x"),
           fill(Repeat("<b a=1><i>", 5'000), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
           fill(Repeat("<span>", 150), "</x>"),
           fill(Repeat("<table><td>", 50), "<p>x"),
           fill("", "<a href=\"https://x.example/\">"),
           fill("", "<!--"),
           fill("<a title=\"", "<div>"),
       }) {
    SCOPED_TRACE(input.substr(0, 60));
    auto start = std::chrono::steady_clock::now();
    auto result = text::SanitizeHtml(input);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    if (result) {
      AssertSafe(result->html);
    }
  }
}

TEST(SanitizerLimits, RefusesMarkupThatExplodesTheTree) {
  // Unclosed formatting elements are re-opened by the parser for every new block: a small
  // input would otherwise become millions of elements.
  std::string formatting = "<b><i><u><s><em><strong><code><small><big><tt><strike><nobr><font>";
  std::string input = "<div>" + Repeat(formatting, 3) + "</div>";
  while (input.size() + 12 <= text::kMaxHtmlBytes) {
    input += "<div>x</div>";
  }
  auto start = std::chrono::steady_clock::now();
  auto result = text::SanitizeHtml(input);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(result.error().message, "HTML is too complex");
}

TEST(Summary, CountsCodePointsNotBytes) {
  std::string kanji = Repeat("漢", 64);
  std::string summary = text::Summary(kanji + "more text");
  EXPECT_EQ(summary, kanji);
  EXPECT_EQ(text::CodePoints(summary), 64u);
  EXPECT_EQ(text::Summary("🙂🙂🙂", 2), "🙂🙂");
}

TEST(Summary, ShortTextIsUnchangedAndResultIsTrimmed) {
  EXPECT_EQ(text::Summary("Hello"), "Hello");
  EXPECT_EQ(text::Summary("  hi  "), "hi");
  EXPECT_EQ(text::Summary("abc   def", 5), "abc");
  EXPECT_EQ(text::Summary(""), "");
}

TEST(Summary, OfSanitizedText) {
  auto out = Sanitize("<h1>Title</h1><p>" + Repeat("word ", 40) + "</p>");
  std::string summary = text::Summary(out.text);
  EXPECT_LE(text::CodePoints(summary), 64u);
  EXPECT_TRUE(summary.starts_with("Title word word"));
}

}  // namespace
}  // namespace plaudit
