// The WordPress export (WXR; docs/import-formats.md, "WordPress WXR"): RSS with <item>s (posts
// and pages) holding their <wp:comment>s, read as they stream past. Elements are matched by
// their local names, so the wp: namespace of WXR 1.0, 1.1 or 1.2 (http or https) all read.
#include <string>

#include "common/time.hpp"
#include "transfer/foreign.hpp"
#include "transfer/xml_reader.hpp"

namespace plaudit::transfer {
namespace {

// "2020-05-02 09:15:00" (comment_date_gmt: UTC); "0000-00-00 00:00:00" is no time.
std::optional<int64_t> WxrTime(std::string text) {
  if (text.size() != 19 || text[10] != ' ' || text.starts_with("0000")) {
    return std::nullopt;
  }
  text[10] = 'T';
  return ParseTimeMs(text + "Z");
}

// WordPress shows a comment through wpautop: a blank line parts paragraphs, a newline is a
// line break. The same as HTML, for the sanitiser.
std::string Paragraphs(const std::string& text) {
  std::string out = "<p>";
  size_t newlines = 0;
  for (const char ch : text) {
    if (ch == '\r') {
      continue;
    }
    if (ch == '\n') {
      ++newlines;
      continue;
    }
    if (newlines == 1) {
      out += "<br>\n";
    } else if (newlines > 1) {
      out += "</p>\n<p>";
    }
    newlines = 0;
    out += ch;
  }
  return out + "</p>";
}

class WordpressReader : public XmlHandler {
 public:
  explicit WordpressReader(ForeignSink& sink) : sink_(sink) {}

  Status Start(const std::vector<std::string>& path, const std::vector<XmlAttribute>&,
               int64_t line) override {
    if (path.size() == 1 && path[0] != "rss" && path[0] != "channel") {
      return Fail(ErrorCode::kInvalidArgument, "line " + std::to_string(line) +
                                                   ": not a WordPress export (its root is <" +
                                                   path[0] + ">, not <rss>)");
    }
    const std::string& name = path.back();
    if (name == "item" && path.size() >= 2 && path[path.size() - 2] == "channel") {
      item_ = Item{};
      item_.thread.line = line;
      item_depth_ = path.size();
    } else if (item_depth_ != 0 && path.size() == item_depth_ + 1 && name == "comment") {
      comment_ = Comment{};
      comment_.record.line = line;
    }
    return {};
  }

  Status End(const std::vector<std::string>& path, std::string text, bool cut, int64_t) override {
    if (item_depth_ == 0 || path.size() <= item_depth_ - 1) {
      return {};
    }
    const std::string& name = path.back();
    if (path.size() == item_depth_) {
      item_depth_ = 0;
      return EmitItem();
    }
    if (path.size() == item_depth_ + 1) {
      if (name == "comment") {
        return EmitComment();
      }
      if (name == "link") {
        item_.thread.url = Trimmed(std::move(text));
      } else if (name == "title") {
        item_.thread.title = Trimmed(std::move(text));
      } else if (name == "post_id") {
        item_.post_id = Trimmed(std::move(text));
      } else if (name == "status") {
        item_.thread.deleted = Trimmed(std::move(text)) == "trash";
      } else if (name == "post_date_gmt") {
        item_.thread.created_ms = WxrTime(Trimmed(std::move(text)));
      }
      return {};
    }
    if (path.size() == item_depth_ + 2 && path[item_depth_] == "comment") {
      ForeignComment& c = comment_.record;
      if (name == "comment_id") {
        comment_.id = Trimmed(std::move(text));
      } else if (name == "comment_parent") {
        comment_.parent = Trimmed(std::move(text));
      } else if (name == "comment_author") {
        c.author = Trimmed(std::move(text));
      } else if (name == "comment_author_email") {
        c.email = Trimmed(std::move(text));
      } else if (name == "comment_date_gmt") {
        comment_.gmt = WxrTime(Trimmed(std::move(text)));
      } else if (name == "comment_date") {
        comment_.local = WxrTime(Trimmed(std::move(text)));
      } else if (name == "comment_content") {
        c.text = Paragraphs(Trimmed(std::move(text)));
        c.text_cut = cut;
      } else if (name == "comment_approved") {
        comment_.approved = Trimmed(std::move(text));
      } else if (name == "comment_type") {
        comment_.type = Trimmed(std::move(text));
      }
    }
    return {};
  }

