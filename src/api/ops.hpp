#pragma once
// Operations endpoints: GET /healthz (open to all), GET /readyz and GET /metrics (only to the
// addresses of --metrics-allow, loopback by default, never through a proxy, and with
// --metrics-token also only with that bearer token: they name the backends, their errors and
// the traffic, and each costs a Redis and a database call or a serialisation of every
// series).
#include "common/address_set.hpp"
#include "http/metrics.hpp"
#include "http/router.hpp"
#include "redis/client.hpp"
#include "sql/store.hpp"

namespace plaudit::api {

struct OpsDeps {
  redis::Client* redis = nullptr;
  sql::Store* store = nullptr;
  http::Metrics* metrics = nullptr;
  AddressSet allow;   // who may read /readyz and /metrics
  std::string token;  // when set, they also need `Authorization: Bearer <token>`
};

void RegisterOps(http::Router& router, OpsDeps deps);

}  // namespace plaudit::api
