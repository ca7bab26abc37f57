#include "transfer/record_lines.hpp"

#include <array>
#include <boost/json.hpp>

#include "domain/guest_token.hpp"

namespace plaudit::transfer {
namespace {

namespace json = boost::json;

constexpr std::array<std::string_view, 1> kUserDerived{"username_key"};
constexpr std::array<std::string_view, 2> kLikeDerived{"valid", "seq"};

std::string AsciiLower(std::string s) {
  for (char& ch : s) {
    if (ch >= 'A' && ch <= 'Z') {
      ch = static_cast<char>(ch - 'A' + 'a');
    }
  }
  return s;
}

bool KnownColumn(const RecordType& t, std::string_view name) {
  for (const Column& c : t.columns) {
    if (c.name == name) {
      return true;
    }
  }
  return false;
}

// A secret the file does not carry: what a new row would have.
sql::Value SecretDefault(const RecordType& t, const Column& col, const json::object& o) {
  if (col.name == "unsubscribe_key") {
    // Every guest address has one; an account one once it has an address.
    const json::value* email = o.if_contains("email");
    if (t.type == "guest_address" || (email != nullptr && !email->is_null())) {
      return domain::NewGuestToken().token;
    }
    return nullptr;
  }
  if (col.nullable) {
    return nullptr;
  }
  return std::string();  // a password hash: none (the account cannot sign in with one)
}

Result<sql::Value> FieldValue(const RecordType& t, const Column& col, const json::object& o,
                              int64_t line) {
  const json::value* v = o.if_contains(col.name);
  if (v == nullptr) {
    if (col.secret) {
      return SecretDefault(t, col, o);
    }
    return tl::unexpected(
        AtLine(line, WithArticle(t.type) + " record without \"" + std::string(col.name) + "\""));
  }
  if (v->is_null()) {
    if (col.nullable) {
      return sql::Value{nullptr};
    }
  } else if (col.kind == Kind::kInt && v->is_int64()) {
    return sql::Value{v->get_int64()};
  } else if (col.kind == Kind::kText && v->is_string()) {
    const json::string& s = v->get_string();
    return sql::Value{std::string(s.data(), s.size())};
  }
  const char* want = col.kind == Kind::kInt ? "an integer" : "a string";
  return tl::unexpected(AtLine(line, "\"" + std::string(col.name) + "\" of " + WithArticle(t.type) +
                                         " record must be " + want +
                                         (col.nullable ? " or null" : "")));
}

// A record's row: its columns, then the derived ones.
Result<sql::Row> DecodeRow(const RecordType& t, const json::object& o, int64_t line) {
  for (const auto& field : o) {
    if (field.key() != "type" && !KnownColumn(t, field.key())) {
      return tl::unexpected(AtLine(line, "unknown field \"" + std::string(field.key()) + "\" in " +
                                             WithArticle(t.type) + " record"));
    }
  }
  sql::Row row;
  row.reserve(t.columns.size() + DerivedColumns(t).size());
  for (const Column& col : t.columns) {
    auto v = FieldValue(t, col, o, line);
    if (!v) {
      return tl::unexpected(v.error());
    }
    row.push_back(std::move(*v));
  }
  if (t.type == "user") {
    // The username, a text column that is never null (records.cpp), lower-cased.
    row.emplace_back(AsciiLower(std::get<std::string>(row[1])));
  } else if (t.type == "like") {
    row.emplace_back(int64_t{1});  // valid
    row.emplace_back(int64_t{0});  // seq: the new Redis's like seqs start above it
  }
  return row;
}

Status CheckHeader(const json::object& o) {
  const json::value* type = o.if_contains("type");
  const json::value* version = o.if_contains("version");
  if (type == nullptr || !type->is_string() || type->get_string() != kHeaderType ||
      version == nullptr || !version->is_int64()) {
    return tl::unexpected(AtLine(1,
                                 "not a Plaudit export (it begins with "
                                 "{\"type\":\"plaudit-export\",\"version\":1})"));
  }
  if (version->get_int64() != kFormatVersion) {
    return tl::unexpected(AtLine(1, "an export of version " + std::to_string(version->get_int64()) +
                                        "; this plauditd reads version " +
                                        std::to_string(kFormatVersion)));
  }
  if (o.size() != 2) {
    return tl::unexpected(AtLine(1, "the header has fields other than type and version"));
  }
  return {};
}

}  // namespace

json::object HeaderRecord() {
  json::object header;
  header["type"] = kHeaderType;
  header["version"] = kFormatVersion;
  return header;
}

json::object EndRecord(int64_t records) {
  json::object end;
  end["type"] = "end";
  end["records"] = records;
  return end;
}

json::object EncodeRecord(const RecordType& t, const sql::Row& row, bool with_secrets) {
  json::object o;
  o["type"] = t.type;
  for (size_t i = 0; i < t.columns.size(); ++i) {
    const Column& col = t.columns[i];
    if (col.secret && !with_secrets) {
      continue;
    }
    json::value& v = o[col.name];
    if (sql::IsNull(row[i])) {
      v = nullptr;
    } else if (col.kind == Kind::kInt) {
      v = sql::Int(row[i]);
    } else {
      v = sql::Text(row[i]);
    }
  }
  return o;
}

std::span<const std::string_view> DerivedColumns(const RecordType& t) {
  if (t.type == "user") {
    return kUserDerived;
  }
  if (t.type == "like") {
    return kLikeDerived;
  }
  return {};
}

Error AtLine(int64_t line, const std::string& message) {
  return Error{ErrorCode::kInvalidArgument, "line " + std::to_string(line) + ": " + message};
}

std::string WithArticle(std::string_view noun) {
  // By sound, for the record types' names: "an article", "an identity", but "a user" (no name
  // begins with a vowel "u").
  const bool vowel =
      !noun.empty() && std::string_view("aeio").find(noun[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + std::string(noun);
}

// The next line into text_ (without its newline); false at the end. A line is read only up to
// one byte past kMaxLine (the caller refuses it): a file of one line of gigabytes is not held
// whole.
Result<bool> ExportReader::ReadLine() {
  text_.clear();
  std::streambuf* buf = in_.rdbuf();
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      if (in_.bad()) {
        return Fail(ErrorCode::kUnavailable, "the file could not be read");
      }
      return !text_.empty();
    }
    if (c == '\n') {
      return true;
    }
    if (text_.size() > kMaxLine) {
      return true;  // one byte more than allowed: enough to refuse it
    }
    text_.push_back(static_cast<char>(c));
  }
}

Result<std::optional<ImportRecord>> ExportReader::Next() {
  const auto types = RecordTypes();
  for (;;) {
    PL_TRY(const bool more, ReadLine());
    if (!more) {
      break;
    }
    ++line_;
    if (text_.size() > kMaxLine) {
      return tl::unexpected(AtLine(line_, "longer than 64 MiB"));
    }
    if (ended_ && text_.find_first_not_of(" \t\r") == std::string::npos) {
      continue;  // blank lines after the end (an editor's last newline)
    }
    if (ended_) {
      return tl::unexpected(AtLine(line_, "after the end record"));
    }
    boost::system::error_code ec;
    json::value v = json::parse(text_, ec);
    if (ec || !v.is_object()) {
      return tl::unexpected(AtLine(line_, "not a JSON object"));
    }
    const json::object& o = v.get_object();
    if (line_ == 1) {
      PL_CHECK(CheckHeader(o));
      continue;
    }
    const json::value* type = o.if_contains("type");
    if (type == nullptr || !type->is_string()) {
      return tl::unexpected(AtLine(line_, "a record without a \"type\""));
    }
    const std::string_view name(type->get_string().data(), type->get_string().size());
    if (name == "end") {
      const json::value* n = o.if_contains("records");
      if (o.size() != 2) {
        return tl::unexpected(AtLine(line_,
                                     "the end record has fields other than type and "
                                     "records"));
      }
      if (n == nullptr || !n->is_int64() || n->get_int64() != records_) {
        return tl::unexpected(AtLine(line_, "the end record does not count the " +
                                                std::to_string(records_) + " records before it"));
      }
      ended_ = true;
      continue;
    }
    const RecordType* t = FindRecordType(name);
    if (t == nullptr) {
      return tl::unexpected(AtLine(line_, "unknown record type \"" + std::string(name) + "\""));
    }
    const auto index = static_cast<size_t>(t - types.data());
    if (index < at_) {
      return tl::unexpected(AtLine(line_, WithArticle(name) + " record after the " +
                                              std::string(types[at_].type) +
                                              " records (records come in the export's order)"));
    }
    at_ = index;
    PL_TRY(auto row, DecodeRow(*t, o, line_));
    ++records_;
    return ImportRecord{t, index, std::move(row), line_};
  }
  if (in_.bad()) {
    return Fail(ErrorCode::kUnavailable, "cannot read the file");
  }
  if (line_ == 0) {
    return tl::unexpected(AtLine(1, "an empty file"));
  }
  if (!ended_) {
    return tl::unexpected(AtLine(line_, "the file ends without its end record (cut short?)"));
  }
  return std::optional<ImportRecord>();
}

}  // namespace plaudit::transfer
