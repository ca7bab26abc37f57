#include "app/app.hpp"

#include <filesystem>

#include <spdlog/spdlog.h>

#include "api/ops.hpp"

namespace plaudit::app {

Result<std::unique_ptr<sql::Store>> OpenStore(const config::Config& config) {
  sql::StoreOptions opts;
  opts.url = config.database_url;
  if (opts.url.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(config.data_dir, ec);
    if (ec) {
      return Fail(ErrorCode::kUnavailable,
                  "cannot create data dir " + config.data_dir + ": " + ec.message());
    }
    opts.url = config::DefaultDatabaseUrl(config);
  }
  opts.pool_size = config.sql_pool_size;
  return sql::Store::Open(opts);
}

App::App(config::Config config) : config_(std::move(config)) {}

App::~App() {
  if (server_) {
    server_.reset();
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
  std::string redis_url = config_.redis_url;
  if (redis_url.empty()) {
    embedded_redis_ = std::make_unique<EmbeddedRedis>(config_.data_dir, config_.redis_server_bin);
    if (auto st = embedded_redis_->Start(); !st) {
      return st;
    }
    redis_url = embedded_redis_->url();
  }

  auto store = OpenStore(config_);
  if (!store) {
    return tl::unexpected(store.error());
  }
  store_ = std::move(*store);
  store_->SetLatencyObserver([m = &metrics_](double s) { m->ObserveSql(s); });
  auto applied = store_->Migrate();
  if (!applied) {
    return tl::unexpected(applied.error());
  }
  if (*applied > 0) {
    spdlog::info("applied {} database migration(s)", *applied);
  }

  redis::ClientOptions ropts;
  ropts.url = redis_url;
  redis_ = redis::Client::Create(ioc_.get_executor(), ropts);
  redis_->SetLatencyObserver(
      [m = &metrics_](std::string_view cmd, double s) { m->ObserveRedis(cmd, s); });
  redis_->Start();

  api::RegisterOps(router_, {redis_.get(), store_.get(), &metrics_});

  http_api::ServerOptions sopts;
  sopts.host = config_.host;
  sopts.port = config_.port;
  sopts.max_body = config_.max_body;
  server_ = std::make_unique<http_api::Server>(ioc_, sopts, router_, &metrics_);
  if (auto st = server_->Listen(); !st) {
    return st;
  }
  server_->Start();
  spdlog::info("plauditd listening on http://{}:{}", config_.host, server_->port());
  return {};
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
  if (signals_) {
    boost::system::error_code ec;
    signals_->cancel(ec);
  }
  auto finish = [this] {
    // The write-behind flusher's final pass runs here once it exists.
    redis_->Stop();
    spdlog::info("drained; stopping");
    ioc_.stop();
  };
  if (server_) {
    server_->Shutdown(finish);
  } else {
    finish();
  }
}

}  // namespace plaudit::app
