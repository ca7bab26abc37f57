// API.md "Search": GET /api/v1/search?q=&kind=&page=&size=|cursor= — published articles and
// posts matching q, best first, each the article list item plus "snippet" (domain/search.hpp).
// A costly read: each page ranks every match.
#include "domain/search.hpp"

#include "api/articles.hpp"
#include "api/handlers.hpp"
#include "api/paging.hpp"

namespace plaudit::api {

using http::Request;

namespace search {

HandlerResult Find(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  const std::optional<std::string> q = req.Query("q");
  if (!q) {
    co_return Fail(ErrorCode::kInvalidArgument, "q is required");
  }
  std::optional<domain::ArticleKind> kind;
  if (auto k = req.Query("kind"); k && !k->empty()) {
    kind = domain::ParseKind(*k);
    if (!kind || *kind == domain::ArticleKind::kPage) {
      co_return Fail(ErrorCode::kInvalidArgument, "kind must be article or post");
    }
  }
  PL_CO_TRY(auto paging, ParsePaging(req));
  PL_CO_TRY(auto found, co_await ctx.search->Search(caller.principal, *q, kind, paging));
  auto o = PageJson(found, paging, [](const domain::SearchResult& r) {
    boost::json::object item = ArticleJson(r.article);
    item["snippet"] = r.snippet;
    return item;
  });
  co_return http::JsonResponse(beast::http::status::ok, std::move(o));
}

}  // namespace search
}  // namespace plaudit::api
