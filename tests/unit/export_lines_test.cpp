// The lines of an export, read without a database (transfer/record_lines.hpp). The import's
// SQL side, and the refusals end to end, are TransferTest's (tests/integration/app).
#include <gtest/gtest.h>
#include <sodium.h>

#include <algorithm>
#include <boost/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "transfer/record_lines.hpp"

namespace plaudit::transfer {
namespace {

namespace json = boost::json;

// A record of `type` with every column it carries unless secret: integers 7, texts "Ab".
json::object RecordSample(std::string_view type) {
  const RecordType* t = FindRecordType(type);
  json::object o;
  o["type"] = type;
  for (const Column& c : t->columns) {
    if (!c.secret) {
      o[c.name] = c.kind == Kind::kInt ? json::value(7) : json::value("Ab");
    }
  }
  return o;
}

std::string ExportText(const std::vector<json::object>& records, int64_t end) {
  std::string f = json::serialize(HeaderRecord()) + "\n";
  for (const auto& r : records) {
    f += json::serialize(r) + "\n";
  }
  return f + json::serialize(EndRecord(end)) + "\n";
}

struct ReadOutcome {
  std::vector<ImportRecord> records;
  std::optional<Error> error;
  int64_t line = 0;  // the line the reader stopped on
};

ReadOutcome ReadExport(const std::string& text) {
  std::istringstream in(text);
  ExportReader reader(in);
  ReadOutcome r;
  for (;;) {
    auto next = reader.Next();
    r.line = reader.line();
    if (!next) {
      r.error = next.error();
      return r;
    }
    if (!*next) {
      return r;
    }
    r.records.push_back(std::move(**next));
  }
}

class ExportLines : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { ASSERT_GE(sodium_init(), 0); }
};

TEST_F(ExportLines, ARecordReadsAsItsColumnsThenTheDerivedOnesWithNewSecrets) {
  auto user = RecordSample("user");
  user["email"] = "a@example.org";
  const ReadOutcome r = ReadExport(ExportText({user, RecordSample("like")}, 2));
  ASSERT_FALSE(r.error) << r.error->message;
  ASSERT_EQ(r.records.size(), 2u);

  const ImportRecord& u = r.records[0];
  EXPECT_EQ(u.type, FindRecordType("user"));
  EXPECT_EQ(u.line, 2);
  ASSERT_EQ(u.row.size(), u.type->columns.size() + 1);
  EXPECT_EQ(std::get<std::string>(u.row.back()), "ab");  // username_key: the username lowered
  for (size_t i = 0; i < u.type->columns.size(); ++i) {
    const Column& c = u.type->columns[i];
    SCOPED_TRACE(std::string(c.name));
    if (c.name == "unsubscribe_key") {
      // Not carried: a new one, as an account with an address has.
      EXPECT_EQ(std::get<std::string>(u.row[i]).size(), 43u);
    } else if (c.name == "password_hash") {
      EXPECT_EQ(std::get<std::string>(u.row[i]), "");  // no password: signs in another way
    } else if (c.secret) {
      EXPECT_TRUE(std::holds_alternative<std::nullptr_t>(u.row[i]));
    }
  }

  const ImportRecord& like = r.records[1];
  ASSERT_EQ(like.row.size(), like.type->columns.size() + 2);
  EXPECT_EQ(std::get<int64_t>(like.row[like.row.size() - 2]), 1);  // valid
  EXPECT_EQ(std::get<int64_t>(like.row.back()), 0);                // seq
}

TEST_F(ExportLines, WhatTheWriterWritesTheReaderReadsBack) {
  auto comment = RecordSample("comment");
  comment["parent_id"] = nullptr;
  comment["body"] = "two\nlines \"quoted\" ünïcode";
  const ReadOutcome first =
      ReadExport(ExportText({RecordSample("user"), RecordSample("article"), comment}, 3));
  ASSERT_FALSE(first.error) << first.error->message;

  std::vector<json::object> again;
  for (const ImportRecord& r : first.records) {
    again.push_back(EncodeRecord(*r.type, r.row, /*with_secrets=*/true));
  }
  const ReadOutcome second = ReadExport(ExportText(again, 3));
  ASSERT_FALSE(second.error) << second.error->message;
  ASSERT_EQ(second.records.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(second.records[i].row, first.records[i].row) << i;
  }
  // Without secrets, the writer leaves them out.
  EXPECT_EQ(EncodeRecord(*first.records[0].type, first.records[0].row, false)
                .if_contains("password_hash"),
            nullptr);
}

TEST_F(ExportLines, TheFirstBadLineIsNamedAndNothingAfterItIsRead) {
  struct Case {
    std::string name;
    std::string text;
    std::string message;
  };
  auto wrong_kind = RecordSample("article");
  wrong_kind["pinned"] = "yes";
  auto unknown = RecordSample("page");
  unknown["colour"] = "red";
  const std::vector<Case> cases{
      {"empty", "", "line 1: an empty file"},
      {"cut short", ExportText({RecordSample("user")}, 1).substr(0, 10),
       "line 1: not a JSON object"},
      {"no end",
       json::serialize(HeaderRecord()) + "\n" + json::serialize(RecordSample("user")) + "\n",
       "line 2: the file ends without its end record"},
      {"wrong count", ExportText({RecordSample("user")}, 2),
       "line 3: the end record does not count the 1"},
      // A bad line then another: the first is named, and the reader stops on it.
      {"wrong kind", ExportText({wrong_kind, unknown}, 2),
       "line 2: \"pinned\" of an article record must be an integer"},
      {"unknown field", ExportText({unknown}, 1),
       "line 2: unknown field \"colour\" in a page record"},
      {"out of order", ExportText({RecordSample("article"), RecordSample("user")}, 2),
       "line 3: a user record after the article records"},
      {"after the end", ExportText({}, 0) + "{}\n", "line 3: after the end record"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const ReadOutcome r = ReadExport(c.text);
    ASSERT_TRUE(r.error);
    EXPECT_EQ(r.error->code, ErrorCode::kInvalidArgument);
    EXPECT_EQ(r.error->message.rfind(c.message, 0), 0u) << r.error->message;
    // It stopped on the line it named (an empty file has none).
    EXPECT_EQ("line " + std::to_string(std::max<int64_t>(r.line, 1)) + ":",
              c.message.substr(0, c.message.find(':') + 1));
  }
  // Blank lines after the end are an editor's, not an error.
  EXPECT_FALSE(ReadExport(ExportText({}, 0) + "\n \r\n").error);
}

}  // namespace
}  // namespace plaudit::transfer
