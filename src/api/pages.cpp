// API.md "Embedding on other sites": /api/v1/pages... — a page's thread by its URL. Each
// handler checks the URL (400: not an absolute http(s) URL or too long; 403: its site is not
// in --sites) and makes one PageService call; the thread is an article, so its comments and
// likes answer exactly as the article routes' do.
#include <unordered_set>

#include "api/bodies.hpp"
#include "api/comments.hpp"
#include "api/handlers.hpp"
#include "api/json_fields.hpp"
#include "render/json_text.hpp"

namespace plaudit::api {

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

// A page's counts as JSON text, written straight into `out` (render/json_text.hpp): for a
// 50-page counts call, a boost::json object per page, serialised and destroyed, was as much
// of plauditd's CPU as its Redis replies' decoding (perf, issue 47).
void AppendCounts(std::string& out, const domain::PageCounts& c) {
  namespace jt = render::json_text;
  out.push_back('{');
  jt::Key(out, "url");
  if (c.url.empty()) {
    jt::Null(out);
  } else {
    jt::String(out, c.url);
  }
  out.push_back(',');
  jt::Key(out, "articleId");
  if (c.article_id) {
    jt::Int(out, *c.article_id);
  } else {
    jt::Null(out);
  }
  out.push_back(',');
  jt::Key(out, "commentCount");
  jt::Int(out, c.comment_count);
  out.push_back(',');
  jt::Key(out, "likeCount");
  jt::Int(out, c.like_count);
  out.push_back(',');
  jt::Key(out, "viewCount");
  jt::Int(out, c.view_count);
  out.push_back(',');
  jt::Key(out, "liked");
  jt::Bool(out, c.liked);
  out.push_back('}');
}

}  // namespace

namespace pages {

HandlerResult Get(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
  PL_CO_TRY(auto page, PageParam(ctx, req));
  const bool count_view = req.raw.method() != beast::http::verb::head;  // a probe is no reader
  PL_CO_TRY(auto counts, co_await ctx.pages->Read(caller.principal, page, count_view));
  Response r;
  AppendCounts(r.body, counts);
  co_return r;
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
      PL_CO_TRY(guest, bodies::Guest(body));
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
  PL_CO_TRY(auto in, bodies::NewPageComment(std::move(body)));
  const domain::Principal nobody;
  const domain::PageWriter writer{caller.principal ? *caller.principal : nobody, caller.address,
                                  guest ? &*guest : nullptr};
  PL_CO_TRY(auto posted, co_await ctx.pages->AddComment(writer, page, std::move(in.comment),
                                                        std::move(in.title)));
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
  // Keyed by each URL and id as sent; one sent twice is one key (the same counts), where it
  // first came.
  Response r;
  std::string& out = r.body;
  out.reserve(160 * counts.size() + 16);
  out.append("{\"items\":{");
  std::unordered_set<std::string_view> keys;
  auto item = [&](std::string_view key, const domain::PageCounts& c) {
    if (!keys.insert(key).second) {
      return;
    }
    if (keys.size() > 1) {
      out.push_back(',');
    }
    render::json_text::String(out, key);
    out.push_back(':');
    AppendCounts(out, c);
  };
  for (size_t i = 0; i < urls.size(); ++i) {
    item(urls[i], counts[i]);
  }
  std::vector<std::string> ids(article_ids.size());
  for (size_t j = 0; j < article_ids.size(); ++j) {
    ids[j] = std::to_string(article_ids[j]);
    item(ids[j], counts[urls.size() + j]);
  }
  out.append("}}");
  co_return r;
}

}  // namespace pages

}  // namespace plaudit::api
