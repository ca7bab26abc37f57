// Connection::Query / Transaction semantics, identical on both dialects.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "sql_test_util.hpp"

namespace plaudit::sql::test {
namespace {

using namespace std::string_literals;

class StoreQuery : public SqlTest {};

constexpr std::string_view kInsert = "INSERT INTO t (id, n, s, r) VALUES ($1, $2, $3, $4)";
constexpr std::string_view kSelect = "SELECT n, s, r FROM t WHERE id = $1";

TEST_P(StoreQuery, RoundTripsInt64TextRealAndNull) {
  auto store = OpenWithTable();
  ASSERT_TRUE(store);
  const int64_t big = int64_t{1} << 62;
  const std::string tricky = "it's \"quoted\" \\ back\\slash; 100% _ héllo — 世界 🎉\n\ttab";
  struct Case {
    int64_t id;
    Value n, s, r;
  };
  const Case cases[] = {
      {1, big, tricky, 0.1},
      {2, -big, ""s, -2.5e300},
      {3, std::numeric_limits<int64_t>::max(), "x"s, 0.0},
      {4, std::numeric_limits<int64_t>::min(), nullptr, nullptr},
      {5, nullptr, nullptr, nullptr},
  };
  for (const auto& c : cases) {
    auto inserted = Query(*store, std::string(kInsert), {c.id, c.n, c.s, c.r});
    ASSERT_TRUE(inserted) << inserted.error().message;
    EXPECT_EQ(inserted->affected, 1);
  }
  for (const auto& c : cases) {
    auto rows = Query(*store, std::string(kSelect), {c.id});
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->rows.size(), 1u);
    EXPECT_EQ(rows->columns, (std::vector<std::string>{"n", "s", "r"}));
    const Row& row = rows->rows[0];
    EXPECT_EQ(IsNull(row[0]), IsNull(c.n)) << c.id;
    EXPECT_EQ(Int(row[0]), Int(c.n)) << c.id;
    EXPECT_EQ(IsNull(row[1]), IsNull(c.s)) << c.id;
    EXPECT_EQ(Text(row[1]), Text(c.s)) << c.id;
    EXPECT_EQ(IsNull(row[2]), IsNull(c.r)) << c.id;
    EXPECT_EQ(Real(row[2]), Real(c.r)) << c.id;
  }
}

TEST_P(StoreQuery, TextWithNulRoundTripsOnSqliteAndMysqlAndIsRejectedOnPostgres) {
  auto store = OpenWithTable();
  ASSERT_TRUE(store);
  const std::string with_nul("a\0b", 3);
  auto inserted = Query(*store, std::string(kInsert), {int64_t{1}, nullptr, with_nul, nullptr});
  if (GetParam() != Dialect::kPostgres) {
    ASSERT_TRUE(inserted) << inserted.error().message;
    auto rows = Query(*store, std::string(kSelect), {int64_t{1}});
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->rows.size(), 1u);
    EXPECT_EQ(Text(rows->rows[0][1]), with_nul);
  } else {
    // PostgreSQL text cannot hold NUL; it must not be silently truncated to "a" either.
    ASSERT_FALSE(inserted);
    EXPECT_EQ(inserted.error().code, ErrorCode::kInvalidArgument);
    auto rows = Query(*store, "SELECT COUNT(*) FROM t");
    ASSERT_TRUE(rows);
    EXPECT_EQ(Int(rows->rows[0][0]), 0);
  }
}

TEST_P(StoreQuery, BoundParametersAreStoredVerbatimNotExecuted) {
  auto store = OpenWithTable();
  ASSERT_TRUE(store);
  const std::string evil = "'); DROP TABLE t; --";
  ASSERT_TRUE(Query(*store, std::string(kInsert), {int64_t{1}, int64_t{0}, evil, nullptr}));
  auto rows = Query(*store, "SELECT s FROM t WHERE s = $1", {evil});
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(Text(rows->rows[0][0]), evil);
  // Placeholder-like text inside quotes and comments is not a placeholder.
  auto literal = Query(*store, "SELECT '$1' AS a, $1 AS b -- $2\n", {"x"s});
  ASSERT_TRUE(literal) << literal.error().message;
  EXPECT_EQ(Text(literal->rows[0][0]), "$1");
  EXPECT_EQ(Text(literal->rows[0][1]), "x");
}

