#pragma once
// Prometheus metrics (prometheus-cpp core), served as text by GET /metrics.
//
// Every label value comes from a closed set, so no client can mint series: routes are the
// router's patterns (or "unmatched"), methods the ones HTTP defines (anything else is "other"),
// statuses the ones the handlers answer. The series are capped besides (kMaxRequestSeries,
// kMaxRoutes): beyond the cap a request is still counted, under "other". A request's series
// is found by two hash lookups (its route by string_view, then method and status as one
// integer) and bumped with an atomic add.
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <boost/beast/http/verb.hpp>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace plaudit::http {

class Metrics {
 public:
  // Request counter series (route × method × status) kept before the overflow series.
  static constexpr size_t kMaxRequestSeries = 1000;
  // Routes with their own latency histogram before the rest share route="other".
  static constexpr size_t kMaxRoutes = 1000;

  Metrics();

  void ObserveRequest(std::string_view route, boost::beast::http::verb method, int status,
                      double seconds);
  void ObserveRedis(std::string_view command, double seconds);
  // Thread-safe (called from SQL pool threads).
  void ObserveSql(double seconds);
  // Thread-safe (SQL pool threads): the jobs one group commit carried.
  void ObserveSqlGroup(size_t jobs);
  // The write-behind backlog as of the last flush pass.
  void SetBacklog(int64_t dirty_buckets, double oldest_unflushed_seconds);
  // The notice outbox after a delivery pass: undelivered rows and the oldest one's age.
  void SetOutbox(int64_t depth, double oldest_seconds);
  // Notices handled by a pass: `channel` mail, webhook or event; `result` delivered, skipped,
  // retried or given_up.
  void CountNotices(std::string_view channel, std::string_view result, int64_t n);
  // The rendered-page cache (render/page_cache.hpp) as of the last flush pass: its lookups so
  // far, answered and not (counters move by the difference), and its size.
  void SetPageCache(uint64_t hits, uint64_t misses, size_t bytes, size_t pages);

  // The server's connections (http/server.hpp): how many are open, and each time the cap was
  // met, whether a waiting connection was closed to make room or the newcomer refused.
  void SetOpenConnections(size_t open);
  void CountConnectionCap(bool evicted);
  // A request refused because the bodies in flight had used up the body budget.
  void CountBodyRefused();
  // A request shed at --max-in-flight (503 at once, its handler not run).
  void CountShed();

  prometheus::Registry& registry() { return *registry_; }
  // The text exposition format of every metric.
  std::string Serialize() const;

  // The method label: the name of a method HTTP defines, else "other".
  static std::string_view MethodLabel(boost::beast::http::verb method);

 private:
  struct RouteMetrics {
    std::string label;
    prometheus::Histogram* seconds = nullptr;
    // By method * 1000 + status.
    std::unordered_map<int, prometheus::Counter*> counts;
  };
  RouteMetrics& Route(std::string_view route);
  prometheus::Counter& Counter(RouteMetrics& m, boost::beast::http::verb method, int status);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>* requests_;
  prometheus::Family<prometheus::Histogram>* request_seconds_;
  prometheus::Family<prometheus::Histogram>* redis_seconds_;
  prometheus::Histogram* sql_seconds_;
  prometheus::Histogram* sql_groups_;
  prometheus::Gauge* backlog_;
  prometheus::Gauge* backlog_age_;
  prometheus::Gauge* outbox_depth_;
  prometheus::Gauge* outbox_age_;
  prometheus::Family<prometheus::Counter>* notices_;
  prometheus::Counter* page_hits_;
  prometheus::Counter* page_misses_;
  prometheus::Gauge* page_bytes_;
  prometheus::Gauge* page_count_;
  prometheus::Gauge* connections_open_;
  prometheus::Counter* connections_evicted_;
  prometheus::Counter* connections_refused_;
  prometheus::Counter* bodies_refused_;
  prometheus::Counter* shed_;
  uint64_t page_hits_seen_ = 0;
  uint64_t page_misses_seen_ = 0;

  // Looked up by string_view: observing a request or a Redis command builds no string.
  struct ViewHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <class V>
  using ViewMap = std::unordered_map<std::string, V, ViewHash, std::equal_to<>>;

  std::mutex mu_;  // guards the caches (requests come from one thread, but be safe)
  ViewMap<RouteMetrics> routes_;
  RouteMetrics* other_route_ = nullptr;  // past kMaxRoutes
  size_t request_series_ = 0;
  prometheus::Counter* overflow_ = nullptr;           // past kMaxRequestSeries
  ViewMap<prometheus::Histogram*> redis_histograms_;  // by the command as sent
};

}  // namespace plaudit::http
