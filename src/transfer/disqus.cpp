// The Disqus export (docs/import-formats.md, "Disqus XML export"): <disqus> holding
// <category>, <thread dsq:id> and <post dsq:id> elements, read as they stream past.
#include <string>

#include "common/time.hpp"
#include "transfer/foreign.hpp"
#include "transfer/xml_reader.hpp"

namespace plaudit::transfer {
namespace {

std::string_view AttributeId(const std::vector<XmlAttribute>& attributes) {
  for (const auto& a : attributes) {
    if (a.name == "id") {
      return a.value;
    }
  }
  return {};
}

// createdAt: RFC 3339 in UTC ("2011-08-31T15:16:29Z"); the offset is sometimes left out
// (Disqus's own example), and is then UTC too.
std::optional<int64_t> DisqusTime(const std::string& text) {
  if (auto t = ParseTimeMs(text)) {
    return t;
  }
  return ParseTimeMs(text + "Z");
}

class DisqusReader : public XmlHandler {
 public:
  explicit DisqusReader(ForeignSink& sink) : sink_(sink) {}

  Status Start(const std::vector<std::string>& path, const std::vector<XmlAttribute>& attributes,
               int64_t line) override {
    if (path.size() == 1 && path[0] != "disqus") {
      return Fail(ErrorCode::kInvalidArgument, "line " + std::to_string(line) +
                                                   ": not a Disqus export (its root is <" +
                                                   path[0] + ">, not <disqus>)");
    }
    if (path.size() == 2) {
      in_ = path[1] == "thread" ? In::kThread : path[1] == "post" ? In::kPost : In::kOther;
      thread_ = ForeignThread{};
      post_ = ForeignComment{};
      own_id_ = std::string(AttributeId(attributes));
      thread_.line = post_.line = line;
    } else if (path.size() == 3 && in_ == In::kPost) {
      // <thread dsq:id="…"/> and <parent dsq:id="…"/>: the reference is the attribute (Disqus's
      // own example writes the thread's <id> as the element's text instead).
      if (path[2] == "thread") {
        post_.thread = std::string(AttributeId(attributes));
      } else if (path[2] == "parent") {
        post_.parent = std::string(AttributeId(attributes));
      }
    }
    return {};
  }

  Status End(const std::vector<std::string>& path, std::string text, bool cut,
             int64_t line) override {
    if (path.size() == 2) {
      return Emit();
    }
    if (in_ == In::kThread && path.size() == 3) {
      const std::string& f = path[2];
      if (f == "id") {
        thread_id_text_ = Trimmed(std::move(text));
      } else if (f == "link") {
        thread_.url = Trimmed(std::move(text));
      } else if (f == "title") {
        thread_.title = Trimmed(std::move(text));
      } else if (f == "createdAt") {
        thread_.created_ms = DisqusTime(Trimmed(std::move(text)));
      } else if (f == "isDeleted") {
        thread_.deleted = Trimmed(std::move(text)) == "true";
      }
    } else if (in_ == In::kPost && path.size() == 3) {
      const std::string& f = path[2];
      if (f == "message") {
        post_.text = Trimmed(std::move(text));
        post_.text_cut = cut;
      } else if (f == "id") {
        post_id_text_ = Trimmed(std::move(text));
      } else if (f == "createdAt") {
        post_.created_ms = DisqusTime(Trimmed(std::move(text)));
      } else if (f == "isDeleted") {
        post_.deleted = Trimmed(std::move(text)) == "true";
      } else if (f == "isSpam") {
        if (Trimmed(std::move(text)) == "true") {
          post_.status = ForeignStatus::kSpam;
        }
      } else if (f == "thread" && post_.thread.empty()) {
        post_.thread = "text:" + Trimmed(std::move(text));
      } else if (f == "parent" && post_.parent.empty()) {
        std::string ref = Trimmed(std::move(text));
        post_.parent = ref.empty() ? "" : "text:" + ref;
      }
    } else if (in_ == In::kPost && path.size() == 4 && path[2] == "author") {
      if (path[3] == "name") {
        post_.author = Trimmed(std::move(text));
      } else if (path[3] == "email") {
        post_.email = Trimmed(std::move(text));
      }
    }
    (void)line;
    return {};
  }

 private:
  enum class In { kOther, kThread, kPost };

  Status Emit() {
    const In was = in_;
    in_ = In::kOther;
    if (was == In::kThread) {
      // Posts name a thread by its dsq:id, or (Disqus's example) by its <id> text.
      thread_.key = own_id_;
      if (!thread_id_text_.empty()) {
        PL_CHECK(sink_.Thread(WithKey(thread_, "text:" + thread_id_text_)));
      }
      thread_id_text_.clear();
      return sink_.Thread(std::move(thread_));
    }
    if (was == In::kPost) {
      // A post without dsq:id (seen in the wild) is known by its <id>.
      post_.id = !own_id_.empty() ? own_id_ : post_id_text_.empty() ? "" : "text:" + post_id_text_;
      post_id_text_.clear();
      post_.format = TextFormat::kHtml;
      return sink_.Comment(std::move(post_));
    }
    return {};
  }

  static ForeignThread WithKey(const ForeignThread& t, std::string key) {
    ForeignThread copy = t;
    copy.key = std::move(key);
    copy.alias = true;
    return copy;
  }

  ForeignSink& sink_;
  In in_ = In::kOther;
  ForeignThread thread_;
  ForeignComment post_;
  std::string own_id_;
  std::string thread_id_text_;
  std::string post_id_text_;
};

class DisqusStream : public ForeignStream {
 public:
  DisqusStream(std::istream& in, ForeignSink& sink) : reader_(sink), xml_(in, reader_) {}
  Result<bool> Step() override { return xml_.Step(); }

 private:
  DisqusReader reader_;
  XmlStream xml_;
};

}  // namespace

std::unique_ptr<ForeignStream> OpenDisqus(std::istream& in, ForeignSink& sink) {
  return std::make_unique<DisqusStream>(in, sink);
}

Status ReadDisqus(std::istream& in, ForeignSink& sink) {
  DisqusReader reader(sink);
  return ReadXml(in, reader);
}

}  // namespace plaudit::transfer
