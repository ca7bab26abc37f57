#include "api/comments.hpp"

#include "api/bind.hpp"
#include "api/bodies.hpp"
#include "api/handlers.hpp"
#include "api/json_fields.hpp"
#include "api/paging.hpp"
#include "common/time.hpp"

namespace plaudit::api {

using http::JsonResponse;
using http::Request;
using http::Response;

namespace {

// A guest is shown by the name they gave, without an id or a username (API.md "Guests").
boost::json::object UserJson(const domain::CommentUser& u) {
  if (u.Guest()) {
    return {{"id", nullptr}, {"displayName", u.display_name}, {"guest", true}};
  }
  return {{"id", u.id}, {"username", u.username}, {"displayName", u.display_name}};
}

}  // namespace

namespace comments {

Result<domain::CommentSort> SortParam(const Request& req, domain::CommentSort fallback) {
  std::optional<std::string> sort = req.Query("sort");
  if (!sort || sort->empty()) {
    return fallback;
  }
  auto s = domain::ParseCommentSort(*sort);
  if (!s) {
    return Fail(ErrorCode::kInvalidArgument, "sort must be new, old or hot");
  }
  return *s;
}

// GET .../comments's parameters (also GET /pages/comments).
Result<CommentListQuery> ParseListQuery(const Request& req) {
  PL_TRY(auto paging, ParsePaging(req));
  PL_TRY(auto sort, SortParam(req, domain::CommentSort::kNew));
  PL_TRY(auto replies, IntParam(req, "replies", 3, 0, domain::kMaxInlineReplies));
  return CommentListQuery{std::move(paging), sort, replies};
}

namespace {

constexpr std::string_view kEditTokenHeader = "Plaudit-Edit-Token";

// A comment without a session (API.md "Guests and sign-in from elsewhere"): `guest` names its
// writer; the 201 carries the edit token once.
HandlerResult CreateGuest(ApiContext ctx, Request& req, boost::json::object body,
                          domain::GuestName guest) {
  // Anonymous, and not past a rate limiter that cannot answer (as a costly read).
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  if (caller.authenticated()) {
    co_return Fail(ErrorCode::kInvalidArgument, "signed in: post without \"guest\"");
  }
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_TRY(auto in, bodies::NewComment(body));
  PL_CO_TRY(auto identity,
            co_await ctx.comments->AdmitGuest(guest.name, guest.email, caller.address));
  PL_CO_TRY(auto posted, co_await ctx.comments->CreateAsGuest(std::move(identity), caller.address,
                                                              id, std::move(in)));
  co_return PostedResponse(posted);
}

// The caller of a write on the comment of the path: a guest's edit token stands in for a
// session on that one comment (the same id the handler then acts on); otherwise a session,
// with the per-user write limit.
Awaitable<Result<domain::Principal>> Writer(ApiContext ctx, Request& req) {
  const std::string_view token = req.Header(kEditTokenHeader);
  if (token.empty()) {
    PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
    co_return std::move(*caller.principal);
  }
  PL_CO_CHECK(co_await ctx.guard->Admit(req, Access::kCostly));
  PL_CO_TRY(auto id, req.IdParam("id"));
  co_return co_await ctx.comments->GuestOwner(id, token);
}

}  // namespace

Response PostedResponse(const domain::PostedComment& posted) {
  boost::json::object out = CommentJson(posted.comment);
  if (posted.edit_token.empty()) {
    return JsonResponse(beast::http::status::created, out);
  }
  out["editToken"] = posted.edit_token;
  Response r = JsonResponse(beast::http::status::created, out);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HandlerResult Create(ApiContext ctx, Request& req) {
  // A Bearer token says who writes: the body is not read before the session is checked.
  // A body that is no JSON object is no guest's post: the session is asked for first, as
  // before guests (401 without one).
  if (req.Header(beast::http::field::authorization).empty()) {
    if (auto body = req.JsonBody(); body && body->contains("guest")) {
      PL_CO_TRY(auto guest, bodies::Guest(*body));
      co_return co_await CreateGuest(ctx, req, std::move(*body), std::move(*guest));
    }
  }
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto in, bodies::NewComment(body));
  PL_CO_TRY(auto c, co_await ctx.comments->Create(*caller.principal, id, std::move(in)));
  co_return JsonResponse(beast::http::status::created, CommentJson(c));
}

HandlerResult List(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_TRY(auto q, ParseListQuery(req));
  co_return co_await ctx.render->CommentPage(req, caller.principal, id, q);
}

HandlerResult Replies(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kCostly));
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_TRY(auto paging, ParsePaging(req));
  PL_CO_TRY(auto sort, SortParam(req, domain::CommentSort::kOld));
  co_return co_await ctx.render->RepliesPage(req, caller.principal, id, sort, paging);
}

