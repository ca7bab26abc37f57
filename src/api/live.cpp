// API.md "Live updates": a thread's events as text/event-stream (render/live_streams.hpp says
// what is sent and why nothing held is). Each handler checks that an anonymous reader may read
// the thread, then opens a stream: the events are an anonymous reader's view, whoever asks.
#include <charconv>

#include "api/handlers.hpp"
#include "render/live_streams.hpp"

namespace plaudit::api {

using http::Request;
using http::Response;

namespace {

// The Last-Event-ID of a reconnect (what EventSource sends), or the `lastEventId` query
// parameter (a page that closed its EventSource while hidden opens a new one); nullopt for
// none or a bad one.
std::optional<uint64_t> LastEventId(const Request& req) {
  std::string_view v = http::TrimOws(req.Header("Last-Event-ID"));
  const std::optional<std::string> query = req.Query("lastEventId");
  if (v.empty() && query) {
    v = *query;
  }
  uint64_t out = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || ptr != v.data() + v.size()) {
    return std::nullopt;
  }
  return out;
}

// `address`: the caller as the per-address limits count it (an IPv6 client by its /64).
Awaitable<Result<Response>> Open(ApiContext ctx, const Request& req, const std::string& address,
                                 int64_t article_id) {
  PL_CO_CHECK(co_await ctx.articles->Get(std::nullopt, article_id, false, false));
  PL_CO_TRY(auto stream, ctx.live->Open(article_id, LastEventId(req), address));
  Response r;
  r.content_type = "text/event-stream; charset=utf-8";
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("X-Accel-Buffering", "no");  // nginx: pass events on at once
  r.stream = std::move(stream);
  co_return r;
}

}  // namespace

namespace live {

HandlerResult ArticleEvents(ApiContext ctx, Request& req) {
  PL_CO_TRY(const Caller caller, co_await ctx.guard->Admit(req, Access::kCostly));
  PL_CO_TRY(auto id, req.IdParam("id"));
  co_return co_await Open(ctx, req, caller.address, id);
}

HandlerResult PageEvents(ApiContext ctx, Request& req) {
  PL_CO_TRY(const Caller caller, co_await ctx.guard->Admit(req, Access::kCostly));
  std::optional<std::string> url = req.Query("url");
  if (!url || url->empty()) {
    co_return Fail(ErrorCode::kInvalidArgument, "url is required");
  }
  PL_CO_TRY(auto page, ctx.pages->Page(*url));
  // A page without a thread yet has nothing to follow: 404, and the widget follows the
  // thread by its article id once its first comment made one.
  std::optional<Response> out;
  std::function<Awaitable<Status>(int64_t)> open = [&](int64_t id) -> Awaitable<Status> {
    PL_CO_TRY(out, co_await Open(ctx, req, caller.address, id));
    co_return Status{};
  };
  PL_CO_TRY(const bool found, co_await ctx.pages->OnThread(page, std::move(open)));
  if (!found) {
    co_return Fail(ErrorCode::kNotFound, "this page has no comment thread yet");
  }
  co_return std::move(*out);
}

}  // namespace live
}  // namespace plaudit::api
