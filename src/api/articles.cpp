#include "api/articles.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>

#include "api/bind.hpp"

#include "api/json_fields.hpp"
#include "api/json_text.hpp"
#include "api/paging.hpp"
#include "common/time.hpp"
#include "http/errors.hpp"

namespace plaudit::api {

using namespace boost::asio::experimental::awaitable_operators;
using http::ErrorResponse;
using http::JsonResponse;
using http::Request;
using http::Response;

boost::json::object ArticleJson(const domain::Article& a) {
  boost::json::object o(18);  // the fields below: no rehash while they are added
  o["id"] = a.id;
  o["kind"] = domain::KindName(a.kind);
  o["title"] = a.title;
  o["summary"] = a.summary;
  if (a.content) o["content"] = *a.content;
  o["status"] = domain::StatusName(a.status);
  o["pinned"] = a.pinned;
  o["allowComments"] = a.allow_comments;
  o["author"] = {{"id", a.author_id},
                 {"username", a.author_username},
                 {"displayName", a.author_display_name}};
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

void AppendArticleJson(std::string& out, const domain::Article& a) {
  namespace j = json_text;
  out.push_back('{');
  j::Key(out, "id"), j::Int(out, a.id);
  out.push_back(','), j::Key(out, "kind"), j::String(out, domain::KindName(a.kind));
  out.push_back(','), j::Key(out, "title"), j::String(out, a.title);
  out.push_back(','), j::Key(out, "summary"), j::String(out, a.summary);
  if (a.content) out.push_back(','), j::Key(out, "content"), j::String(out, *a.content);
  out.push_back(','), j::Key(out, "status"), j::String(out, domain::StatusName(a.status));
  out.push_back(','), j::Key(out, "pinned"), j::Bool(out, a.pinned);
  out.push_back(','), j::Key(out, "allowComments"), j::Bool(out, a.allow_comments);
  out.push_back(','), j::Key(out, "author");
  out.push_back('{');
  j::Key(out, "id"), j::Int(out, a.author_id);
  out.push_back(','), j::Key(out, "username"), j::String(out, a.author_username);
  out.push_back(','), j::Key(out, "displayName"), j::String(out, a.author_display_name);
  out.push_back('}');
  out.push_back(','), j::Key(out, "createdAt"), j::String(out, FormatTimeMs(a.created_at_ms));
  out.push_back(','), j::Key(out, "updatedAt"), j::String(out, FormatTimeMs(a.updated_at_ms));
  out.push_back(','), j::Key(out, "publishedAt");
  if (a.published_at_ms) {
    j::String(out, FormatTimeMs(*a.published_at_ms));
  } else {
    j::Null(out);
  }
  out.push_back(','), j::Key(out, "viewCount"), j::Int(out, a.view_count);
  out.push_back(','), j::Key(out, "likeCount"), j::Int(out, a.like_count);
  out.push_back(','), j::Key(out, "commentCount"), j::Int(out, a.comment_count);
  out.push_back(','), j::Key(out, "liked"), j::Bool(out, a.liked);
  out.push_back('}');
}

std::string ArticlePageText(const domain::PageResult<domain::Article>& page,
                            const domain::PageRequest& req) {
  return PageText(page, req, AppendArticleJson, 640);
}

namespace {

int64_t UserIdOf(const Caller& c) { return c.principal ? c.principal->id : 0; }

// Fills likeCount and liked from the like service (the live Redis counts).
Awaitable<Status> AddLikes(ApiContext ctx, const Caller& caller, domain::Article& a) {
  const redis::LikeTarget target{'a', a.id, a.id};
  auto s = co_await ctx.likes->Get(UserIdOf(caller), target);
  if (!s) co_return tl::unexpected(s.error());
  a.like_count = s->count;
  a.liked = s->liked;
  co_return Status{};
}

Awaitable<Status> AddLikes(ApiContext ctx, const Caller& caller,
                           std::vector<domain::Article>& items) {
  std::vector<redis::LikeTarget> targets;
  for (const auto& a : items) targets.push_back({'a', a.id, a.id});
  auto states = co_await ctx.likes->GetMany(UserIdOf(caller), std::move(targets));
  if (!states) co_return tl::unexpected(states.error());
  for (size_t i = 0; i < items.size(); ++i) {
    items[i].like_count = (*states)[i].count;
    items[i].liked = (*states)[i].liked;
  }
  co_return Status{};
}

// Parses a create/update body. Only these fields are accepted: anything else (notably
// authorId, author, id and the counters) is refused, so nothing a client sends about
// identity or server-owned state is ever obeyed.
Result<domain::ArticleInput> ParseInput(const boost::json::object& body, bool create) {
  static const std::vector<std::string_view> kCreateFields = {
      "title", "content", "kind", "status", "pinned", "allowComments"};
  for (const auto& field : body) {
    bool known = false;
    for (auto f : kCreateFields) known = known || field.key() == f;
    if (!known || (!create && field.key() == "kind")) {
      return Fail(ErrorCode::kInvalidArgument,
                  "field '" + std::string(field.key()) + "' cannot be set");
    }
  }
  domain::ArticleInput in;
  auto title = OptionalString(body, "title");
  if (!title) return tl::unexpected(title.error());
  in.title = std::move(*title);
  auto content = OptionalString(body, "content");
  if (!content) return tl::unexpected(content.error());
  in.content = std::move(*content);
  auto kind = OptionalString(body, "kind");
  if (!kind) return tl::unexpected(kind.error());
  if (*kind) {
    in.kind = domain::ParseKind(**kind);
    if (!in.kind) return Fail(ErrorCode::kInvalidArgument, "kind must be article or post");
  }
  auto status = OptionalString(body, "status");
  if (!status) return tl::unexpected(status.error());
  if (*status) {
    in.status = domain::ParseStatus(**status);
    if (!in.status) return Fail(ErrorCode::kInvalidArgument, "status must be draft or published");
  }
  auto pinned = OptionalBool(body, "pinned");
  if (!pinned) return tl::unexpected(pinned.error());
  in.pinned = *pinned;
  auto allow = OptionalBool(body, "allowComments");
  if (!allow) return tl::unexpected(allow.error());
  in.allow_comments = *allow;
  return in;
}

Result<std::optional<domain::ArticleKind>> KindParam(const Request& req) {
  auto kind = req.Query("kind");
  if (!kind || kind->empty()) return std::optional<domain::ArticleKind>{};
  auto k = domain::ParseKind(*kind);
  if (!k) return Fail(ErrorCode::kInvalidArgument, "kind must be article or post");
  return std::optional<domain::ArticleKind>(*k);
}

Awaitable<Response> Create(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kWrite);
  if (!caller) co_return ErrorResponse(caller.error());
  auto body = req.JsonBody();
  if (!body) co_return ErrorResponse(body.error());
  auto in = ParseInput(*body, true);
  if (!in) co_return ErrorResponse(in.error());
  auto a = co_await ctx.articles->Create(*caller->principal, std::move(*in));
  if (!a) co_return ErrorResponse(a.error());
  co_return JsonResponse(beast::http::status::created, ArticleJson(*a));
}

Awaitable<Response> Get(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kPublic);
  if (!caller) co_return ErrorResponse(caller.error());
  auto id = req.IdParam("id");
  if (!id) co_return ErrorResponse(id.error());
  // The article and its like state are read together (one round trip when both are
  // cached); the like state of an article the caller may not see is dropped unread.
  const redis::LikeTarget target{'a', *id, *id};
  auto article_op = ctx.articles->Get(caller->principal, *id, /*count_view=*/true);
  auto likes_op = ctx.likes->Get(UserIdOf(*caller), target);
  auto both = co_await (std::move(article_op) && std::move(likes_op));
  auto& a = std::get<0>(both);
  auto& s = std::get<1>(both);
  if (!a) co_return ErrorResponse(a.error());
  if (!s) co_return ErrorResponse(s.error());
  a->like_count = s->count;
  a->liked = s->liked;
  co_return JsonResponse(beast::http::status::ok, ArticleJson(*a));
}

Awaitable<Response> Patch(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kWrite);
  if (!caller) co_return ErrorResponse(caller.error());
  auto id = req.IdParam("id");
  if (!id) co_return ErrorResponse(id.error());
  auto body = req.JsonBody();
  if (!body) co_return ErrorResponse(body.error());
  auto in = ParseInput(*body, false);
  if (!in) co_return ErrorResponse(in.error());
  auto a = co_await ctx.articles->Update(*caller->principal, *id, std::move(*in));
  if (!a) co_return ErrorResponse(a.error());
  if (auto st = co_await AddLikes(ctx, *caller, *a); !st) co_return ErrorResponse(st.error());
  co_return JsonResponse(beast::http::status::ok, ArticleJson(*a));
}

