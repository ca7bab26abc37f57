#pragma once
// API.md paging parameters: page (1-based), size (1–100, default 20), or cursor.
#include <string>

#include "common/result.hpp"
#include "domain/article.hpp"
#include "http/request.hpp"

namespace plaudit::api {

Result<domain::PageRequest> ParsePaging(const http::Request& req, int64_t default_size = 20,
                                        int64_t max_size = 100);
// A non-negative integer query parameter within [min, max], or `fallback` when absent.
Result<int64_t> IntParam(const http::Request& req, std::string_view name, int64_t fallback,
                         int64_t min, int64_t max);

// {"items": [...], "page": P|null, "size": S, "total": N, "nextCursor": C|null}. The hot pages
// write the same as text (render/page_text.hpp).
template <class T, class ToJson>
boost::json::object PageJson(const domain::PageResult<T>& page, const domain::PageRequest& req,
                             ToJson to_json) {
  boost::json::array items;
  for (const auto& item : page.items) {
    items.push_back(to_json(item));
  }
  boost::json::object o;
  o["items"] = std::move(items);
  if (req.cursor) {
    o["page"] = nullptr;
  } else {
    o["page"] = req.page;
  }
  o["size"] = req.size;
  o["total"] = page.total;
  if (page.next_cursor) {
    o["nextCursor"] = *page.next_cursor;
  } else {
    o["nextCursor"] = nullptr;
  }
  return o;
}

}  // namespace plaudit::api
