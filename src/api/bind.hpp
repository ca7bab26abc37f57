#pragma once
// Turns `Awaitable<Response> Fn(ApiContext, Request&)` into a router handler.
#include "api/context.hpp"
#include "http/router.hpp"

namespace plaudit::api {

template <auto Fn>
http_api::Handler Bind(ApiContext ctx) {
  return [ctx](http_api::Request& req) -> Awaitable<http_api::Response> {
    co_return co_await Fn(ctx, req);
  };
}

}  // namespace plaudit::api
