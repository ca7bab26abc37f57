#pragma once
// A page of items as JSON text: the text form of api::PageJson (api/paging.hpp), which the
// cached pages and lists are written with (json_text.hpp says why text).
#include <string>

#include "domain/article.hpp"
#include "render/json_text.hpp"

namespace plaudit::render {

// {"items": [...], "page": P|null, "size": S, "total": N, "nextCursor": C|null}, with
// `append(out, item)` writing each item's JSON.
template <class T, class Append>
std::string PageText(const domain::PageResult<T>& page, const domain::PageRequest& req,
                     Append append, size_t bytes_per_item = 512) {
  namespace j = json_text;
  std::string out;
  out.reserve(128 + bytes_per_item * page.items.size());
  out.push_back('{');
  j::Key(out, "items");
  j::Array(out, page.items, append);
  out.push_back(','), j::Key(out, "page");
  if (req.cursor) {
    j::Null(out);
  } else {
    j::Int(out, req.page);
  }
  out.push_back(','), j::Key(out, "size"), j::Int(out, req.size);
  out.push_back(','), j::Key(out, "total"), j::Int(out, page.total);
  out.push_back(','), j::Key(out, "nextCursor");
  if (page.next_cursor) {
    j::String(out, *page.next_cursor);
  } else {
    j::Null(out);
  }
  out.push_back('}');
  return out;
}

}  // namespace plaudit::render