TEST_P(StoreQuery, RepeatedPlaceholderBindsTheSameValue) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  auto rows = Query(*store, "SELECT $1 + 1, $2, $1 * 2", {int64_t{20}, "y"s});
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(Int(rows->rows[0][0]), 21);
  EXPECT_EQ(Text(rows->rows[0][1]), "y");
  EXPECT_EQ(Int(rows->rows[0][2]), 40);
}

TEST_P(StoreQuery, UniqueViolationIsAlreadyExists) {
  auto store = OpenWithTable();
  ASSERT_TRUE(store);
  ASSERT_TRUE(Query(*store, "CREATE UNIQUE INDEX t_s ON t (s)"));
  ASSERT_TRUE(Query(*store, std::string(kInsert), {int64_t{1}, int64_t{1}, "alice"s, nullptr}));
  auto same_key = Query(*store, std::string(kInsert), {int64_t{1}, int64_t{2}, "bob"s, nullptr});
  ASSERT_FALSE(same_key);
  EXPECT_EQ(same_key.error().code, ErrorCode::kAlreadyExists) << same_key.error().message;
  auto same_name = Query(*store, std::string(kInsert), {int64_t{2}, int64_t{2}, "alice"s, nullptr});
  ASSERT_FALSE(same_name);
  EXPECT_EQ(same_name.error().code, ErrorCode::kAlreadyExists) << same_name.error().message;
  // The message names the constraint, never the values.
  EXPECT_EQ(same_name.error().message.find("alice"), std::string::npos)
      << same_name.error().message;
}

TEST_P(StoreQuery, OtherConstraintViolationsAreInvalidArgument) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  ASSERT_TRUE(Query(*store, "CREATE TABLE parent (id INTEGER PRIMARY KEY)"));
  ASSERT_TRUE(Query(*store,
                    "CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL "
                    "REFERENCES parent (id), n INTEGER CHECK (n > 0))"));
  auto no_parent =
      Query(*store, "INSERT INTO child VALUES ($1, $2, $3)", {int64_t{1}, int64_t{99}, int64_t{1}});
  ASSERT_FALSE(no_parent);
  EXPECT_EQ(no_parent.error().code, ErrorCode::kInvalidArgument) << no_parent.error().message;
  auto null_parent =
      Query(*store, "INSERT INTO child VALUES ($1, $2, $3)", {int64_t{1}, nullptr, int64_t{1}});
  ASSERT_FALSE(null_parent);
  EXPECT_EQ(null_parent.error().code, ErrorCode::kInvalidArgument);
}

TEST_P(StoreQuery, BadSqlIsInternal) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  auto syntax = Query(*store, "SELEKT 1");
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().code, ErrorCode::kInternal);
  auto missing = Query(*store, "SELECT * FROM no_such_table");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kInternal);
  auto arity = Query(*store, "SELECT $1, $2", {int64_t{1}});
  ASSERT_FALSE(arity);
  EXPECT_EQ(arity.error().code, ErrorCode::kInternal);
  // The connection is still usable.
  EXPECT_TRUE(Query(*store, "SELECT 1"));
}

TEST_P(StoreQuery, AffectedCountsChangedRowsOnly) {
  auto store = OpenWithTable();
  ASSERT_TRUE(store);
  for (int64_t i = 1; i <= 3; ++i) {
    ASSERT_TRUE(Query(*store, std::string(kInsert), {i, i, "x"s, nullptr}));
  }
  auto updated = Query(*store, "UPDATE t SET n = n + 1 WHERE n >= $1", {int64_t{2}});
  ASSERT_TRUE(updated);
  EXPECT_EQ(updated->affected, 2);
  auto selected = Query(*store, "SELECT n FROM t ORDER BY id");
  ASSERT_TRUE(selected);
  EXPECT_EQ(selected->affected, 0);
  ASSERT_EQ(selected->rows.size(), 3u);
  EXPECT_EQ(Int(selected->rows[2][0]), 4);
  if (GetParam() == Dialect::kMysql) {
    return;  // MySQL has no RETURNING; Plaudit never asks it
  }
  auto returning = Query(*store, "DELETE FROM t WHERE id = $1 RETURNING id", {int64_t{1}});
  ASSERT_TRUE(returning) << returning.error().message;
  EXPECT_EQ(returning->affected, 1);
  ASSERT_EQ(returning->rows.size(), 1u);
  EXPECT_EQ(Int(returning->rows[0][0]), 1);
}

Result<int64_t> CountRows(Store& store) {
  auto rows = Query(store, "SELECT COUNT(*) FROM t");
  if (!rows) {
    return tl::unexpected(rows.error());
  }
  return Int(rows->rows[0][0]);
}

