#include "http/metrics.hpp"

#include <prometheus/text_serializer.h>

#include <cctype>

namespace plaudit::http {
namespace {

prometheus::Histogram::BucketBoundaries LatencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5};
}

// The methods of RFC 9110 and RFC 5789 (PATCH).
constexpr boost::beast::http::verb kMethods[] = {
    boost::beast::http::verb::get,     boost::beast::http::verb::head,
    boost::beast::http::verb::post,    boost::beast::http::verb::put,
    boost::beast::http::verb::patch,   boost::beast::http::verb::delete_,
    boost::beast::http::verb::options, boost::beast::http::verb::trace,
    boost::beast::http::verb::connect,
};

// A method's number in the series key: its place in kMethods from 1; 0 is "other".
int MethodIndex(boost::beast::http::verb v) {
  for (size_t i = 0; i < std::size(kMethods); ++i) {
    if (kMethods[i] == v) {
      return static_cast<int>(i) + 1;
    }
  }
  return 0;
}

// A metric family: Family(prometheus::BuildCounter(), registry, name, help).
template <class Builder>
auto& Family(Builder builder, prometheus::Registry& registry, const char* name,
             const std::string& help) {
  return builder.Name(name).Help(help).Register(registry);
}

// A gauge without labels: one series.
prometheus::Gauge* PlainGauge(prometheus::Registry& registry, const char* name, const char* help) {
  return &Family(prometheus::BuildGauge(), registry, name, help).Add({});
}

}  // namespace

std::string_view Metrics::MethodLabel(boost::beast::http::verb method) {
  if (MethodIndex(method) == 0) {
    return "other";
  }
  const auto name = boost::beast::http::to_string(method);
  return {name.data(), name.size()};
}

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      backlog_(PlainGauge(*registry_, "plaudit_writebehind_backlog",
                          "Like buckets with changes not yet flushed to SQL (last pass)")),
      backlog_age_(PlainGauge(*registry_, "plaudit_writebehind_oldest_age_seconds",
                              "Age of the oldest like change not yet flushed to SQL (last pass)")),
      outbox_depth_(PlainGauge(*registry_, "plaudit_outbox_depth",
                               "Notices not yet delivered nor given up (last delivery pass)")),
      outbox_age_(PlainGauge(*registry_, "plaudit_outbox_oldest_age_seconds",
                             "Age of the oldest notice not yet delivered (last delivery pass)")),
      page_bytes_(PlainGauge(*registry_, "plaudit_page_cache_bytes",
                             "Bytes the page cache counts against --page-cache-mb (last pass)")),
      page_count_(PlainGauge(*registry_, "plaudit_page_cache_pages",
                             "Rendered pages in the page cache (last pass)")),
      connections_open_(
          PlainGauge(*registry_, "plaudit_http_connections_open", "Open client connections")) {
  requests_ = &Family(prometheus::BuildCounter(), *registry_, "plaudit_http_requests_total",
                      "HTTP requests by route pattern, method and status");
  request_seconds_ =
      &Family(prometheus::BuildHistogram(), *registry_, "plaudit_http_request_duration_seconds",
              "HTTP request latency by route pattern");
  redis_seconds_ =
      &Family(prometheus::BuildHistogram(), *registry_, "plaudit_redis_command_duration_seconds",
              "Redis command latency (send to reply) by command");
  sql_seconds_ =
      &Family(prometheus::BuildHistogram(), *registry_, "plaudit_sql_call_duration_seconds",
              "Latency of one call to the SQL store, queueing included")
           .Add({}, LatencyBuckets());
  sql_groups_ = &Family(prometheus::BuildHistogram(), *registry_, "plaudit_sql_commit_group_jobs",
                        "Comment writes carried by one SQL commit (group commit), per commit")
                     .Add({}, prometheus::Histogram::BucketBoundaries{1, 2, 4, 8, 16, 32, 64, 128});
  notices_ = &Family(prometheus::BuildCounter(), *registry_, "plaudit_notices_total",
                     "Outbox rows handled by this instance's delivery worker, by channel "
                     "(mail, webhook, event) and result (delivered, skipped, retried, given_up)");
  auto& lookups =
      Family(prometheus::BuildCounter(), *registry_, "plaudit_page_cache_lookups_total",
             "Rendered pages (comment pages, article lists) asked of the page cache, by result");
  page_hits_ = &lookups.Add({{"result", "hit"}});
  page_misses_ = &lookups.Add({{"result", "miss"}});
  auto& capped = Family(prometheus::BuildCounter(), *registry_, "plaudit_http_connection_cap_total",
                        "New connections met at --max-connections, by what made room: a "
                        "waiting connection closed (evicted) or the newcomer refused");
  connections_evicted_ = &capped.Add({{"result", "evicted"}});
  connections_refused_ = &capped.Add({{"result", "refused"}});
  bodies_refused_ =
      &Family(prometheus::BuildCounter(), *registry_, "plaudit_http_body_budget_refused_total",
              "Requests refused (503) because request bodies in flight had "
              "used up --body-memory-mb")
           .Add({});
  shed_ = &Family(prometheus::BuildCounter(), *registry_, "plaudit_http_shed_total",
                  "Requests answered 503 at once, their handler not run, because "
                  "--max-in-flight requests were being handled")
               .Add({});
}

