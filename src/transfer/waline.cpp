// The Waline export (docs/import-formats.md §3, "Waline JSON export"): one JSON object,
// {"type": "waline", "version": 1, …, "data": {"Comment": […], "Counter": […], "Users": […]}},
// whose data.Comment rows are read as they stream past. Counter and Users are not imported:
// view counts start again, and accounts are Plaudit's own (the authors become guests).
#include <boost/json.hpp>

#include "transfer/foreign.hpp"
#include "transfer/json_reader.hpp"

namespace plaudit::transfer {
namespace {

namespace json = boost::json;

JsonRecordsOptions Options() {
  JsonRecordsOptions o;
  o.arrays = {{"data", "Comment"}};
  return o;
}

ForeignStatus StatusOf(const std::string& status) {
  if (status.empty() || status == "approved") {
    return ForeignStatus::kApproved;  // none: Valine's rows, approved
  }
  if (status == "spam") {
    return ForeignStatus::kSpam;
  }
  return ForeignStatus::kPending;  // "waiting", and anything else: held for a moderator
}

class WalineStream : public JsonForeignStream {
 public:
  WalineStream(std::istream& in, ForeignSink& sink)
      : JsonForeignStream(in, Options()), sink_(sink) {}

 private:
  Status Finish() const override { return CheckType(/*final=*/true, json().line()); }

  // "type" is written before "data": a file that says it is something else is refused at its
  // first comment, one that never says what it is at its end.
  Status CheckType(bool final, int64_t line) const {
    const auto& roots = json().root_strings();
    const auto type = roots.find("type");
    if (type == roots.end() ? final : type->second != "waline") {
      return Fail(ErrorCode::kInvalidArgument,
                  "line " + std::to_string(line) +
                      ": not a Waline export (no \"type\": \"waline\" in its top object)");
    }
    return {};
  }

  Status Record(json::value v, int64_t line) override {
    PL_CHECK(CheckType(/*final=*/false, line));
    ForeignComment c;
    c.line = line;
    const json::object* o = v.if_object();
    if (o == nullptr) {
      c.skip = "it is not a JSON object";
      return sink_.Comment(std::move(c));
    }
    c.id = JsonId(*o, "objectId");
    // The page is the widget's path (or whatever the site set as `path`).
    c.thread = c.thread_url = Trimmed(JsonText(*o, "url"));
    if (c.thread.empty()) {
      c.skip = "it names no page (no \"url\")";
    }
    c.parent = JsonId(*o, "pid");  // the direct parent (rid is the top-level one)
    c.author = Trimmed(JsonText(*o, "nick"));
    c.email = Trimmed(JsonText(*o, "mail"));
    // insertedAt is the comment's time; createdAt may be when a row was last imported.
    c.created_ms = JsonTime(*o, "insertedAt");
    if (!c.created_ms) {
      c.created_ms = JsonTime(*o, "createdAt");
    }
    c.text = JsonText(*o, "comment");
    c.text_cut = CutForeignText(c.text);
    c.format = TextFormat::kMarkdown;
    c.status = StatusOf(Trimmed(JsonText(*o, "status")));
    return sink_.Comment(std::move(c));
  }

  ForeignSink& sink_;
};

}  // namespace

std::unique_ptr<ForeignStream> OpenWaline(std::istream& in, ForeignSink& sink) {
  return std::make_unique<WalineStream>(in, sink);
}

}  // namespace plaudit::transfer
