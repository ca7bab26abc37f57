// MySQL/MariaDB only: the schema the migrations leave is InnoDB, utf8mb4 with a byte-for-byte
// collation in every text column (a page URL and an outbox event id: ASCII, byte for byte),
// and every text column round-trips emoji and CJK as the other two dialects do.
#include <gtest/gtest.h>

#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

using namespace std::string_literals;

class MysqlSchema : public MigratedStoreTest {};

TEST_P(MysqlSchema, EveryTableIsInnodbAndEveryTextColumnUtf8mb4Binary) {
  auto tables = Query(*store_,
                      "SELECT table_name, engine FROM information_schema.tables "
                      "WHERE table_schema = DATABASE()");
  ASSERT_TRUE(tables) << tables.error().message;
  ASSERT_GT(tables->rows.size(), 15u);
  for (const auto& row : tables->rows) {
    EXPECT_EQ(Text(row[1]), "InnoDB") << Text(row[0]);
  }
  auto columns = Query(*store_,
                       "SELECT table_name, column_name, character_set_name, collation_name "
                       "FROM information_schema.columns WHERE table_schema = DATABASE() "
                       "AND character_set_name IS NOT NULL");
  ASSERT_TRUE(columns) << columns.error().message;
  ASSERT_GT(columns->rows.size(), 40u);
  for (const auto& row : columns->rows) {
    const std::string where = Text(row[0]) + "." + Text(row[1]);
    // ASCII by construction (import_key: a system's name and a SHA-256 in hex).
    if (where == "pages.url" || where == "outbox.event_id" ||
        where == "imported_comments.import_key") {
      EXPECT_EQ(Text(row[3]), "ascii_bin") << where;
      continue;
    }
    EXPECT_EQ(Text(row[2]), "utf8mb4") << where;
    EXPECT_EQ(Text(row[3]), "utf8mb4_nopad_bin") << where;
  }
}

// Each text column of each table takes and gives back a 4-byte emoji, CJK and a trailing space
// exactly ('a' and 'a ' are two values, as on PostgreSQL).
TEST_P(MysqlSchema, EveryTextColumnRoundTripsEmojiCjkAndTrailingSpaces) {
  auto columns = Query(*store_,
                       "SELECT table_name, column_name, character_maximum_length "
                       "FROM information_schema.columns WHERE table_schema = DATABASE() "
                       "AND character_set_name = 'utf8mb4' AND table_name <> 'schema_migrations'");
  ASSERT_TRUE(columns) << columns.error().message;
  const std::string value = "評論 😀 ok ";  // CJK, an emoji beyond the BMP, a trailing space
  // One job: a temporary table belongs to its session (one pool connection).
  auto checked = RunSync(store_->Run<int64_t>([&](Connection& c) -> Result<int64_t> {
    int64_t n = 0;
    for (const auto& row : columns->rows) {
      const std::string where = Text(row[0]) + "." + Text(row[1]);
      if (Int(row[2]) < static_cast<int64_t>(value.size())) {
        continue;  // e.g. CHAR(1)
      }
      // A scratch copy of the column's type, without the real table's constraints.
      auto made = c.Query("CREATE TEMPORARY TABLE scratch AS SELECT \"" + Text(row[1]) +
                          "\" AS v FROM \"" + Text(row[0]) + "\" WHERE 1 = 0");
      if (!made) {
        return Fail(ErrorCode::kInternal, where + ": " + made.error().message);
      }
      auto put = c.Query("INSERT INTO scratch (v) VALUES ($1)", {value});
      if (!put) {
        return Fail(ErrorCode::kInternal, where + ": " + put.error().message);
      }
      auto got = c.Query("SELECT v FROM scratch WHERE v = $1", {value});
      if (!got) {
        return tl::unexpected(got.error());
      }
      EXPECT_EQ(got->rows.size(), 1u) << where;
      if (got->rows.size() == 1) {
        EXPECT_EQ(Text(got->rows[0][0]), value) << where;
      }
      auto trimmed =
          c.Query("SELECT COUNT(*) FROM scratch WHERE v = $1", {value.substr(0, value.size() - 1)});
      if (!trimmed) {
        return tl::unexpected(trimmed.error());
      }
      EXPECT_EQ(Int(trimmed->rows[0][0]), 0) << where << " pads with spaces";
      if (auto dropped = c.Query("DROP TEMPORARY TABLE scratch"); !dropped) {
        return tl::unexpected(dropped.error());
      }
      ++n;
    }
    return n;
  }));
  ASSERT_TRUE(checked) << checked.error().message;
  EXPECT_GT(*checked, 40);
}

INSTANTIATE_TEST_SUITE_P(Dialects, MysqlSchema, ::testing::Values(Dialect::kMysql), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
