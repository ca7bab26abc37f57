// Any bytes as the file of `plauditd import` (transfer/record_lines.hpp's ExportReader), with
// no database behind it. An error for bad input is the reader's answer, not a finding; these
// are:
// - a crash, a sanitizer report, an exception out of the reader;
// - a record whose row breaks its type's columns (a value of the wrong kind, a null where the
//   column takes none, a row of the wrong width), or records out of the file's order;
// - a value other than its line's: each column the line has, written again, must be the
//   line's JSON value (a reader that took 1.0 or "7" for the integer 7 would pass the
//   round trip below), and the derived columns what the line says (username_key the username
//   lower-cased, a like valid and at seq 0);
// - an error that is not "line N: …" with N the line the reader stopped on;
// - a file read to its end whose records, written again as an export, read back otherwise
//   (the writer and the reader disagree, or the reader is not a function of its input).
#include <sodium.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "transfer/record_lines.hpp"

namespace plaudit::fuzz {
namespace {

namespace json = boost::json;
using transfer::ImportRecord;

// Inputs are at most libFuzzer's -max_len (4 KiB by default): records stay few, but a cap
// keeps a long run's memory flat whatever the options.
constexpr size_t kMaxRecords = 100'000;

[[noreturn]] void Finding(const std::string& what) {
  std::fprintf(stderr, "export reader: %s\n", what.c_str());
  std::abort();
}

bool KindFits(const transfer::Column& col, const sql::Value& v) {
  if (std::holds_alternative<std::nullptr_t>(v)) {
    return col.nullable;
  }
  return col.kind == transfer::Kind::kInt ? std::holds_alternative<int64_t>(v)
                                          : std::holds_alternative<std::string>(v);
}

void CheckRecord(const ImportRecord& r, const ImportRecord* before) {
  const auto types = transfer::RecordTypes();
  if (r.type == nullptr || r.type_index >= types.size() || &types[r.type_index] != r.type) {
    Finding("a record whose type is not its index's");
  }
  const transfer::RecordType& t = *r.type;
  if (r.row.size() != t.columns.size() + transfer::DerivedColumns(t).size()) {
    Finding(std::string(t.type) + ": a row of " + std::to_string(r.row.size()) + " values");
  }
  for (size_t i = 0; i < t.columns.size(); ++i) {
    if (!KindFits(t.columns[i], r.row[i])) {
      Finding(std::string(t.type) + "." + std::string(t.columns[i].name) +
              ": a value of the wrong kind");
    }
  }
  if (r.line < 2 ||
      (before != nullptr && (r.line <= before->line || r.type_index < before->type_index))) {
    Finding("records out of the file's order (line " + std::to_string(r.line) + ")");
  }
}

void CheckError(const Error& e, int64_t stopped_at) {
  if (e.code != ErrorCode::kInvalidArgument) {
    Finding("an error other than invalid_argument from a string: " + e.message);
  }
  const std::string want = "line " + std::to_string(stopped_at < 1 ? 1 : stopped_at) + ": ";
  if (e.message.rfind(want, 0) != 0 || e.message.size() == want.size()) {
    Finding("an error that does not name the line it stopped on (" + want + "): " + e.message);
  }
}

// The oracle's own lower-casing (ASCII only, as the username key is), not the reader's.
std::string AsciiLower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](char ch) {
    return ch >= 'A' && ch <= 'Z' ? static_cast<char>(ch | 0x20) : ch;
  });
  return s;
}

// The record against the line it was read from.
void CheckAgainstLine(const ImportRecord& r, std::string_view line) {
  boost::system::error_code ec;
  const json::value parsed = json::parse(line, ec);
  if (ec || !parsed.is_object()) {
    Finding("a record read from a line that is not a JSON object");
  }
  const json::object& in = parsed.get_object();
  const json::object out = transfer::EncodeRecord(*r.type, r.row, /*with_secrets=*/true);
  for (const transfer::Column& col : r.type->columns) {
    const json::value* given = in.if_contains(col.name);
    if (given != nullptr && *given != out.at(col.name)) {
      Finding(std::string(r.type->type) + "." + std::string(col.name) + ": the line has " +
              json::serialize(*given) + ", the record " + json::serialize(out.at(col.name)));
    }
  }
  const size_t own = r.type->columns.size();
  if (r.type->type == "user" &&
      r.row[own] != sql::Value(AsciiLower(std::get<std::string>(r.row[1])))) {
    Finding("a user's username_key other than its username lower-cased");
  }
  if (r.type->type == "like" &&
      (r.row[own] != sql::Value(int64_t{1}) || r.row[own + 1] != sql::Value(int64_t{0}))) {
    Finding("a like not valid, or at a seq other than 0");
  }
}

// The file's lines as the reader counts them (from 1).
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return lines;
}

// Reads `text` to its end. The records, or nullopt for a file the reader refused (checked).
std::optional<std::vector<ImportRecord>> ReadAll(const std::string& text) {
  std::istringstream in(text);
  transfer::ExportReader reader(in);
  std::vector<ImportRecord> records;
  const std::vector<std::string_view> lines = Lines(text);
  for (;;) {
    auto next = reader.Next();
    if (!next) {
      CheckError(next.error(), reader.line());
      return std::nullopt;
    }
    if (!*next) {
      break;
    }
    CheckRecord(**next, records.empty() ? nullptr : &records.back());
    if (static_cast<size_t>((*next)->line) > lines.size()) {
      Finding("a record from line " + std::to_string((*next)->line) + " of a file of " +
              std::to_string(lines.size()));
    }
    CheckAgainstLine(**next, lines[static_cast<size_t>((*next)->line) - 1]);
    if (records.size() == kMaxRecords) {
      return std::nullopt;
    }
    records.push_back(std::move(**next));
  }
  // Once ended, it stays ended.
  auto again = reader.Next();
  if (!again || *again) {
    Finding("a reader that read past its end");
  }
  return records;
}

std::string Written(const std::vector<ImportRecord>& records) {
  std::string out = json::serialize(transfer::HeaderRecord()) + "\n";
  for (const ImportRecord& r : records) {
    out += json::serialize(transfer::EncodeRecord(*r.type, r.row, /*with_secrets=*/true)) + "\n";
  }
  out += json::serialize(transfer::EndRecord(static_cast<int64_t>(records.size()))) + "\n";
  return out;
}

}  // namespace
}  // namespace plaudit::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A secret the file does not carry gets a new unsubscribe key (libsodium's random bytes).
  if (sodium_init() < 0) {
    plaudit::fuzz::Finding("libsodium did not start");
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plaudit::fuzz;
  const auto records = ReadAll(std::string(reinterpret_cast<const char*>(data), size));
  if (!records) {
    return 0;
  }
  const auto again = ReadAll(Written(*records));
  if (!again) {
    Finding("an export written from the records it read is refused");
  }
  if (again->size() != records->size()) {
    Finding("an export written again reads back another number of records");
  }
  for (size_t i = 0; i < records->size(); ++i) {
    const ImportRecord& a = (*records)[i];
    const ImportRecord& b = (*again)[i];
    if (a.type != b.type || a.row != b.row) {
      Finding("record " + std::to_string(i) + " (" + std::string(a.type->type) +
              ") reads back otherwise once written again");
    }
  }
  return 0;
}
