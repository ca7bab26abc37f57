// App's lifetime around the wiring (wiring.cpp): starting HTTP, serving until a signal or
// RequestStop, the graceful stop (drain requests, last flush, let go of Redis) and teardown.
#include "app/app.hpp"

#include <spdlog/spdlog.h>

#include "api/ops.hpp"
#include "api/web_files.hpp"
#include "common/fd_limit.hpp"

namespace plaudit::app {

namespace {

// A final flush that finds the database (or Redis) unreachable is tried again this long, every
// kFinalFlushSpacing (past the flusher's 1 s back-off after a failed check of Redis against
// SQL, and the store's 200 ms reconnect back-off; sooner would find both still closed): a
// database that restarted just before a stop still gets every like acknowledged before it
// (issue 50's sql-restart fault). After that the changes stay in Redis for the next start's
// flush; the unit's TimeoutStopSec (45 s) leaves room for this. A dead embedded Redis costs the
// same wait for nothing.
constexpr auto kFinalFlushPatience = std::chrono::seconds(5);
constexpr auto kFinalFlushSpacing = std::chrono::milliseconds(1100);

}  // namespace

Awaitable<Result<flush::FlushReport>> App::FinalFlush() {
  const auto give_up = std::chrono::steady_clock::now() + kFinalFlushPatience;
  Result<flush::FlushReport> r = co_await flusher_->FlushAll();
  while (!r && r.error().code == ErrorCode::kUnavailable &&
         std::chrono::steady_clock::now() + kFinalFlushSpacing < give_up) {
    spdlog::warn("final flush failed: {}; trying again", r.error().message);
    net::steady_timer spacing(ioc_, kFinalFlushSpacing);
    auto waited = spacing.async_wait(net::as_tuple(net::use_awaitable));
    (void)co_await std::move(waited);
    r = co_await flusher_->FlushAll();
  }
  co_return r;
}

App::App(config::Config config) : config_(std::move(config)) {}

App::~App() {
  if (server_) {
    server_.reset();
  }
  if (subscriber_) {
    subscriber_->Stop();
  }
  if (live_subscriber_) {
    live_subscriber_->Stop();
  }
  if (redis_) {
    redis_->Stop();
  }
  if (store_) {
    store_->Close();
  }
  if (embedded_redis_) {
    embedded_redis_->Stop();
  }
}

Status App::Start() {
  if (auto st = StartBackend(); !st) {
    return st;
  }
  api::OpsDeps ops;
  ops.redis = redis_.get();
  ops.store = store_.get();
  ops.metrics = &metrics_;
  ops.allow = config_.metrics_allow;
  ops.token = config_.metrics_token;
  if (embedded_redis_) {
    ops.health = [r = embedded_redis_.get()] { return r->Health(); };  // a dead child: 503
  }
  api::RegisterOps(router_, ops);
  api::RegisterWebFiles(router_);
  api::RegisterOpenApi(router_);

  http::ServerOptions sopts;
  sopts.host = config_.host;
  sopts.port = config_.port;
  sopts.max_body = config_.max_body;
  const size_t open_files = RaiseOpenFileLimit();
  sopts.max_connections = config_.max_connections > 0 ? static_cast<size_t>(config_.max_connections)
                                                      : DefaultMaxConnections(open_files);
  live_streams_->FitConnections(sopts.max_connections);
  sopts.body_budget = static_cast<size_t>(config_.body_memory_mb) << 20;
  sopts.max_in_flight = static_cast<size_t>(config_.max_in_flight);
  sopts.sites = config_.sites;
  sopts.trusted_proxies = config_.trusted_proxies;
  sopts.proxy_header =
      config_.proxy_forwarded ? http::ProxyHeader::kForwarded : http::ProxyHeader::kXForwarded;
  server_ = std::make_unique<http::Server>(ioc_, sopts, router_, &metrics_);
  if (auto st = server_->Listen(); !st) {
    return st;
  }
  server_->Start();
  flusher_->Start();
  search_indexer_->Start();
  // Without mail or webhooks there is nothing to deliver (and nothing is written).
  if (!config_.smtp.empty() || !config_.webhooks.empty()) {
    notifier_->Start();
  }
  spdlog::info("plauditd listening on http://{}:{} (at most {} connections, {} open files)",
               config_.host.to_string(), server_->port(), sopts.max_connections, open_files);
  net::co_spawn(ioc_, AnnounceSetup(), net::detached);
  return {};
}

Awaitable<void> App::AnnounceSetup() {
  auto needed = co_await setup_->Needed();
  if (!needed) {
    spdlog::warn("cannot tell whether an admin exists: {}", needed.error().message);
  } else if (*needed) {
    spdlog::warn("no admin yet: open http://{}:{}/setup?token={} to create one",
                 config_.host.to_string(), server_->port(), setup_->token());
  }
}

uint16_t App::port() const { return server_ ? server_->port() : 0; }

int App::Run(bool handle_signals) {
  if (handle_signals) {
    signals_.emplace(ioc_, SIGINT, SIGTERM);
    signals_->async_wait([this](boost::system::error_code ec, int sig) {
      if (!ec) {
        spdlog::info("signal {} received: draining", sig);
        BeginStop();
      }
    });
  }
  ioc_.run();
  return 0;
}

void App::RequestStop() {
  net::post(ioc_, [this] { BeginStop(); });
}

void App::BeginStop() {
  if (stopping_) {
    return;
  }
  stopping_ = true;
  // A child that dies from here on stays dead (a stop is not a crash to restart from).
  if (embedded_redis_) {
    embedded_redis_->BeginShutdown();
  }
  if (signals_) {
    boost::system::error_code ec;
    signals_->cancel(ec);
  }
  auto finish = [this] {
    // Requests are drained: run the last write-behind pass, then let go of Redis. Notices
    // not yet sent stay in the outbox for the next start (or another instance).
    flusher_->Stop();
    notifier_->Stop();
    search_indexer_->Stop();
    net::co_spawn(
        ioc_,
        [this]() -> Awaitable<void> {
          auto r = co_await FinalFlush();
          if (!r) {
            spdlog::error("final flush failed: {}; the changes stay in Redis for the next flush",
                          r.error().message);
          } else {
            spdlog::info("final flush: {} view counts, {} like states", r->views, r->like_changes);
          }
          if (subscriber_) {
            subscriber_->Stop();
          }
          if (live_subscriber_) {
            live_subscriber_->Stop();
          }
          redis_->Stop();
          spdlog::info("drained; stopping");
          ioc_.stop();
        },
        net::detached);
  };
  if (server_) {
    server_->Shutdown(finish);
  } else {
    finish();
  }
}

}  // namespace plaudit::app
