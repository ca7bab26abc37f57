#pragma once
// Every /api/v1 route of API.md in one table (api/routes.cpp): which handler answers which
// method and path. The ops routes (/healthz, /readyz, /metrics) are api/ops.hpp's.
#include "api/context.hpp"
#include "http/router.hpp"

namespace plaudit::api {

void RegisterApi(http::Router& router, ApiContext ctx);

}  // namespace plaudit::api
