#include "sql/dialect.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace plaudit::sql {

Result<Rows> InsertOrNothing(Connection& tx, std::string_view sql,
                             const std::vector<Value>& params) {
  if (tx.dialect() != Dialect::kMysql) {
    return tx.Query(sql, params);
  }
  const size_t clause = sql.find(" ON CONFLICT");
  if (clause == std::string_view::npos) {
    return Fail(ErrorCode::kInternal, "InsertOrNothing: no ON CONFLICT clause");
  }
  auto r = tx.Query(sql.substr(0, clause), params);
  if (!r && r.error().code == ErrorCode::kAlreadyExists) {
    return Rows{};
  }
  return r;
}

Status SetMeta(Connection& tx, std::string_view key, std::string value) {
  constexpr std::string_view kSet =
      "INSERT INTO plaudit_meta (\"key\", value) VALUES ($1, $2) "
      "ON CONFLICT (\"key\") DO UPDATE SET value = excluded.value";
  constexpr std::string_view kSetMysql =
      "INSERT INTO plaudit_meta (\"key\", value) VALUES ($1, $2) "
      "ON DUPLICATE KEY UPDATE value = VALUES(value)";
  PL_CHECK(tx.Query(tx.dialect() == Dialect::kMysql ? kSetMysql : kSet,
                    {std::string(key), std::move(value)}));
  return {};
}

Result<int64_t> DeleteLikesOf(Connection& tx, char type, const std::vector<int64_t>& ids) {
  constexpr size_t kPiece = 512;
  int64_t deleted = 0;
  for (size_t start = 0; start < ids.size(); start += kPiece) {
    const std::vector<int64_t> piece(
        ids.begin() + static_cast<std::ptrdiff_t>(start),
        ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), start + kPiece)));
    std::vector<Value> params{std::string(1, type)};
    PL_TRY(auto r, tx.Query("DELETE FROM likes WHERE target_type = $1 AND target_id IN " +
                                InList(piece, params),
                            params));
    deleted += r.affected;
  }
  return deleted;
}

Result<int64_t> LastInsertId(Connection& tx) {
  PL_TRY(auto r, tx.Query("SELECT LAST_INSERT_ID()"));
  if (r.rows.empty() || IsNull(r.rows[0][0])) {
    return Fail(ErrorCode::kInternal, "LAST_INSERT_ID() answered nothing");
  }
  return Int(r.rows[0][0]);
}

}  // namespace plaudit::sql
