#include "notify/letters.hpp"

#include <map>

#include "text/escape.hpp"

namespace plaudit::notify {
namespace {

bool Chinese(const std::string& language) { return language.rfind("zh", 0) == 0; }

std::string Escape(std::string_view s) { return text::EscapeHtml(s); }

// At most `max` bytes, cut at a UTF-8 character boundary, with an ellipsis when cut.
std::string Shorten(std::string_view s, size_t max) {
  if (s.size() <= max) {
    return std::string(s);
  }
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) {
    --end;
  }
  return std::string(s.substr(0, end)) + "…";
}

struct Words {
  const char* hello;       // with {name}
  const char* hello_anon;  // no name known
  const char* reply;       // "{author} replied to you"
  const char* mention;
  const char* article_comment;
  const char* held;
  const char* open;      // link text
  const char* moderate;  // link text to the queue
  const char* unsubscribe;
  const char* why;  // why they get it
};

const Words kEnglish{"Hello {name},",
                     "Hello,",
                     "{author} replied to your comment on “{title}”:",
                     "{author} mentioned you on “{title}”:",
                     "{author} commented on your article “{title}”:",
                     "{author}'s comment on “{title}” waits for moderation:",
                     "Read it",
                     "Open the moderation queue",
                     "Unsubscribe",
                     "You get this mail because you left an address at {site}."};
const Words kChinese{"{name}，你好：",
                     "你好：",
                     "{author} 回复了你在《{title}》下的评论：",
                     "{author} 在《{title}》中提到了你：",
                     "{author} 评论了你的文章《{title}》：",
                     "{author} 在《{title}》下的评论等待审核：",
                     "查看",
                     "打开审核队列",
                     "退订",
                     "你收到这封邮件，是因为你在 {site} 留下了邮箱地址。"};

std::string Fill(std::string pattern, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values) {
    const std::string mark = "{" + key + "}";
    for (size_t at = pattern.find(mark); at != std::string::npos;
         at = pattern.find(mark, at + value.size())) {
      pattern.replace(at, mark.size(), value);
    }
  }
  return pattern;
}

const char* Line(const Words& w, const std::string& kind) {
  if (kind == "reply") {
    return w.reply;
  }
  if (kind == "mention") {
    return w.mention;
  }
  if (kind == "held") {
    return w.held;
  }
  return w.article_comment;
}

std::string Subject(const Words& w, bool zh, const std::vector<NoticeItem>& items) {
  const std::string title = items.front().comment.article_title;
  const size_t n = items.size();
  const std::string count = std::to_string(n);
  if (items.front().kind == "held") {
    if (zh) {
      return count + " 条评论等待审核";
    }
    return n == 1 ? "A comment waits for moderation" : count + " comments wait for moderation";
  }
  if (n == 1) {
    return Fill(Line(w, items.front().kind),
                {{"author", items.front().comment.author}, {"title", title}});
  }
  if (zh) {
    return "《" + title + "》有 " + count + " 条新评论";
  }
  return count + " new comments on “" + title + "”";
}

}  // namespace

std::string CommentUrl(const sql::MailComment& c, const std::string& public_url) {
  std::string base =
      c.page_url.empty() ? public_url + "/articles/" + std::to_string(c.article_id) : c.page_url;
  return base + "#comment-" + std::to_string(c.id);
}

