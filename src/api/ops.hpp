#pragma once
// Operations endpoints: GET /healthz, GET /readyz, GET /metrics.
#include "http/metrics.hpp"
#include "http/router.hpp"
#include "redis/client.hpp"
#include "sql/store.hpp"

namespace plaudit::api {

struct OpsDeps {
  redis::Client* redis = nullptr;
  sql::Store* store = nullptr;
  http_api::Metrics* metrics = nullptr;
};

void RegisterOps(http_api::Router& router, OpsDeps deps);

}  // namespace plaudit::api