Awaitable<Response> Delete(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kWrite);
  if (!caller) co_return ErrorResponse(caller.error());
  auto id = req.IdParam("id");
  if (!id) co_return ErrorResponse(id.error());
  if (auto st = co_await ctx.articles->Delete(*caller->principal, *id); !st) {
    co_return ErrorResponse(st.error());
  }
  co_return http::NoContent();
}

Awaitable<Response> List(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kPublic);
  if (!caller) co_return ErrorResponse(caller.error());
  auto paging = ParsePaging(req);
  if (!paging) co_return ErrorResponse(paging.error());
  auto kind = KindParam(req);
  if (!kind) co_return ErrorResponse(kind.error());
  // Named optional first: GCC 12 garbles `temporary.value_or(...)` inside a coroutine.
  std::optional<std::string> status_param = req.Query("status");
  std::string status = status_param ? *status_param : "published";
  Result<domain::PageResult<domain::Article>> page = domain::PageResult<domain::Article>{};
  if (status == "published") {
    page = co_await ctx.articles->ListPublished(*kind, *paging);
  } else if (status == "draft" || status == "all") {
    if (!caller->principal) {
      co_return ErrorResponse(Error{ErrorCode::kUnauthenticated, "sign in to list your own"});
    }
    page = co_await ctx.articles->ListOwn(*caller->principal, status == "draft", *kind, *paging);
  } else {
    co_return ErrorResponse(
        Error{ErrorCode::kInvalidArgument, "status must be published, draft or all"});
  }
  if (!page) co_return ErrorResponse(page.error());
  if (auto st = co_await AddLikes(ctx, *caller, page->items); !st) {
    co_return ErrorResponse(st.error());
  }
  // Written as text (ArticlePageText): the boost::json objects of a 20-article page cost
  // ~40% of a list request's instructions to build, serialise and destroy (callgrind).
  Response r;
  r.body = ArticlePageText(*page, *paging);
  co_return r;
}

