#include "http/metrics.hpp"

#include <prometheus/text_serializer.h>

#include <algorithm>
#include <cctype>

namespace plaudit::http_api {
namespace {

prometheus::Histogram::BucketBoundaries LatencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
          2.5};
}

}  // namespace

Metrics::Metrics() : registry_(std::make_shared<prometheus::Registry>()) {
  requests_ = &prometheus::BuildCounter()
                   .Name("plaudit_http_requests_total")
                   .Help("HTTP requests by route pattern, method and status")
                   .Register(*registry_);
  request_seconds_ = &prometheus::BuildHistogram()
                          .Name("plaudit_http_request_duration_seconds")
                          .Help("HTTP request latency by route pattern")
                          .Register(*registry_);
  redis_seconds_ = &prometheus::BuildHistogram()
                        .Name("plaudit_redis_command_duration_seconds")
                        .Help("Redis command latency (send to reply) by command")
                        .Register(*registry_);
  sql_seconds_ = &prometheus::BuildHistogram()
                      .Name("plaudit_sql_call_duration_seconds")
                      .Help("Latency of one call to the SQL store, queueing included")
                      .Register(*registry_)
                      .Add({}, LatencyBuckets());
  backlog_ = &prometheus::BuildGauge()
                  .Name("plaudit_writebehind_backlog")
                  .Help("Like buckets with changes not yet flushed to SQL (last pass)")
                  .Register(*registry_)
                  .Add({});
  backlog_age_ = &prometheus::BuildGauge()
                      .Name("plaudit_writebehind_oldest_age_seconds")
                      .Help("Age of the oldest like change not yet flushed to SQL (last pass)")
                      .Register(*registry_)
                      .Add({});
}

void Metrics::SetBacklog(int64_t dirty_buckets, double oldest_unflushed_seconds) {
  backlog_->Set(static_cast<double>(dirty_buckets));
  backlog_age_->Set(oldest_unflushed_seconds);
}

void Metrics::ObserveRequest(std::string_view route, std::string_view method, int status,
                             double seconds) {
  std::lock_guard lock(mu_);
  auto it = routes_.find(route);
  if (it == routes_.end()) {
    RouteMetrics m;
    m.seconds = &request_seconds_->Add({{"route", std::string(route)}}, LatencyBuckets());
    it = routes_.emplace(std::string(route), std::move(m)).first;
  }
  RouteMetrics& m = it->second;
  auto c = std::find_if(m.counts.begin(), m.counts.end(), [&](const RouteMetrics::Count& c) {
    return c.status == status && c.method == method;
  });
  if (c == m.counts.end()) {
    auto& counter = requests_->Add({{"route", std::string(route)},
                                    {"method", std::string(method)},
                                    {"status", std::to_string(status)}});
    c = m.counts.insert(m.counts.end(), {std::string(method), status, &counter});
  }
  c->counter->Increment();
  m.seconds->Observe(seconds);
}

void Metrics::ObserveRedis(std::string_view command, double seconds) {
  std::lock_guard lock(mu_);
  auto it = redis_histograms_.find(command);
  if (it == redis_histograms_.end()) {
    // Labelled upper-case: "get" and "GET" are one series (Add returns the same histogram).
    std::string label(command);
    for (auto& ch : label) {
      ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    auto& h = redis_seconds_->Add({{"command", label}}, LatencyBuckets());
    it = redis_histograms_.emplace(std::string(command), &h).first;
  }
  it->second->Observe(seconds);
}

void Metrics::ObserveSql(double seconds) { sql_seconds_->Observe(seconds); }

std::string Metrics::Serialize() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace plaudit::http_api
