#pragma once
// Turns a handler `Awaitable<Result<Response>> Fn(ApiContext, Request&)` into a router
// handler: an error any step returns becomes its API.md error response here, once
// (http/errors.hpp has the one table of statuses).
#include <type_traits>

#include "api/context.hpp"
#include "http/errors.hpp"
#include "http/router.hpp"

namespace plaudit::api {

using HandlerResult = Awaitable<Result<http::Response>>;

template <auto Fn>
http::Handler Bind(ApiContext ctx) {
  return [ctx](http::Request& req) -> Awaitable<http::Response> {
    Result<http::Response> r = co_await Fn(ctx, req);
    if (!r) {
      co_return http::ErrorResponse(r.error());
    }
    co_return std::move(*r);
  };
}

}  // namespace plaudit::api