HandlerResult Get(ApiContext ctx, Request& req) {
  std::optional<domain::Principal> viewer;
  if (!req.Header(kEditTokenHeader).empty()) {
    // A guest reading back their own comment (a held one too) by its edit token.
    PL_CO_TRY(viewer, co_await Writer(ctx, req));
  } else {
    PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kPublic));
    viewer = std::move(caller.principal);
  }
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_TRY(auto c, co_await ctx.comments->Get(viewer, id));
  co_return JsonResponse(beast::http::status::ok, CommentJson(c));
}

HandlerResult Patch(ApiContext ctx, Request& req) {
  PL_CO_TRY(const domain::Principal who, co_await Writer(ctx, req));
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto text, bodies::CommentText(body));
  PL_CO_TRY(auto c, co_await ctx.comments->Edit(who, id, std::move(text)));
  co_return JsonResponse(beast::http::status::ok, CommentJson(c));
}

// Renders a body as a comment with it would be (the widget's preview): nothing is stored, so
// anyone may ask, within the per-address request limit (kCostly: a limiter that cannot answer
// refuses it).
HandlerResult Preview(ApiContext ctx, Request& req) {
  PL_CO_CHECK(co_await ctx.guard->Admit(req, Access::kCostly));
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto text, bodies::CommentText(body));
  PL_CO_TRY(const std::string html, ctx.comments->Preview(text));
  co_return JsonResponse(beast::http::status::ok, boost::json::object{{"html", html}});
}

HandlerResult Delete(ApiContext ctx, Request& req) {
  PL_CO_TRY(const domain::Principal who, co_await Writer(ctx, req));
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_CHECK(co_await ctx.comments->Delete(who, id));
  co_return http::NoContent();
}

}  // namespace comments

boost::json::object CommentJson(const domain::Comment& c) {
  boost::json::object o;
  o["id"] = c.id;
  o["articleId"] = c.article_id;
  if (c.parent_id) {
    o["parentId"] = *c.parent_id;
  } else {
    o["parentId"] = nullptr;
  }
  o["author"] = UserJson(c.author);
  if (c.reply_to) {
    o["replyTo"] = UserJson(*c.reply_to);
  } else {
    o["replyTo"] = nullptr;
  }
  // Markdown as given: Boost.JSON escapes it for JSON, and whatever shows it as text must
  // escape it there. `html` is its rendering, sanitised when it was written (API.md
  // "Comment text"); empty for a comment from before that start-up has not rendered yet.
  o["body"] = c.body;
  o["html"] = c.html;
  o["createdAt"] = FormatTimeMs(c.created_at_ms);
  o["updatedAt"] = FormatTimeMs(c.updated_at_ms);
  o["likeCount"] = c.like_count;
  o["replyCount"] = c.reply_count;
  o["liked"] = c.liked;
  o["deleted"] = c.deleted;
  o["status"] = domain::CommentStatusName(c.status);
  return o;
}

}  // namespace plaudit::api
