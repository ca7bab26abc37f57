#pragma once
// Article lists as JSON text (json_text.hpp says why text): the bytes api::ArticleJson's
// boost::json objects say, with the place of each "liked" value recorded for a signed-in
// reader's copy (page_cache.hpp, LikedSlots).
#include <string>

#include "domain/article.hpp"
#include "render/page_cache.hpp"

namespace plaudit::render {

// api::ArticleJson's JSON as text appended to `out` (the list's hot path).
// `liked_slots`: where each article's "liked" went.
void AppendArticleJson(std::string& out, const domain::Article& a,
                       LikedSlots* liked_slots = nullptr);
// api::PageJson(page, req, api::ArticleJson) as text.
std::string ArticlePageText(const domain::PageResult<domain::Article>& page,
                            const domain::PageRequest& req, LikedSlots* liked_slots = nullptr);

}  // namespace plaudit::render
