// API.md "Embedding on other sites": /api/v1/pages... — a page's thread by its URL. Each
// handler checks the URL (400: not an absolute http(s) URL or too long; 403: its site is not
// in --sites) and makes one PageService call; the thread is an article, so its comments and
// likes answer exactly as the article routes' do.
#include "api/comments.hpp"
#include "api/handlers.hpp"
#include "api/json_fields.hpp"

namespace plaudit::api {

using http::JsonResponse;
using http::Request;
using http::Response;

namespace {

// The page named by the `url` query parameter.
Result<PageUrl> PageParam(ApiContext ctx, const Request& req) {
  std::optional<std::string> url = req.Query("url");
  if (!url || url->empty()) {
    return Fail(ErrorCode::kInvalidArgument, "url is required");
  }
  return ctx.pages->Page(*url);
}

boost::json::object CountsJson(const domain::PageCounts& c) {
  boost::json::object o;
  if (c.url.empty()) {
    o["url"] = nullptr;
  } else {
    o["url"] = c.url;
  }
  if (c.article_id) {
    o["articleId"] = *c.article_id;
  } else {
    o["articleId"] = nullptr;
  }
  o["commentCount"] = c.comment_count;
  o["likeCount"] = c.like_count;
  o["viewCount"] = c.view_count;
  o["liked"] = c.liked;
  return o;
}

}  // namespace

namespace pages {

HandlerResult Get(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  PL_CO_TRY(auto page, PageParam(ctx, req));
  const bool count_view = req.raw.method() != beast::http::verb::head;  // a probe is no reader
  PL_CO_TRY(auto counts, co_await ctx.pages->Read(caller.principal, page, count_view));
  co_return JsonResponse(beast::http::status::ok, CountsJson(counts));
}

HandlerResult ListComments(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  PL_CO_TRY(auto page, PageParam(ctx, req));
  PL_CO_TRY(auto q, comments::ParseListQuery(req));
  // The thread's list as GET /articles/{id}/comments answers it (through the page cache).
  std::optional<Response> out;
  std::function<Awaitable<Status>(int64_t)> read = [&](int64_t id) -> Awaitable<Status> {
    PL_CO_TRY(out, co_await ctx.render->CommentPage(req, caller.principal, id, q));
    co_return Status{};
  };
  PL_CO_TRY(const bool found, co_await ctx.pages->OnThread(page, std::move(read)));
  if (!found) {
    co_return render::Renderer::EmptyCommentPage(q.paging);
  }
  co_return std::move(*out);
}

HandlerResult AddComment(ApiContext ctx, Request& req) {
  // A guest's post (no Authorization, a "guest" object) as POST /articles/{id}/comments takes
  // it; otherwise a session is required before the body is read.
  std::optional<domain::GuestName> guest;
  Caller caller;
  boost::json::object body;
  // A body that is no JSON object is no guest's post: the session is asked for first (401).
  if (req.Header(beast::http::field::authorization).empty()) {
    if (auto parsed = req.JsonBody(); parsed && parsed->contains("guest")) {
      body = std::move(*parsed);
      PL_CO_TRY(guest, comments::ParseGuest(body));
    }
  }
  if (guest) {
    PL_CO_TRY(caller, co_await ctx.guard->Admit(req, Access::kCostly));
    if (caller.authenticated()) {
      co_return Fail(ErrorCode::kInvalidArgument, "signed in: post without \"guest\"");
    }
  } else {
    PL_CO_TRY(caller, co_await ctx.guard->Admit(req, Access::kWrite));
    PL_CO_TRY(body, req.JsonBody());
  }
  PL_CO_TRY(auto page, PageParam(ctx, req));
  // The title is the thread's, read only when this comment creates it; the rest is a
  // comment's body as POST /articles/{id}/comments takes it.
  PL_CO_TRY(auto title, OptionalString(body, "title"));
  body.erase("title");
  PL_CO_TRY(auto in, comments::ParseCreate(body));
  const domain::Principal nobody;
  const domain::PageWriter writer{caller.principal ? *caller.principal : nobody, caller.address,
                                  guest ? &*guest : nullptr};
  PL_CO_TRY(auto posted,
            co_await ctx.pages->AddComment(writer, page, std::move(in), std::move(title)));
  co_return comments::PostedResponse(posted);
}

HandlerResult SetLike(ApiContext ctx, Request& req, bool like) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(auto page, PageParam(ctx, req));
  const domain::PageWriter writer{*caller.principal, caller.address};
  PL_CO_TRY(auto state, co_await ctx.pages->SetLike(writer, page, like));
  co_return likes::StateJson(state);
}

HandlerResult Like(ApiContext ctx, Request& req) { co_return co_await SetLike(ctx, req, true); }
HandlerResult Unlike(ApiContext ctx, Request& req) { co_return co_await SetLike(ctx, req, false); }

// GET /api/v1/pages/counts?url=U1&url=U2&article=7,8: keyed by each URL as sent (and each
// article id in decimal).
HandlerResult Counts(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  std::vector<std::string> urls = req.QueryAll("url");
  std::vector<int64_t> article_ids;
  for (const std::string& raw : req.QueryAll("article")) {
    PL_CO_TRY(auto ids, likes::ParseIds(raw, "article"));
    article_ids.insert(article_ids.end(), ids.begin(), ids.end());
  }
  if (urls.empty() && article_ids.empty()) {
    co_return Fail(ErrorCode::kInvalidArgument, "url is required");
  }
  if (urls.size() + article_ids.size() > domain::kMaxPageCounts) {
    co_return Fail(ErrorCode::kInvalidArgument, "at most 100 urls and article ids in all");
  }
  std::vector<PageUrl> pages;
  pages.reserve(urls.size());
  for (const std::string& url : urls) {
    if (url.empty()) {
      co_return Fail(ErrorCode::kInvalidArgument, "url must not be empty");
    }
    PL_CO_TRY(auto page, ctx.pages->Page(url));
    pages.push_back(std::move(page));
  }
  PL_CO_TRY(auto counts, co_await ctx.pages->Counts(caller.principal, pages, article_ids));
  boost::json::object items;
  for (size_t i = 0; i < urls.size(); ++i) {
    items[urls[i]] = CountsJson(counts[i]);
  }
  for (size_t j = 0; j < article_ids.size(); ++j) {
    items[std::to_string(article_ids[j])] = CountsJson(counts[urls.size() + j]);
  }
  co_return JsonResponse(beast::http::status::ok, {{"items", std::move(items)}});
}

}  // namespace pages

}  // namespace plaudit::api
