#pragma once
// A streaming JSON reader for the importers of Waline and Twikoo exports (Boost.JSON's
// basic_parser): the records of a file, each an element of one array (Waline's
// data.Comment, Twikoo's root array or results) or a document of its own (JSON Lines), are
// handed over one at a time as JSON values, with the line each starts on, so that a file of
// any size is read in the memory of its largest record.
#include <boost/json/value.hpp>
#include <cstdint>
#include <functional>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.hpp"
#include "transfer/foreign.hpp"

namespace plaudit::transfer {

// The largest record read (a comment and its fields): a longer one is refused.
inline constexpr int64_t kMaxJsonRecord = int64_t{16} << 20;
// The deepest nesting read (the formats need 5).
inline constexpr size_t kMaxJsonDepth = 32;

struct JsonRecordsOptions {
  // Where the records are: each a path of keys from the root object down to an array whose
  // elements are records ({}: the root is that array).
  std::vector<std::vector<std::string>> arrays;
  // More than one document in the file (JSON Lines); a root object whose first key is none of
  // `arrays`' first keys is then a record itself.
  bool documents = false;
};

// A record and the line it starts on.
using JsonRecordSink = std::function<Status(boost::json::value record, int64_t line)>;

// Reads `in` a piece at a time: each Step() reads the next 64 KiB, handing the records it
// completes to `sink`. A file that is not well-formed JSON, ends early, or has a record longer
// than kMaxJsonRecord is kInvalidArgument "line N: …"; a sink's error stops the reading and is
// returned as it is.
class JsonRecordStream {
 public:
  JsonRecordStream(std::istream& in, JsonRecordsOptions options, JsonRecordSink sink);
  ~JsonRecordStream();
  JsonRecordStream(const JsonRecordStream&) = delete;
  JsonRecordStream& operator=(const JsonRecordStream&) = delete;
  // false once the whole file has been read.
  Result<bool> Step();
  // The string values of the (first) root object's own keys read so far (Waline's "type").
  const std::map<std::string, std::string>& root_strings() const;
  // Documents begun so far; records handed over so far; arrays of records begun so far.
  int64_t documents() const;
  int64_t records() const;
  int64_t record_arrays() const;
  // The line being read (the last, once the file has been read).
  int64_t line() const;

  struct State;  // the parser and its handler (json_reader.cpp)

 private:
  Status Feed(const char* data, size_t size);
  std::istream& in_;
  std::unique_ptr<State> state_;
  bool started_ = false;
  bool done_ = false;
};

// A reader of a JSON export (transfer/foreign.hpp): each record of the file to Record(), and
// Finish() once the whole file has been read (a check of the file as a whole).
class JsonForeignStream : public ForeignStream {
 public:
  Result<bool> Step() final {
    PL_TRY(const bool more, json_.Step());
    if (!more) {
      PL_CHECK(Finish());
    }
    return more;
  }

 protected:
  JsonForeignStream(std::istream& in, JsonRecordsOptions options)
      : json_(in, std::move(options),
              [this](boost::json::value v, int64_t line) { return Record(std::move(v), line); }) {}
  virtual Status Record(boost::json::value v, int64_t line) = 0;
  virtual Status Finish() const = 0;
  const JsonRecordStream& json() const { return json_; }

 private:
  JsonRecordStream json_;
};

// Fields as the exports write them, from whichever backend made the file
// (docs/import-formats.md §3.6, §4.1).
// An id: a string, a number (as its decimal digits) or MongoDB's {"$oid": "…"}; "" for none
// (absent, null, "").
std::string JsonId(const boost::json::object& record, std::string_view key);
// A text field; "" when absent or not a string.
std::string JsonText(const boost::json::object& record, std::string_view key);
// A time: epoch milliseconds (a number, a string of digits, {"$numberLong": "…"}), an ISO
// 8601 string with or without its offset or milliseconds, or "YYYY-MM-DD HH:MM:SS" (both
// without an offset taken as UTC), or one of those in {"$date": …} or {"__type": "Date",
// "iso": …}. nullopt when absent or unreadable.
std::optional<int64_t> JsonTime(const boost::json::object& record, std::string_view key);

}  // namespace plaudit::transfer