TEST_P(StoreQuery, TransactionCommitsOrRollsBackAsAWhole) {
  auto store = OpenWithTable();
  ASSERT_TRUE(store);
  auto insert_two_then = [](Status outcome) {
    return [outcome](Connection& conn) -> Result<bool> {
      Status st = conn.Transaction([&](Connection& tx) -> Status {
        for (int64_t id : {1, 2}) {
          auto r = tx.Query(kInsert, {id, id, "x"s, nullptr});
          if (!r) {
            return tl::unexpected(r.error());
          }
        }
        return outcome;
      });
      if (!st) {
        return tl::unexpected(st.error());
      }
      return true;
    };
  };
  auto failed = RunSync(
      store->Run<bool>(insert_two_then(Fail(ErrorCode::kInvalidArgument, "changed my mind"))));
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, ErrorCode::kInvalidArgument);  // fn's error, unchanged
  EXPECT_EQ(failed.error().message, "changed my mind");
  EXPECT_EQ(CountRows(*store).value_or(-1), 0);

  auto committed = RunSync(store->Run<bool>(insert_two_then(Status{})));
  ASSERT_TRUE(committed) << committed.error().message;
  EXPECT_EQ(CountRows(*store).value_or(-1), 2);
}

TEST_P(StoreQuery, NestedTransactionRollsBackOnlyItsOwnWork) {
  auto store = OpenWithTable();
  ASSERT_TRUE(store);
  auto result = RunSync(store->Run<bool>([](Connection& conn) -> Result<bool> {
    Status st = conn.Transaction([](Connection& tx) -> Status {
      if (auto r = tx.Query(kInsert, {int64_t{1}, int64_t{1}, "outer"s, nullptr}); !r) {
        return tl::unexpected(r.error());
      }
      Status inner = tx.Transaction([](Connection& tx2) -> Status {
        if (auto r = tx2.Query(kInsert, {int64_t{2}, int64_t{2}, "inner"s, nullptr}); !r) {
          return tl::unexpected(r.error());
        }
        return Fail(ErrorCode::kNotFound, "inner fails");
      });
      EXPECT_FALSE(inner);
      return {};
    });
    if (!st) {
      return tl::unexpected(st.error());
    }
    return true;
  }));
  ASSERT_TRUE(result) << result.error().message;
  auto rows = Query(*store, "SELECT s FROM t");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->rows.size(), 1u);
  EXPECT_EQ(Text(rows->rows[0][0]), "outer");
}

TEST_P(StoreQuery, ExceptionInsideTransactionRollsBackAndBecomesInternal) {
  auto store = OpenWithTable(/*pool_size=*/1);
  ASSERT_TRUE(store);
  auto result = RunSync(store->Run<bool>([](Connection& conn) -> Result<bool> {
    (void)conn.Transaction([](Connection& tx) -> Status {
      (void)tx.Query(kInsert, {int64_t{1}, int64_t{1}, "x"s, nullptr});
      throw std::runtime_error("boom");
    });
    return true;
  }));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kInternal);
  EXPECT_NE(result.error().message.find("boom"), std::string::npos);
  EXPECT_EQ(CountRows(*store).value_or(-1), 0);
}

TEST_P(StoreQuery, TransactionLeftOpenByAJobIsRolledBack) {
  auto store = OpenWithTable(/*pool_size=*/1);
  ASSERT_TRUE(store);
  auto result = RunSync(store->Run<bool>([](Connection& conn) -> Result<bool> {
    if (auto begin = conn.ExecScript("BEGIN"); !begin) {
      return tl::unexpected(begin.error());
    }
    if (auto r = conn.Query(kInsert, {int64_t{1}, int64_t{1}, "x"s, nullptr}); !r) {
      return tl::unexpected(r.error());
    }
    return true;  // no COMMIT
  }));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(CountRows(*store).value_or(-1), 0);
  // And the same connection can start a transaction again.
  auto again = RunSync(store->Run<bool>([](Connection& conn) -> Result<bool> {
    Status st = conn.Transaction([](Connection&) -> Status { return {}; });
    if (!st) {
      return tl::unexpected(st.error());
    }
    return true;
  }));
  EXPECT_TRUE(again) << again.error().message;
}

INSTANTIATE_TEST_SUITE_P(Dialects, StoreQuery, AllDialects(), DialectName);

}  // namespace
}  // namespace plaudit::sql::test
