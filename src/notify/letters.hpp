#pragma once
// What a notice mail says (API.md "Notifications"), in the reader's language (English or
// Simplified Chinese): a subject, a plain text part and an HTML part of the same words. Every
// text that comes from people (names, titles, comments) is escaped in the HTML part; comment
// text is quoted, shortened, never rendered as markup.
#include <string>
#include <vector>

#include "sql/notices.hpp"

namespace plaudit::notify {

struct Letter {
  std::string subject;
  std::string text;
  std::string html;
};

struct NoticeItem {
  std::string kind;  // reply, mention, article_comment, held
  sql::MailComment comment;
};

struct Links {
  std::string public_url;   // plauditd's origin, no trailing slash
  std::string unsubscribe;  // the one-click link; "" for none (confirmation mails)
};

// A mail about some comments (one reader, one thread; or one moderator's queue).
// `more`: comments of the same kind left out of a full mail (counted, not shown).
Letter NoticeLetter(const std::string& language, const std::string& name,
                    const std::vector<NoticeItem>& items, const Links& links, int64_t more = 0);
// The link that confirms an address: a user's own (`guest` false) or one a guest left under a
// comment; with `links.unsubscribe`, a link for whoever did not ask for it.
Letter ConfirmLetter(const std::string& language, const std::string& confirm_url, bool guest,
                     const Links& links);

// "<url>#comment-<id>": where a comment is read (the page of a page thread, the article's page
// on plauditd's own site otherwise).
std::string CommentUrl(const sql::MailComment& c, const std::string& public_url);

}  // namespace plaudit::notify
