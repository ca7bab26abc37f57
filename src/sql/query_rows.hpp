#pragma once
// Connection's readers (QueryRows, QueryRow, QueryInts, QueryInt), included at the end of
// store.hpp: the steps every query repeated after Query() (hand its error up as it is, then
// turn its rows into values) in one place, so a query states only its text and its row reader.
#include <optional>
#include <vector>

namespace plaudit::sql {

template <class Read>
Result<std::vector<RowValue<Read>>> Connection::QueryRows(std::string_view sql,
                                                          const std::vector<Value>& params,
                                                          Read read) {
  PL_TRY(auto r, Query(sql, params));
  std::vector<RowValue<Read>> out;
  out.reserve(r.rows.size());
  for (const Row& row : r.rows) {
    out.push_back(read(row));
  }
  return out;
}

template <class Read>
Result<std::optional<RowValue<Read>>> Connection::QueryRow(std::string_view sql,
                                                           const std::vector<Value>& params,
                                                           Read read) {
  PL_TRY(auto r, Query(sql, params));
  if (r.rows.empty()) {
    return std::optional<RowValue<Read>>{};
  }
  return std::optional<RowValue<Read>>(read(r.rows[0]));
}

inline Result<std::vector<int64_t>> Connection::QueryInts(std::string_view sql,
                                                          const std::vector<Value>& params) {
  return QueryRows(sql, params, [](const Row& row) { return Int(row[0]); });
}

inline Result<std::optional<int64_t>> Connection::QueryInt(std::string_view sql,
                                                           const std::vector<Value>& params) {
  PL_TRY(auto r, Query(sql, params));
  if (r.rows.empty() || r.rows[0].empty()) {
    return std::optional<int64_t>{};
  }
  return std::optional<int64_t>(Int(r.rows[0][0]));
}

}  // namespace plaudit::sql
