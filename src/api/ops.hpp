#pragma once
// Operations endpoints: GET /healthz (open to all: 200 while the process runs, 503 when the
// embedded Redis child died and could not be restarted), GET /readyz and GET /metrics (only
// to the addresses of --metrics-allow, loopback by default, never through a proxy, and with
// --metrics-token also only with that bearer token: they name the backends, their errors and
// the traffic, and each costs a Redis and a database call or a serialisation of every
// series).
#include <functional>

#include "common/address_set.hpp"
#include "http/metrics.hpp"
#include "http/router.hpp"
#include "redis/client/client.hpp"
#include "sql/store.hpp"

namespace plaudit::api {

struct OpsDeps {
  redis::Client* redis = nullptr;
  sql::Store* store = nullptr;
  http::Metrics* metrics = nullptr;
  AddressSet allow;   // who may read /readyz and /metrics
  std::string token;  // when set, they also need `Authorization: Bearer <token>`
  // What /healthz asks besides "the process runs": in embedded mode, whether the Redis child
  // is up or being restarted (app/embedded_redis.hpp). Empty: always healthy.
  std::function<Status()> health;
};

void RegisterOps(http::Router& router, const OpsDeps& deps);

}  // namespace plaudit::api