Awaitable<Response> Changes(ApiContext ctx, Request& req) {
  auto caller = co_await ctx.guard->Admit(req, Access::kAuthenticated);
  if (!caller) co_return ErrorResponse(caller.error());
  auto limit = IntParam(req, "limit", 100, 1, 1000);
  if (!limit) co_return ErrorResponse(limit.error());
  std::optional<std::string> after = req.Query("after");
  std::string after_cursor = after ? *after : "";
  auto page = co_await ctx.articles->Changes(*caller->principal, after_cursor, *limit);
  if (!page) co_return ErrorResponse(page.error());
  boost::json::array items;
  for (const auto& ev : page->items) {
    items.push_back({{"cursor", ev.cursor},
                     {"articleId", ev.article_id},
                     {"op", ev.op},
                     {"at", FormatTimeMs(ev.at_ms)}});
  }
  co_return JsonResponse(beast::http::status::ok,
                         {{"items", std::move(items)}, {"nextCursor", page->next_cursor}});
}

}  // namespace

void RegisterArticles(http::Router& router, ApiContext ctx) {
  router.Add(beast::http::verb::post, "/api/v1/articles", Bind<Create>(ctx));
  router.Add(beast::http::verb::get, "/api/v1/articles", Bind<List>(ctx));
  router.Add(beast::http::verb::get, "/api/v1/articles/{id}", Bind<Get>(ctx));
  router.Add(beast::http::verb::patch, "/api/v1/articles/{id}", Bind<Patch>(ctx));
  router.Add(beast::http::verb::delete_, "/api/v1/articles/{id}", Bind<Delete>(ctx));
  router.Add(beast::http::verb::get, "/api/v1/changes", Bind<Changes>(ctx));
}

}  // namespace plaudit::api
