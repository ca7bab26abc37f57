#pragma once
// Turns `Awaitable<Response> Fn(ApiContext, Request&)` into a router handler.
#include "api/context.hpp"
#include "http/router.hpp"

namespace plaudit::api {

template <auto Fn>
http::Handler Bind(ApiContext ctx) {
  return [ctx](http::Request& req) -> Awaitable<http::Response> {
    co_return co_await Fn(ctx, req);
  };
}

}  // namespace plaudit::api
