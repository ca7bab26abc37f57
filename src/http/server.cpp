// Server's life (the design is in server.hpp; the other parts are listed in server_detail.hpp):
// listening, the accept loop that admits each connection under the cap, the sweep that ends
// connections past their deadline, and the drain on shutdown.
#include "http/server.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "http/server_detail.hpp"

namespace plaudit::http {

namespace {

// A sweep period fine enough for the shortest timeout (a quarter of it), at most a second.
std::chrono::milliseconds SweepPeriod(const ServerOptions& o) {
  auto shortest = std::min({o.header_timeout, o.body_timeout, o.idle_timeout});
  return std::clamp(shortest / 4, std::chrono::milliseconds(5), std::chrono::milliseconds(1000));
}

}  // namespace

Server::Server(net::io_context& ioc, ServerOptions options, const Router& router, Metrics* metrics)
    : ioc_(ioc),
      options_(std::move(options)),
      router_(router),
      metrics_(metrics),
      cors_(options_.sites),
      acceptor_(ioc),
      drain_timer_(ioc),
      sweep_timer_(ioc),
      sweep_period_(SweepPeriod(options_)) {}

Status Server::Listen() {
  boost::system::error_code ec;
  tcp::endpoint endpoint(options_.host, options_.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) {
    acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  }
  if (!ec) {
    acceptor_.bind(endpoint, ec);
  }
  if (!ec) {
    acceptor_.listen(net::socket_base::max_listen_connections, ec);
  }
  if (ec) {
    return Fail(ErrorCode::kUnavailable, "cannot listen on " + options_.host.to_string() + ":" +
                                             std::to_string(options_.port) + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint().port();
  return {};
}

void Server::Start() {
  net::co_spawn(ioc_, Accept(), [](const std::exception_ptr& e) {
    if (e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        spdlog::error("accept loop failed: {}", ex.what());
      }
    }
  });
  ArmSweep();
}

void Server::ArmSweep() {
  sweep_timer_.expires_after(sweep_period_);
  sweep_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) {
      return;  // cancelled: the server may be gone, touch nothing
    }
    Sweep();
    ArmSweep();
  });
}

void Server::Sweep() {
  const auto now = Clock::now();
  for (Connection* c : connections_) {
    if (c->deadline <= now) {
      // Fails the pending read or write with operation_aborted; its loop then ends.
      boost::system::error_code ignored;
      c->socket->close(ignored);
    }
  }
}

Awaitable<void> Server::Accept() {
  while (!shutting_down_) {
    boost::system::error_code ec;
    tcp::socket socket =
        co_await acceptor_.async_accept(net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      if (shutting_down_ || ec == net::error::operation_aborted) {
        break;
      }
      // EMFILE and friends: back off briefly instead of spinning.
      spdlog::warn("accept failed: {}", ec.message());
      net::steady_timer t(ioc_, std::chrono::milliseconds(50));
      co_await t.async_wait(net::use_awaitable);
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    // Writes are tried in place first (see WriteResponse); they must not block the loop.
    socket.non_blocking(true, ec);
    if (options_.max_connections > 0 && live_ - evicted_live_ >= options_.max_connections) {
      const bool evicted = EvictOneWaiting();
      NoteCapHit(evicted);
      if (!evicted) {
        RefuseConnection(socket);
        continue;
      }
    }
    ++live_;
    if (metrics_) {
      metrics_->SetOpenConnections(live_ - evicted_live_);
    }
    net::co_spawn(ioc_, Serve(std::move(socket)), net::detached);
  }
}

void Server::Shutdown(std::function<void()> on_drained, std::chrono::milliseconds deadline) {
  shutting_down_ = true;
  on_drained_ = std::move(on_drained);
  boost::system::error_code ec;
  acceptor_.close(ec);
  // Streams end now (their connections close after); idle keep-alive connections are closed
  // now; busy ones close after their response.
  for (EventStream* stream : streams_) {
    stream->Close();
  }
  for (Connection* c : connections_) {
    if (!c->busy) {
      c->socket->cancel(ec);
    }
  }
  drain_timer_.expires_after(deadline);
  drain_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) {
      return;
    }
    for (Connection* c : connections_) {
      boost::system::error_code ignored;
      c->socket->cancel(ignored);
      c->socket->close(ignored);
    }
  });
  net::post(ioc_, [this] { MaybeDrained(); });
}

void Server::MaybeDrained() {
  if (shutting_down_ && connections_.empty() && on_drained_) {
    drain_timer_.cancel();
    sweep_timer_.cancel();
    auto fn = std::move(on_drained_);
    on_drained_ = nullptr;
    fn();
  }
}

}  // namespace plaudit::http