void Metrics::SetOpenConnections(size_t open) { connections_open_->Set(static_cast<double>(open)); }

void Metrics::CountConnectionCap(bool evicted) {
  (evicted ? connections_evicted_ : connections_refused_)->Increment();
}

void Metrics::CountBodyRefused() { bodies_refused_->Increment(); }

void Metrics::CountShed() { shed_->Increment(); }

void Metrics::SetBacklog(int64_t dirty_buckets, double oldest_unflushed_seconds) {
  backlog_->Set(static_cast<double>(dirty_buckets));
  backlog_age_->Set(oldest_unflushed_seconds);
}

void Metrics::SetOutbox(int64_t depth, double oldest_seconds) {
  outbox_depth_->Set(static_cast<double>(depth));
  outbox_age_->Set(oldest_seconds);
}

void Metrics::CountNotices(std::string_view channel, std::string_view result, int64_t n) {
  // Add() returns the existing series for known labels; at most 12 exist.
  auto& c = notices_->Add({{"channel", std::string(channel)}, {"result", std::string(result)}});
  if (n > 0) {
    c.Increment(static_cast<double>(n));
  }
}

void Metrics::SetPageCache(uint64_t hits, uint64_t misses, size_t bytes, size_t pages) {
  if (hits >= page_hits_seen_) {
    page_hits_->Increment(static_cast<double>(hits - page_hits_seen_));
  }
  if (misses >= page_misses_seen_) {
    page_misses_->Increment(static_cast<double>(misses - page_misses_seen_));
  }
  page_hits_seen_ = hits;
  page_misses_seen_ = misses;
  page_bytes_->Set(static_cast<double>(bytes));
  page_count_->Set(static_cast<double>(pages));
}

Metrics::RouteMetrics& Metrics::Route(std::string_view route) {
  auto it = routes_.find(route);
  if (it != routes_.end()) {
    return it->second;
  }
  if (routes_.size() >= kMaxRoutes) {
    if (!other_route_) {
      RouteMetrics m;
      m.label = "other";
      m.seconds = &request_seconds_->Add({{"route", "other"}}, LatencyBuckets());
      // Keyed by a name no route pattern has (they begin with '/', or are "unmatched").
      other_route_ = &routes_.emplace(std::string("\x01other"), std::move(m)).first->second;
    }
    return *other_route_;
  }
  RouteMetrics m;
  m.label = std::string(route);
  m.seconds = &request_seconds_->Add({{"route", m.label}}, LatencyBuckets());
  return routes_.emplace(std::string(route), std::move(m)).first->second;
}

prometheus::Counter& Metrics::Counter(RouteMetrics& m, boost::beast::http::verb method,
                                      int status) {
  const int key = MethodIndex(method) * 1000 + status;
  if (auto c = m.counts.find(key); c != m.counts.end()) {
    return *c->second;
  }
  if (request_series_ >= kMaxRequestSeries) {
    if (!overflow_) {
      overflow_ = &requests_->Add({{"route", "other"}, {"method", "other"}, {"status", "other"}});
    }
    return *overflow_;
  }
  ++request_series_;
  auto& counter = requests_->Add({{"route", m.label},
                                  {"method", std::string(MethodLabel(method))},
                                  {"status", std::to_string(status)}});
  m.counts.emplace(key, &counter);
  return counter;
}

void Metrics::ObserveRequest(std::string_view route, boost::beast::http::verb method, int status,
                             double seconds) {
  // Statuses outside HTTP's range cannot come from the handlers; keep the key unambiguous.
  if (status < 100 || status > 999) {
    status = 999;
  }
  std::lock_guard lock(mu_);
  RouteMetrics& m = Route(route);
  Counter(m, method, status).Increment();
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

void Metrics::ObserveSqlGroup(size_t jobs) { sql_groups_->Observe(static_cast<double>(jobs)); }

std::string Metrics::Serialize() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace plaudit::http
