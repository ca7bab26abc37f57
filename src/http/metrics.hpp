#pragma once
// Prometheus metrics (prometheus-cpp core), served as text by GET /metrics.
// Label lookups are cached so the per-request cost is a hash lookup and an atomic add.
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

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

  std::mutex mu_;  // guards the caches (requests come from one thread, but be safe)
  std::unordered_map<std::string, prometheus::Counter*> request_counters_;
  std::unordered_map<std::string, prometheus::Histogram*> request_histograms_;
  std::unordered_map<std::string, prometheus::Histogram*> redis_histograms_;
};

}  // namespace plaudit::http_api
