#include "transfer/json_reader.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_stack.hpp>
#include <charconv>
#include <optional>

#include "common/time.hpp"

namespace plaudit::transfer {
namespace {

namespace json = boost::json;

constexpr size_t kChunk = size_t{64} << 10;
// A root string kept for root_strings() (Waline's "type", "version"): longer ones are not.
constexpr size_t kMaxRootString = 256;

bool IsSpace(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

// basic_parser's handler: follows the containers the parser is in, and while inside a record
// builds it with a value_stack (as json::parser does), handing it over at its end.
struct Handler {
  static constexpr size_t max_object_size = size_t(-1);
  static constexpr size_t max_array_size = size_t(-1);
  static constexpr size_t max_key_size = size_t(-1);
  static constexpr size_t max_string_size = size_t(-1);

  struct Frame {
    bool object = false;
    bool records = false;  // an array whose elements are records
    std::string key;       // an object's current key (outside a record)
  };

  JsonRecordsOptions options;
  JsonRecordSink sink;
  json::value_stack stack;
  std::vector<Frame> frames;
  int64_t line = 1;       // the line being fed
  int64_t documents = 0;  // begun
  std::map<std::string, std::string> root_strings;
  std::string key;            // a key outside a record, in parts
  bool key_too_long = false;  // that key is longer than kMaxRootString (and not kept)
  std::string string;         // a root string, in parts
  bool root_pending = false;  // a JSON Lines root object, before its first key
  int64_t document_line = 0;  // where that object began
  // The record being read: it began at `record_line`, when `record_depth` containers were open.
  bool in_record = false;
  size_t record_depth = 0;
  int64_t record_line = 0;
  int64_t record_fed = 0;         // bytes fed since it began (JsonRecordStream)
  int64_t records = 0;            // handed over
  int64_t record_arrays = 0;      // begun
  std::optional<Status> failure;  // what stopped the parser (a message for a false return)

  bool Stop(json::error_code& ec, Status st) {
    failure = std::move(st);
    ec = json::error::exception;
    return false;
  }
  bool Fail(json::error_code& ec, const std::string& message) {
    return Stop(ec, plaudit::Fail(ErrorCode::kInvalidArgument,
                                  "line " + std::to_string(line) + ": " + message));
  }

  bool ParentIsRecords() const { return !frames.empty() && frames.back().records; }

  bool StartRecord() {
    in_record = true;
    record_depth = frames.size();
    record_line = line;
    record_fed = 0;
    stack.reset();
    return true;
  }

  // A container or a value has ended; the record too when it was the record.
  bool Ended(json::error_code& ec) {
    if (!in_record || frames.size() != record_depth) {
      return true;
    }
    in_record = false;
    ++records;
    json::value record = stack.release();
    if (Status st = sink(std::move(record), record_line); !st) {
      return Stop(ec, std::move(st));
    }
    return true;
  }

  bool Push(json::error_code& ec, bool object) {
    if (frames.size() >= kMaxJsonDepth) {
      return Fail(ec, "JSON nested deeper than " + std::to_string(kMaxJsonDepth));
    }
    frames.push_back({object, false, {}});
    return true;
  }

  // The keys that lead to the array about to begin, when only objects lead there.
  bool LeadsToRecords() const {
    std::vector<std::string> path;
    for (const Frame& f : frames) {
      if (!f.object) {
        return false;
      }
      path.push_back(f.key);
    }
    for (const auto& p : options.arrays) {
      if (p == path) {
        return true;
      }
    }
    return false;
  }

  bool KeepKeyPart(json::string_view s, size_t n, json::error_code& ec) {
    if (root_pending) {
      if (n > static_cast<size_t>(kMaxJsonRecord)) {
        return Fail(ec, "a record longer than " + std::to_string(kMaxJsonRecord >> 20) + " MiB");
      }
    } else if (n > kMaxRootString) {
      key_too_long = true;
      return true;
    }
    key.append(s.data(), s.size());
    return true;
  }

  bool on_document_begin(json::error_code& ec) {
    if (++documents > 1 && !options.documents) {
      return Fail(ec, "more than one JSON document in the file");
    }
    frames.clear();
    return true;
  }
  bool on_document_end(json::error_code&) { return true; }

  bool on_object_begin(json::error_code& ec) {
    if (!in_record && ParentIsRecords()) {
      StartRecord();
    }
    root_pending = !in_record && frames.empty() && options.documents;
    if (root_pending) {
      document_line = line;
    }
    return Push(ec, true);
  }
  bool on_object_end(size_t n, json::error_code& ec) {
    if (in_record) {
      stack.push_object(n);
    }
    frames.pop_back();
    return Ended(ec);
  }
  bool on_array_begin(json::error_code& ec) {
    if (!in_record && ParentIsRecords()) {
      StartRecord();
    }
    const bool of_records = !in_record && LeadsToRecords();
    if (!Push(ec, false)) {
      return false;
    }
    frames.back().records = of_records;
    record_arrays += of_records ? 1 : 0;
    return true;
  }
  bool on_array_end(size_t n, json::error_code& ec) {
    if (in_record) {
      stack.push_array(n);
    }
    frames.pop_back();
    return Ended(ec);
  }

  // A key outside a record is held whole only up to kMaxRootString (keys that lead to the
  // records are short words); a longer one is remembered as too long to lead anywhere, except
  // a JSON Lines document's first key, which begins its record (and counts towards its size).
  bool on_key_part(json::string_view s, size_t n, json::error_code& ec) {
    if (in_record) {
      stack.push_chars(s);
    } else if (!KeepKeyPart(s, n, ec)) {
      return false;
    }
    return true;
  }
  bool on_key(json::string_view s, size_t n, json::error_code& ec) {
    if (in_record) {
      stack.push_key(s);
      return true;
    }
    if (!KeepKeyPart(s, n, ec)) {
      return false;
    }
    if (root_pending) {
      // A JSON Lines document: a wrapper of records ({"results": […]}) or a record itself.
      root_pending = false;
      bool wrapper = false;
      for (const auto& p : options.arrays) {
        wrapper = wrapper || (!p.empty() && p.front() == key);
      }
      if (!wrapper) {
        StartRecord();
        record_depth = 0;
        record_line = document_line;
        stack.push_key(key);
      }
    }
    frames.back().key = key_too_long ? std::string("\x01(too long)") : std::move(key);
    key.clear();
    key_too_long = false;
    return true;
  }

  // A value outside a record: a record itself (a records array's element), a root string kept,
  // or nothing.
  bool Scalar(json::error_code& ec, json::value v) {
    if (ParentIsRecords()) {
      ++records;
      if (Status st = sink(std::move(v), line); !st) {
        return Stop(ec, std::move(st));
      }
    } else if (frames.size() == 1 && frames[0].object && documents == 1 && v.is_string()) {
      root_strings[frames[0].key] = std::string(v.as_string());
    }
    return true;
  }

  bool on_string_part(json::string_view s, size_t, json::error_code&) {
    if (in_record) {
      stack.push_chars(s);
    } else if (string.size() + s.size() <= kMaxRootString) {
      string.append(s.data(), s.size());
    }
    return true;
  }
  bool on_string(json::string_view s, size_t n, json::error_code& ec) {
    if (in_record) {
      stack.push_string(s);
      return Ended(ec);
    }
    std::string whole = std::move(string);
    string.clear();
    if (n > kMaxRootString) {
      return Scalar(ec, json::value(nullptr));  // kept by no one
    }
    whole.append(s.data(), s.size());
    return Scalar(ec, json::value(json::string_view(whole)));
  }
  bool on_number_part(json::string_view, json::error_code&) { return true; }
  bool on_int64(int64_t i, json::string_view, json::error_code& ec) {
    if (in_record) {
      stack.push_int64(i);
      return Ended(ec);
    }
    return Scalar(ec, json::value(i));
  }
  bool on_uint64(uint64_t u, json::string_view, json::error_code& ec) {
    if (in_record) {
      stack.push_uint64(u);
      return Ended(ec);
    }
    return Scalar(ec, json::value(u));
  }
  bool on_double(double d, json::string_view, json::error_code& ec) {
    if (in_record) {
      stack.push_double(d);
      return Ended(ec);
    }
    return Scalar(ec, json::value(d));
  }
  bool on_bool(bool b, json::error_code& ec) {
    if (in_record) {
      stack.push_bool(b);
      return Ended(ec);
    }
    return Scalar(ec, json::value(b));
  }
  bool on_null(json::error_code& ec) {
    if (in_record) {
      stack.push_null();
      return Ended(ec);
    }
    return Scalar(ec, json::value(nullptr));
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }
};

json::parse_options ParseOptions() {
  json::parse_options o;
  o.max_depth = kMaxJsonDepth + 1;  // the handler's own limit names the line
  return o;
}

}  // namespace

struct JsonRecordStream::State {
  State(JsonRecordsOptions options, JsonRecordSink sink) : parser(ParseOptions()) {
    parser.handler().options = std::move(options);
    parser.handler().sink = std::move(sink);
  }
  json::basic_parser<Handler> parser;
  bool open = false;  // a document has begun and not ended
  std::string chunk;
};

JsonRecordStream::JsonRecordStream(std::istream& in, JsonRecordsOptions options,
                                   JsonRecordSink sink)
    : in_(in), state_(std::make_unique<State>(std::move(options), std::move(sink))) {}

JsonRecordStream::~JsonRecordStream() = default;

const std::map<std::string, std::string>& JsonRecordStream::root_strings() const {
  return state_->parser.handler().root_strings;
}

int64_t JsonRecordStream::documents() const { return state_->parser.handler().documents; }
int64_t JsonRecordStream::records() const { return state_->parser.handler().records; }
int64_t JsonRecordStream::record_arrays() const { return state_->parser.handler().record_arrays; }
int64_t JsonRecordStream::line() const { return state_->parser.handler().line; }

// One line's piece (or the rest of a chunk) to the parser, which may end a document in it
// and begin the next.
Status JsonRecordStream::Feed(const char* data, size_t size) {
  auto& parser = state_->parser;
  Handler& h = parser.handler();
  while (size > 0) {
    if (!state_->open) {
      while (size > 0 && IsSpace(*data)) {
        ++data;
        --size;
      }
      if (size == 0) {
        return {};
      }
      parser.reset();
      state_->open = true;
    }
    json::error_code ec;
    const size_t used = parser.write_some(true, data, size, ec);
    if (h.failure) {
      return *h.failure;
    }
    if (ec) {
      return Fail(ErrorCode::kInvalidArgument, "line " + std::to_string(h.line) +
                                                   ": not well-formed JSON (" + ec.message() + ")");
    }
    if (h.in_record) {
      h.record_fed += static_cast<int64_t>(used);
      if (h.record_fed > kMaxJsonRecord) {
        return Fail(ErrorCode::kInvalidArgument, "line " + std::to_string(h.record_line) +
                                                     ": a record longer than " +
                                                     std::to_string(kMaxJsonRecord >> 20) + " MiB");
      }
    }
    data += used;
    size -= used;
    if (parser.done()) {
      state_->open = false;
    }
  }
  return {};
}

Result<bool> JsonRecordStream::Step() {
  if (done_) {
    return false;
  }
  Handler& h = state_->parser.handler();
  std::string& chunk = state_->chunk;
  chunk.resize(kChunk);
  in_.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
  chunk.resize(static_cast<size_t>(in_.gcount()));
  if (in_.bad()) {
    return Fail(ErrorCode::kUnavailable, "the file could not be read");
  }
  // A byte order mark (Windows editors write one) is no part of the JSON.
  size_t start = 0;
  if (!started_ && chunk.starts_with("\xEF\xBB\xBF")) {
    start = 3;
  }
  started_ = true;
  // Fed a line at a time, so that what the parser hands over knows its line.
  for (size_t at = start; at < chunk.size();) {
    const size_t nl = chunk.find('\n', at);
    const size_t end = nl == std::string::npos ? chunk.size() : nl + 1;
    PL_CHECK(Feed(chunk.data() + at, end - at));
    if (nl != std::string::npos) {
      ++h.line;
    }
    at = end;
  }
  if (!chunk.empty()) {
    return true;
  }
  done_ = true;
  if (state_->open) {
    json::error_code ec;
    state_->parser.write_some(false, nullptr, 0, ec);
    if (h.failure) {
      return ::tl::unexpected(h.failure->error());
    }
    if (ec || !state_->parser.done()) {
      return Fail(ErrorCode::kInvalidArgument,
                  "line " + std::to_string(h.line) + ": the file ends inside a JSON document");
    }
  }
  return false;
}

namespace {

const json::value* Field(const json::object& record, std::string_view key) {
  const auto it = record.find(key);
  return it == record.end() ? nullptr : &it->value();
}

// A value inside MongoDB's or LeanCloud's wrapper ({"$oid": …}, {"$date": …}, {"iso": …}).
const json::value* Unwrapped(const json::value* v, std::initializer_list<std::string_view> keys) {
  if (const auto* o = v->if_object()) {
    for (const std::string_view k : keys) {
      if (const json::value* inner = Field(*o, k)) {
        return inner;
      }
    }
  }
  return v;
}

std::optional<int64_t> Digits(std::string_view text) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return n;
}

// Epoch milliseconds; a number below 10^11 is seconds (10^11 ms is 1973, 10^11 s the year
// 5138: a comment of 1970 is more likely a time in seconds).
std::optional<int64_t> EpochMs(int64_t n) {
  constexpr int64_t kSecondsBelow = 100'000'000'000;
  if (n >= 0 && n < kSecondsBelow) {
    return n * 1000;
  }
  return n;
}

std::optional<int64_t> TimeOf(const json::value& v) {
  if (v.is_int64()) {
    return EpochMs(v.as_int64());
  }
  if (v.is_uint64() && v.as_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
    return EpochMs(static_cast<int64_t>(v.as_uint64()));
  }
  if (v.is_double()) {
    const double d = v.as_double();
    constexpr double kLimit = 9.0e15;  // beyond any time a comment has (and exact in a double)
    if (!(d > -kLimit && d < kLimit)) {
      return std::nullopt;  // NaN too
    }
    return EpochMs(static_cast<int64_t>(d));
  }
  if (!v.is_string()) {
    return std::nullopt;
  }
  std::string text(v.as_string());
  if (auto n = Digits(text)) {
    return EpochMs(*n);
  }
  if (text.size() >= 19 && text[10] == ' ') {
    text[10] = 'T';  // "2024-01-15 18:30:00" (Waline on SQLite)
  }
  if (auto t = ParseTimeMs(text)) {
    return t;
  }
  return ParseTimeMs(text + "Z");
}

}  // namespace

std::string JsonId(const json::object& record, std::string_view key) {
  const json::value* v = Field(record, key);
  if (v == nullptr) {
    return {};
  }
  const json::value& id = *Unwrapped(v, {"$oid"});
  if (id.is_string()) {
    return std::string(id.as_string());
  }
  if (id.is_int64()) {
    return std::to_string(id.as_int64());
  }
  if (id.is_uint64()) {
    return std::to_string(id.as_uint64());
  }
  if (id.is_double()) {
    // 3.0 is the id 3 (a file through a tool that writes numbers so); 3.5 is no comment's id,
    // and a parent of that id is not found (the reply is skipped, not made top-level).
    const double d = id.as_double();
    if (d > -9.0e15 && d < 9.0e15 && d == static_cast<double>(static_cast<int64_t>(d))) {
      return std::to_string(static_cast<int64_t>(d));
    }
    return json::serialize(id);
  }
  return {};
}

std::string JsonText(const json::object& record, std::string_view key) {
  const json::value* v = Field(record, key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::optional<int64_t> JsonTime(const json::object& record, std::string_view key) {
  const json::value* v = Field(record, key);
  if (v == nullptr) {
    return std::nullopt;
  }
  return TimeOf(*Unwrapped(Unwrapped(v, {"$date", "iso"}), {"$numberLong"}));
}

}  // namespace plaudit::transfer