Letter NoticeLetter(const std::string& language, const std::string& name,
                    const std::vector<NoticeItem>& items, const Links& links, int64_t more) {
  const bool zh = Chinese(language);
  const Words& w = zh ? kChinese : kEnglish;
  Letter l;
  l.subject = Subject(w, zh, items);
  if (!l.subject.empty() && l.subject.back() == ':') {
    l.subject.pop_back();
  }
  if (l.subject.size() >= 3 && l.subject.compare(l.subject.size() - 3, 3, "：") == 0) {
    l.subject.resize(l.subject.size() - 3);
  }
  const std::string hello = name.empty() ? w.hello_anon : Fill(w.hello, {{"name", name}});
  l.text = hello + "\r\n\r\n";
  l.html =
      "<!doctype html><html><body style=\"font-family:sans-serif\"><p>" + Escape(hello) + "</p>";
  for (const NoticeItem& item : items) {
    const std::string line = Fill(Line(w, item.kind), {{"author", item.comment.author},
                                                       {"title", item.comment.article_title}});
    const std::string body = Shorten(item.comment.body, 600);
    const std::string url = item.kind == "held" ? links.public_url + "/admin"
                                                : CommentUrl(item.comment, links.public_url);
    const char* open = item.kind == "held" ? w.moderate : w.open;
    l.text += line + "\r\n\r\n";
    std::string quoted = "> ";
    for (char c : body) {
      if (c == '\n') {
        quoted += "\r\n> ";
      } else if (c != '\r') {
        quoted += c;
      }
    }
    l.text.append(quoted)
        .append("\r\n\r\n")
        .append(open)
        .append(": ")
        .append(url)
        .append("\r\n\r\n");
    l.html += "<p>" + Escape(line) +
              "</p><blockquote style=\"border-left:3px solid #ccc;margin:0;padding-left:1em;"
              "white-space:pre-wrap\">" +
              Escape(body) + "</blockquote><p><a href=\"" + Escape(url) + "\">" + Escape(open) +
              "</a></p>";
  }
  if (more > 0) {
    const std::string line =
        zh ? "……还有 " + std::to_string(more) + " 条。" : "…and " + std::to_string(more) + " more.";
    l.text += line + "\r\n\r\n";
    l.html += "<p>" + Escape(line) + "</p>";
  }
  const std::string why = Fill(w.why, {{"site", links.public_url}});
  l.text += "-- \r\n" + why + "\r\n" + w.unsubscribe + ": " + links.unsubscribe + "\r\n";
  l.html += "<hr><p style=\"color:#666;font-size:small\">" + Escape(why) + " <a href=\"" +
            Escape(links.unsubscribe) + "\">" + Escape(w.unsubscribe) + "</a></p></body></html>";
  return l;
}

Letter ConfirmLetter(const std::string& language, const std::string& confirm_url, bool guest,
                     const Links& links) {
  const bool zh = Chinese(language);
  Letter l;
  std::string lead;
  if (zh) {
    l.subject = "请确认你的邮箱地址";
    lead = guest ? "有人在 " + links.public_url +
                       " 的评论中留下了这个地址。确认后，有人回复时你会收到邮件："
                 : "请确认这个地址，以便接收 " + links.public_url + " 的通知：";
  } else {
    l.subject = "Confirm your e-mail address";
    lead = guest ? "Someone left this address under a comment at " + links.public_url +
                       ". Confirm it to be mailed when someone replies:"
                 : "Confirm this address to get notices from " + links.public_url + ":";
  }
  const std::string ignore = zh ? "如果不是你本人，请忽略这封邮件，我们不会再发送。"
                                : "If it was not you, ignore this mail: nothing more will be sent.";
  // "It was not me" in one click: the address hears nothing more, even if later confirmed.
  const std::string stop = zh ? "不再接收这个地址的邮件" : "Never mail this address again";
  l.text = lead + "\r\n\r\n" + confirm_url + "\r\n\r\n" + ignore + "\r\n";
  l.html = "<!doctype html><html><body style=\"font-family:sans-serif\"><p>" + Escape(lead) +
           "</p><p><a href=\"" + Escape(confirm_url) + "\">" + Escape(confirm_url) +
           "</a></p><p style=\"color:#666\">" + Escape(ignore);
  if (!links.unsubscribe.empty()) {
    l.text += stop + ": " + links.unsubscribe + "\r\n";
    l.html += " <a href=\"" + Escape(links.unsubscribe) + "\">" + Escape(stop) + "</a>";
  }
  l.html += "</p></body></html>";
  return l;
}

}  // namespace plaudit::notify
