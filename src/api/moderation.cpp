// API.md "Moderation": moderators' actions on comments, readers' reports, bans and the log.
#include <boost/json.hpp>
#include <charconv>

#include "api/bodies.hpp"
#include "api/comments.hpp"
#include "api/handlers.hpp"
#include "api/json_fields.hpp"
#include "api/keyset_page.hpp"
#include "api/paging.hpp"
#include "api/users.hpp"
#include "common/time.hpp"
#include "http/errors.hpp"

namespace plaudit::api {

using http::JsonResponse;
using http::Request;

namespace {

// The queue's and the log's cursor: the id of the last item seen (0: from the start).
Result<int64_t> CursorId(const Request& req) {
  auto cursor = req.Query("cursor");
  if (!cursor || cursor->empty()) {
    return int64_t{0};
  }
  int64_t id = 0;
  auto [end, ec] = std::from_chars(cursor->data(), cursor->data() + cursor->size(), id);
  if (ec != std::errc() || end != cursor->data() + cursor->size() || id <= 0) {
    return Fail(ErrorCode::kInvalidArgument, "invalid cursor");
  }
  return id;
}

boost::json::value OptionalIdJson(const std::optional<int64_t>& id) {
  if (id) {
    return *id;
  }
  return nullptr;
}

}  // namespace

namespace moderation {

// POST /api/v1/moderation/comments {"ids", "action"}: each id on its own (one may fail while
// the others go through), in the order given; the answer names each one's outcome.
HandlerResult Act(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  if (!caller.Is(domain::Role::kModerator)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only moderators may moderate comments");
  }
  PL_CO_TRY(auto body, req.JsonBody());
  PL_CO_TRY(auto asked, bodies::Moderation(body));
  boost::json::object results;
  for (int64_t id : asked.ids) {
    auto done = co_await ctx.comments->Moderate(*caller.principal, id, asked.action);
    if (!done && done.error().code == ErrorCode::kUnavailable) {
      co_return tl::unexpected(done.error());
    }
    results[std::to_string(id)] =
        done ? std::string_view("ok") : http::ApiCodeFor(done.error().code);
  }
  co_return JsonResponse(beast::http::status::ok, boost::json::object{{"results", results}});
}

// GET /api/v1/moderation/comments?status=pending|spam|reported&articleId=&cursor=&size=:
// oldest first; each item the comment (its text too: moderators read what they judge) plus
// its article, reports and reasons. The cursor is the last id seen.
HandlerResult Queue(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  if (!caller.Is(domain::Role::kModerator)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only moderators may read the queue");
  }
  sql::QueueFilter filter = sql::QueueFilter::kPending;
  if (auto status = req.Query("status"); status && !status->empty()) {
    if (*status == "spam") {
      filter = sql::QueueFilter::kSpam;
    } else if (*status == "reported") {
      filter = sql::QueueFilter::kReported;
    } else if (*status != "pending") {
      co_return Fail(ErrorCode::kInvalidArgument, "status must be pending, spam or reported");
    }
  }
  std::optional<int64_t> article_id;
  if (auto a = req.Query("articleId"); a && !a->empty()) {
    PL_CO_TRY(const int64_t id, IntParam(req, "articleId", 0, 1, INT64_MAX));
    article_id = id;
  }
  PL_CO_TRY(auto size, IntParam(req, "size", 20, 1, 100));
  PL_CO_TRY(const int64_t after, CursorId(req));
  PL_CO_TRY(auto rows,
            co_await ctx.comments->Queue(*caller.principal, filter, article_id, after, size + 1));
  const boost::json::value next = TrimToPage(rows, size, [](const auto& q) { return q.row.id; });
  boost::json::array items;
  for (const auto& q : rows) {
    boost::json::object item = CommentJson(sql::ToComment(q.row));
    boost::json::value url = nullptr;
    if (q.page_url) {
      url = *q.page_url;
    } else {
      url = "/articles/" + std::to_string(q.row.article_id);
    }
    item["article"] =
        boost::json::object{{"id", q.row.article_id}, {"title", q.article_title}, {"url", url}};
    item["reports"] = q.reports;
    // A guest's e-mail is for admins alone (API.md "Guests and sign-in from elsewhere").
    if (!q.guest_email.empty() && caller.Is(domain::Role::kAdmin)) {
      item["guestEmail"] = q.guest_email;
    }
    boost::json::array reasons;
    std::string_view rest = q.held_reasons;
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      reasons.emplace_back(rest.substr(0, comma));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    item["reasons"] = std::move(reasons);
    items.push_back(std::move(item));
  }
  co_return JsonResponse(
      beast::http::status::ok,
      boost::json::object{{"items", items}, {"size", size}, {"nextCursor", next}});
}

// GET /api/v1/moderation/log?cursor=&size=: newest first; the cursor is the last id seen.
HandlerResult Log(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kAuthenticated));
  if (!caller.Is(domain::Role::kModerator)) {
    co_return Fail(ErrorCode::kPermissionDenied, "only moderators may read the moderation log");
  }
  PL_CO_TRY(auto size, IntParam(req, "size", 50, 1, 100));
  PL_CO_TRY(const int64_t before, CursorId(req));
  PL_CO_TRY(auto entries, co_await ctx.moderation_log->Page(before, size + 1));
  const boost::json::value next = TrimToPage(entries, size, [](const auto& e) { return e.id; });
  boost::json::array items;
  for (const auto& e : entries) {
    items.push_back(boost::json::object{{"id", e.id},
                                        {"at", FormatTimeMs(e.at_ms)},
                                        {"actor", OptionalIdJson(e.actor_id)},
                                        {"action", e.action},
                                        {"commentId", OptionalIdJson(e.comment_id)},
                                        {"userId", OptionalIdJson(e.user_id)},
                                        {"reason", e.reason}});
  }
  co_return JsonResponse(beast::http::status::ok,
                         boost::json::object{{"items", items}, {"nextCursor", next}});
}

// POST /api/v1/comments/{id}/reports {"reason"?} → 204, once per reader.
HandlerResult Report(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(auto id, req.IdParam("id"));
  std::string reason;
  if (!req.raw.body().empty()) {
    PL_CO_TRY(auto body, req.JsonBody());
    PL_CO_TRY(reason, bodies::ReportReason(body));
  }
  PL_CO_CHECK(co_await ctx.comments->Report(*caller.principal, id, std::move(reason)));
  co_return http::NoContent();
}

// PUT /api/v1/users/{id}/ban {"until"?, "reason"?} → 200 the user.
HandlerResult Ban(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(auto id, req.IdParam("id"));
  bodies::BanRequest ban;
  if (!req.raw.body().empty()) {
    PL_CO_TRY(auto body, req.JsonBody());
    PL_CO_TRY(ban, bodies::Ban(body, NowMs()));
  }
  PL_CO_TRY(auto user,
            co_await ctx.users->SetBan(*caller.principal, id, ban.until, std::move(ban.reason)));
  co_return JsonResponse(beast::http::status::ok, UserJson(user));
}

// DELETE /api/v1/users/{id}/ban → 200 the user.
HandlerResult Unban(ApiContext ctx, Request& req) {
  PL_CO_TRY(auto caller, co_await ctx.guard->Admit(req, Access::kWrite));
  PL_CO_TRY(auto id, req.IdParam("id"));
  PL_CO_TRY(auto user, co_await ctx.users->SetBan(*caller.principal, id, 0, ""));
  co_return JsonResponse(beast::http::status::ok, UserJson(user));
}

}  // namespace moderation
}  // namespace plaudit::api
