#pragma once
// The pages of the moderation queue, the moderation log and the user list go by keyset: each
// reads size + 1 rows after the cursor, the extra one only saying that another page follows,
// and the next page's cursor is the id of this page's last row.
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace plaudit::api {

// Drops the look-ahead row of `rows` (read as size + 1) and answers the page's "nextCursor":
// `id_of` its last row when another page follows, else null.
template <class Row, class IdOf>
boost::json::value TrimToPage(std::vector<Row>& rows, int64_t size, IdOf id_of) {
  const bool more = rows.size() > static_cast<size_t>(size);
  if (more) {
    rows.pop_back();
  }
  boost::json::value next = nullptr;
  if (more && !rows.empty()) {
    next = std::to_string(id_of(rows.back()));
  }
  return next;
}

}  // namespace plaudit::api
