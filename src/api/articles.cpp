#include "api/articles.hpp"

#include "api/bind.hpp"
#include "api/bodies.hpp"
#include "api/handlers.hpp"
#include "api/json_fields.hpp"
#include "api/paging.hpp"
#include "common/time.hpp"
#include "domain/comment_verdict.hpp"

namespace plaudit::api {

using http::JsonResponse;
using http::Request;
using http::Response;

boost::json::object ArticleJson(const domain::Article& a) {
  boost::json::object o(19);  // the fields below: no rehash while they are added
  o["id"] = a.id;
  o["kind"] = domain::KindName(a.kind);
  o["title"] = a.title;
  o["summary"] = a.summary;
  if (a.content) {
    o["content"] = *a.content;
  }
  o["status"] = domain::StatusName(a.status);
  o["pinned"] = a.pinned;
  o["allowComments"] = a.allow_comments;
  if (a.moderation.empty()) {
    o["moderation"] = nullptr;
  } else {
    o["moderation"] = a.moderation;
  }
  o["author"] = {
      {"id", a.author_id}, {"username", a.author_username}, {"displayName", a.author_display_name}};
  o["createdAt"] = FormatTimeMs(a.created_at_ms);
  o["updatedAt"] = FormatTimeMs(a.updated_at_ms);
  if (a.published_at_ms) {
    o["publishedAt"] = FormatTimeMs(*a.published_at_ms);
  } else {
    o["publishedAt"] = nullptr;
  }
  o["viewCount"] = a.view_count;
  o["likeCount"] = a.like_count;
  o["commentCount"] = a.comment_count;
  o["liked"] = a.liked;
  return o;
}

namespace articles {

// An article's own policy may be stricter than --moderation; only an admin may make it laxer
// (else any writer of a post could open their thread past a server-wide `all` or `first`).
Status MayChooseModeration(const ApiContext& ctx, const Caller& caller,
                           const domain::ArticleInput& in) {
  if (!in.moderation || in.moderation->empty() || caller.Is(domain::Role::kAdmin)) {
    return {};
  }
  const auto chosen = domain::ParsePolicy(*in.moderation);
  if (chosen && *chosen < ctx.comments->ServerPolicy()) {
    return Fail(ErrorCode::kPermissionDenied,
                "only an admin may set a laxer moderation than the server's");
  }
  return {};
}

Result<std::optional<domain::ArticleKind>> KindParam(const Request& req) {
  auto kind = req.Query("kind");
  if (!kind || kind->empty()) {
    return std::optional<domain::ArticleKind>{};
  }
  auto k = bodies::ArticleKindOf(*kind);
  if (!k) {
    return Fail(ErrorCode::kInvalidArgument, "kind must be article or post");
  }
  return k;
}

HandlerResult Create(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto in, bodies::Article(body, true));
  PL_CO_CHECK(MayChooseModeration(ctx, caller, in));
  PL_CO_TRY(auto a, co_await ctx.articles->Create(*caller.principal, std::move(in)));
  co_return JsonResponse(beast::http::status::created, ArticleJson(a));
}

HandlerResult Get(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  PL_CO_TRY(const int64_t id, req.IdParam("id"));
  const bool count_view = req.raw.method() != beast::http::verb::head;  // a probe is no reader
  PL_CO_TRY(auto a, co_await ctx.articles->Read(caller.principal, id, count_view));
  co_return JsonResponse(beast::http::status::ok, ArticleJson(a));
}

HandlerResult Patch(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(const int64_t id, req.IdParam("id"));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto in, bodies::Article(body, false));
  PL_CO_CHECK(MayChooseModeration(ctx, caller, in));
  PL_CO_TRY(auto a, co_await ctx.articles->UpdateAndRead(*caller.principal, id, std::move(in)));
  co_return JsonResponse(beast::http::status::ok, ArticleJson(a));
}

HandlerResult Delete(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(const int64_t id, req.IdParam("id"));
  PL_CO_CHECK(co_await ctx.articles->Delete(*caller.principal, id));
  co_return http::NoContent();
}

Result<domain::ArticleService::ListFilter> StatusParam(const Request& req) {
  using Filter = domain::ArticleService::ListFilter;
  const std::optional<std::string> status = req.Query("status");
  if (!status || *status == "published") {
    return Filter::kPublished;
  }
  if (*status == "draft") {
    return Filter::kDrafts;
  }
  if (*status == "all") {
    return Filter::kAll;
  }
  return Fail(ErrorCode::kInvalidArgument, "status must be published, draft or all");
}

HandlerResult List(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  PL_CO_TRY(auto paging, ParsePaging(req));
  PL_CO_TRY(auto kind, KindParam(req));
  PL_CO_TRY(auto filter, StatusParam(req));
  if (filter == domain::ArticleService::ListFilter::kPublished) {
    co_return co_await ctx.render->ArticleList(req, caller.principal, kind, paging);
  }
  PL_CO_TRY(auto page, co_await ctx.articles->List(caller.principal, filter, kind, paging));
  co_return ctx.render->PrivateArticleList(req, page, paging);
}

HandlerResult Changes(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  PL_CO_TRY(const int64_t limit, IntParam(req, "limit", 100, 1, 1000));
  std::optional<std::string> after = req.Query("after");
  std::string after_cursor = after ? *after : "";
  PL_CO_TRY(auto page, co_await ctx.articles->Changes(*caller.principal, after_cursor, limit));
  boost::json::array items;
  for (const auto& ev : page.items) {
    items.push_back({{"cursor", ev.cursor},
                     {"articleId", ev.article_id},
                     {"op", ev.op},
                     {"at", FormatTimeMs(ev.at_ms)}});
  }
  co_return JsonResponse(beast::http::status::ok,
                         {{"items", std::move(items)}, {"nextCursor", page.next_cursor}});
}

}  // namespace articles

}  // namespace plaudit::api
