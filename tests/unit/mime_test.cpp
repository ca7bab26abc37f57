// Notice mails (notify/mime.hpp, notify/letters.hpp): what a reader, a guest or an attacker
// puts into a name, a title or a comment stays text — no header, no markup — and the message
// is what mail clients expect (multipart/alternative, RFC 2047 subject, one-click unsubscribe).
#include "notify/mime.hpp"

#include <gtest/gtest.h>
#include <sodium.h>

#include "fetch/smtp_client.hpp"
#include "notify/letters.hpp"

namespace plaudit::notify {
namespace {

std::string Decode(std::string_view b64) {
  std::string out(b64.size(), '\0');
  size_t len = 0;
  EXPECT_EQ(sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), b64.data(),
                              b64.size(), "\r\n", &len, nullptr, sodium_base64_VARIANT_ORIGINAL),
            0);
  out.resize(len);
  return out;
}

sql::MailComment Hostile() {
  sql::MailComment c;
  c.id = 42;
  c.article_id = 7;
  c.article_title = "Title\r\nBcc: victim@example.com";
  c.author = "<script>alert(1)</script>";
  c.body = "<a href=\"javascript:x\">click</a>\n& more";
  c.status = "approved";
  return c;
}

TEST(Mime, WhatPeopleTypeNeverBecomesAHeaderOrMarkup) {
  const Links links{"https://comments.example", "https://comments.example/u?key=k"};
  const Letter l = NoticeLetter("en", "Ann", {{"reply", Hostile()}}, links);
  // Every header value that could carry outside text: the address (a guest's), the event id,
  // the unsubscribe link; the subject is RFC 2047-encoded whole.
  Envelope e{
      "Plaudit <c@example>", "ann@example\r\nBcc: victim@example.com", "mail:reply:42\r\nX-Evil: 1",
      "comments.example",    links.unsubscribe + "\r\nX-Other: 2",     0};
  const std::string m = MimeMessage(e, l);
  const std::string head = m.substr(0, m.find("\r\n\r\n"));
  EXPECT_EQ(head.find("\r\nBcc:"), std::string::npos) << head;
  EXPECT_EQ(head.find("\r\nX-Evil"), std::string::npos) << head;
  EXPECT_EQ(head.find("\r\nX-Other"), std::string::npos) << head;
  EXPECT_NE(head.find("Message-ID: <mail.reply.42..X-Evil..1@comments.example>"), std::string::npos)
      << head;
  EXPECT_NE(head.find("List-Unsubscribe-Post: List-Unsubscribe=One-Click"), std::string::npos);
  // The boundary is short enough for strict clients (RFC 2046: 70 characters at most).
  const size_t b = head.find("boundary=\"");
  ASSERT_NE(b, std::string::npos);
  EXPECT_LE(head.find('"', b + 10) - (b + 10), 70u);
  // The HTML part escapes every piece of text.
  EXPECT_EQ(l.html.find("<script>"), std::string::npos);
  EXPECT_EQ(l.html.find("<a href=\"javascript"), std::string::npos);
  EXPECT_NE(l.html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(l.html.find("&amp; more"), std::string::npos);
  // The text part quotes the comment line by line.
  EXPECT_NE(l.text.find("> <a href=\"javascript:x\">click</a>\r\n> & more"), std::string::npos);
  // Both parts travel as base64 and decode to the letter.
  const size_t text_at = m.find("Content-Type: text/plain");
  const size_t body = m.find("\r\n\r\n", text_at) + 4;
  EXPECT_EQ(Decode(m.substr(body, m.find("--", body) - body)), l.text);
}

TEST(Mime, AChineseSubjectIsEncodedInWholeCharacters) {
  sql::MailComment c = Hostile();
  c.article_title = std::string(40, 'x') + "中文标题";
  c.author = "读者";
  const Letter l = NoticeLetter("zh-CN", "", {{"mention", c}}, {"https://c.example", "u"});
  EXPECT_EQ(l.subject, "读者 在《" + c.article_title + "》中提到了你");
  Envelope e{"P <c@example>", "a@example", "id", "c.example", "", 0};
  const std::string m = MimeMessage(e, l);
  const size_t at = m.find("Subject: ");
  const std::string subject = m.substr(at + 9, m.find("\r\nDate:") - at - 9);
  std::string decoded;
  size_t pos = 0;
  while ((pos = subject.find("=?UTF-8?B?", pos)) != std::string::npos) {
    const size_t end = subject.find("?=", pos + 10);
    const std::string word = Decode(subject.substr(pos + 10, end - pos - 10));
    // Each encoded word is valid UTF-8 on its own (RFC 2047 5: no character split).
    EXPECT_TRUE((static_cast<unsigned char>(word[0]) & 0xC0) != 0x80) << word;
    decoded += word;
    pos = end;
  }
  EXPECT_EQ(decoded, l.subject);
  EXPECT_EQ(m.find("List-Unsubscribe"), std::string::npos);  // none given: none sent
}

TEST(Mime, MailNeedsTlsWithAPasswordOrOffLoopback) {
  EXPECT_FALSE(fetch::NeedsTls("smtp://127.0.0.1:25"));
  EXPECT_FALSE(fetch::NeedsTls("smtp://localhost:2525"));
  EXPECT_TRUE(fetch::NeedsTls("smtp://user:secret@127.0.0.1:25"));
  EXPECT_TRUE(fetch::NeedsTls("smtp://mail.example.com:587"));
}

TEST(Mime, BareAddressTakesTheAngleBracketsPart) {
  EXPECT_EQ(BareAddress("Blog <c@blog.example>"), "c@blog.example");
  EXPECT_EQ(BareAddress("c@blog.example"), "c@blog.example");
}

}  // namespace
}  // namespace plaudit::notify