 private:
  struct Item {
    ForeignThread thread;
    std::string post_id;
    bool sent = false;  // its thread handed over (its comments go on as they end)
    // Comments read before the item's post id (which WordPress writes before them): kept until
    // it comes, or the item ends.
    std::vector<ForeignComment> comments;
  };
  struct Comment {
    ForeignComment record;
    std::string id;
    std::string parent;
    std::optional<int64_t> gmt;
    std::optional<int64_t> local;
    std::string approved;
    std::string type;
  };

  Status EmitComment() {
    Comment& c = comment_;
    ForeignComment r = std::move(c.record);
    r.id = std::move(c.id);
    r.parent = c.parent == "0" ? "" : std::move(c.parent);
    // The site's local time only when UTC is missing (WXR does not say the site's zone).
    r.created_ms = c.gmt ? c.gmt : c.local;
    r.format = TextFormat::kHtml;
    if (c.approved == "1") {
      r.status = ForeignStatus::kApproved;
    } else if (c.approved == "spam") {
      r.status = ForeignStatus::kSpam;
    } else if (c.approved == "trash" || c.approved == "post-trashed") {
      r.deleted = true;
    } else {
      r.status = ForeignStatus::kPending;  // "0", and what plugins add
    }
    if (c.type == "pingback" || c.type == "trackback") {
      r.skip = "a " + c.type + ", not a reader's comment";
    }
    if (!item_.sent && !item_.post_id.empty()) {
      PL_CHECK(SendThread());
    }
    if (item_.sent) {
      return Send(std::move(r));  // as it streams past: a post's comments are never all held
    }
    item_.comments.push_back(std::move(r));
    return {};
  }

  // The item's thread, once its post id (or its end) is read, with the comments kept till then.
  // The item's fields are the ones read before it (WordPress writes them before the comments).
  Status SendThread() {
    item_.thread.key = item_.post_id.empty() ? item_.thread.url : "p" + item_.post_id;
    PL_CHECK(sink_.Thread(item_.thread));
    item_.sent = true;
    std::vector<ForeignComment> kept = std::move(item_.comments);
    item_.comments.clear();
    for (ForeignComment& c : kept) {
      PL_CHECK(Send(std::move(c)));
    }
    return {};
  }

  // Comment ids are unique in a site, but exports with one id in two items exist: ids are
  // taken as the item's.
  Status Send(ForeignComment r) {
    r.id = r.id.empty() ? "" : item_.post_id + ":" + r.id;
    r.parent = r.parent.empty() ? "" : item_.post_id + ":" + r.parent;
    r.thread = item_.thread.key;
    return sink_.Comment(std::move(r));
  }

  Status EmitItem() {
    Status st;
    if (!item_.sent && !item_.comments.empty()) {
      st = SendThread();
    }
    item_ = Item{};  // posts without comments, attachments, menu items: nothing to import
    return st;
  }

  ForeignSink& sink_;
  size_t item_depth_ = 0;  // the open <item>'s depth; 0: none
  Item item_;
  Comment comment_;
};

class WordpressStream : public ForeignStream {
 public:
  WordpressStream(std::istream& in, ForeignSink& sink) : reader_(sink), xml_(in, reader_) {}
  Result<bool> Step() override { return xml_.Step(); }

 private:
  WordpressReader reader_;
  XmlStream xml_;
};

}  // namespace

std::unique_ptr<ForeignStream> OpenWordpress(std::istream& in, ForeignSink& sink) {
  return std::make_unique<WordpressStream>(in, sink);
}

}  // namespace plaudit::transfer
