#pragma once
// Prometheus metrics (prometheus-cpp core), served as text by GET /metrics.
// Label lookups are cached so the per-request cost is a hash lookup and an atomic add.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

namespace plaudit::http_api {

class Metrics {
 public:
  Metrics();

  void ObserveRequest(std::string_view route, std::string_view method, int status,
                      double seconds);
  void ObserveRedis(std::string_view command, double seconds);
  // Thread-safe (called from SQL pool threads).
  void ObserveSql(double seconds);
  // The write-behind backlog as of the last flush pass.
  void SetBacklog(int64_t dirty_buckets, double oldest_unflushed_seconds);

  prometheus::Registry& registry() { return *registry_; }
  // The text exposition format of every metric.
  std::string Serialize() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* requests_;
  prometheus::Family<prometheus::Histogram>* request_seconds_;
  prometheus::Family<prometheus::Histogram>* redis_seconds_;
  prometheus::Histogram* sql_seconds_;
  prometheus::Gauge* backlog_;
  prometheus::Gauge* backlog_age_;

  // Looked up by string_view: observing a request or a Redis command builds no string.
  struct ViewHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using ViewMap = std::unordered_map<std::string, V, ViewHash, std::equal_to<>>;
  struct RouteMetrics {
    prometheus::Histogram* seconds = nullptr;
    struct Count {
      std::string method;
      int status;
      prometheus::Counter* counter;
    };
    std::vector<Count> counts;  // a route sees few (method, status) pairs: a scan is enough
  };

  std::mutex mu_;  // guards the caches (requests come from one thread, but be safe)
  ViewMap<RouteMetrics> routes_;
  ViewMap<prometheus::Histogram*> redis_histograms_;  // by the command as sent
};

}  // namespace plaudit::http_api
