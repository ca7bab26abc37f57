// The Twikoo export (docs/import-formats.md §4, "Twikoo JSON export"): a JSON array of comment
// documents (twikoo-comment.json), or the forms older tools wrote and Twikoo still reads:
// {"results": […]}, or one document a line (JSON Lines, with MongoDB's {"$oid"} and
// {"$numberLong"}). Documents that are not comments (a counter export) are skipped.
#include <boost/json.hpp>

#include "transfer/foreign.hpp"
#include "transfer/json_reader.hpp"

namespace plaudit::transfer {
namespace {

namespace json = boost::json;

JsonRecordsOptions Options() {
  JsonRecordsOptions o;
  o.arrays = {{}, {"results"}};
  o.documents = true;
  return o;
}

// isSpam: true hides a comment, for spam and for one awaiting review alike; the file cannot
// tell them apart, so it is imported pending (a moderator sees it in the queue and decides).
// Hand-converted data has it as a string.
bool Hidden(const json::object& o) {
  const auto it = o.find("isSpam");
  if (it == o.end()) {
    return false;
  }
  const json::value& v = it->value();
  return (v.is_bool() && v.as_bool()) || (v.is_string() && v.as_string() == "true");
}

class TwikooStream : public JsonForeignStream {
 public:
  TwikooStream(std::istream& in, ForeignSink& sink)
      : JsonForeignStream(in, Options()), sink_(sink) {}

 private:
  // A Twikoo export holds an array of documents (or JSON Lines of them), and comments among
  // them: an empty file, a bare value or object, or documents of which none is a comment (a
  // Waline export, a counter export alone) is another file.
  Status Finish() const override {
    const auto refuse = [&](const std::string& why) {
      return Fail(ErrorCode::kInvalidArgument,
                  "line " + std::to_string(json().line()) + ": not a Twikoo export (" + why + ")");
    };
    if (json().documents() == 0) {
      return refuse("the file is empty");
    }
    if (json().records() == 0 && json().record_arrays() == 0) {
      return refuse("no array of comments and no comment documents");
    }
    if (json().records() > 0 && comments_ == 0) {
      return refuse("no document in it has a \"comment\"");
    }
    return {};
  }

  Status Record(json::value v, int64_t line) override {
    ForeignComment c;
    c.line = line;
    const json::object* o = v.if_object();
    if (o == nullptr) {
      c.skip = "it is not a JSON object";
      return sink_.Comment(std::move(c));
    }
    c.id = JsonId(*o, "_id");
    comments_ += o->contains("comment") ? 1 : 0;
    if (!o->contains("comment")) {
      // Twikoo 2.0's counter export wrote comments, and its fixed one counters: either may
      // be given.
      c.skip = "it is not a comment (no \"comment\": a counter?)";
      return sink_.Comment(std::move(c));
    }
    // The page: the widget's path ("/x" and "/x/" are one page, as for Twikoo), else the URL.
    c.thread = Trimmed(JsonText(*o, "url"));
    if (c.thread.empty()) {
      c.thread = Trimmed(JsonText(*o, "href"));
    }
    c.thread_url = c.thread;
    if (c.thread.empty()) {
      c.skip = "it names no page (no \"url\")";
    }
    // pid is the direct parent (rid, the top-level one, stands in when pid is missing).
    c.parent = JsonId(*o, "pid");
    if (c.parent.empty()) {
      c.parent = JsonId(*o, "rid");
    }
    c.author = Trimmed(JsonText(*o, "nick"));
    c.email = Trimmed(JsonText(*o, "mail"));
    c.created_ms = JsonTime(*o, "created");
    if (!c.created_ms) {
      c.created_ms = JsonTime(*o, "updated");
    }
    c.text = JsonText(*o, "comment");  // HTML (the widget rendered it): sanitised again
    c.text_cut = CutForeignText(c.text);
    c.format = TextFormat::kHtml;
    c.status = Hidden(*o) ? ForeignStatus::kPending : ForeignStatus::kApproved;
    return sink_.Comment(std::move(c));
  }

  ForeignSink& sink_;
  int64_t comments_ = 0;  // records with a "comment"
};

}  // namespace

std::unique_ptr<ForeignStream> OpenTwikoo(std::istream& in, ForeignSink& sink) {
  return std::make_unique<TwikooStream>(in, sink);
}

}  // namespace plaudit::transfer
