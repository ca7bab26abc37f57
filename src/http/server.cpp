#include "http/server.hpp"

#include <spdlog/spdlog.h>

#include "http/errors.hpp"

namespace plaudit::http_api {

// Per-connection state the server needs to see during shutdown.
struct Server::Connection {
  beast::tcp_stream* stream = nullptr;
  bool busy = false;  // between reading a request's header and writing its response
};

Server::Server(net::io_context& ioc, ServerOptions options, const Router& router,
               Metrics* metrics)
    : ioc_(ioc),
      options_(std::move(options)),
      router_(router),
      metrics_(metrics),
      acceptor_(ioc),
      drain_timer_(ioc) {}

Status Server::Listen() {
  boost::system::error_code ec;
  auto address = net::ip::make_address(options_.host, ec);
  if (ec) {
    return Fail(ErrorCode::kInvalidArgument, "invalid listen address '" + options_.host + "'");
  }
  tcp::endpoint endpoint(address, options_.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return Fail(ErrorCode::kUnavailable, "cannot listen on " + options_.host + ":" +
                                             std::to_string(options_.port) + ": " + ec.message());
  }
  port_ = acceptor_.local_endpoint().port();
  return {};
}

void Server::Start() {
  net::co_spawn(ioc_, Accept(), [](std::exception_ptr e) {
    if (e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        spdlog::error("accept loop failed: {}", ex.what());
      }
    }
  });
}

Awaitable<void> Server::Accept() {
  while (!shutting_down_) {
    boost::system::error_code ec;
    tcp::socket socket = co_await acceptor_.async_accept(net::redirect_error(net::use_awaitable, ec));
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
    net::co_spawn(ioc_, Serve(std::move(socket)), net::detached);
  }
}

namespace {

bool IsWrite(http::verb v) {
  return v == http::verb::post || v == http::verb::put || v == http::verb::patch ||
         v == http::verb::delete_;
}

http::response<http::string_body> ToMessage(Response&& r, unsigned version, bool keep_alive,
                                            bool head) {
  http::response<http::string_body> res{r.status, version};
  res.set(http::field::server, "plaudit");
  if (!r.content_type.empty()) {
    res.set(http::field::content_type, r.content_type);
  }
  for (auto& [k, v] : r.headers) {
    res.insert(k, v);
  }
  res.keep_alive(keep_alive);
  res.body() = std::move(r.body);
  res.prepare_payload();
  if (head) {
    res.body().clear();  // Content-Length stays that of the GET body
  }
  return res;
}

}  // namespace

Awaitable<void> Server::Serve(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  Connection conn;
  conn.stream = &stream;
  connections_.insert(&conn);
  std::string remote;
  {
    boost::system::error_code ec;
    auto ep = stream.socket().remote_endpoint(ec);
    if (!ec) remote = ep.address().to_string();
  }
  beast::flat_buffer buffer;
  boost::system::error_code ec;
  auto reply_and_close = [&](Response r, unsigned version) -> Awaitable<void> {
    auto msg = ToMessage(std::move(r), version, false, false);
    stream.expires_after(options_.header_timeout);
    boost::system::error_code wec;
    co_await http::async_write(stream, msg, net::redirect_error(net::use_awaitable, wec));
  };

  while (!shutting_down_) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options_.max_header));
    parser.body_limit(options_.max_body);
    conn.busy = false;
    if (buffer.size() == 0) {
      // Keep-alive wait for the first bytes of the next request, under the idle timeout;
      // the rest of the header must then arrive within the (shorter) header timeout.
      stream.expires_after(options_.idle_timeout);
      size_t n = co_await stream.async_read_some(buffer.prepare(4096),
                                                 net::redirect_error(net::use_awaitable, ec));
      buffer.commit(n);
      if (ec) {
        break;
      }
    }
    stream.expires_after(options_.header_timeout);
    co_await http::async_read_header(stream, buffer, parser,
                                     net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      if (ec == http::error::body_limit) {
        // Content-Length above the limit: refused before a byte of the body is read.
        co_await reply_and_close(
            ErrorResponse(http::status::payload_too_large, "payload_too_large",
                          "request body exceeds " + std::to_string(options_.max_body) + " bytes"),
            11);
        if (metrics_) metrics_->ObserveRequest("unmatched", "", 413, 0);
      } else if (ec == http::error::header_limit) {
        co_await reply_and_close(ErrorResponse(http::status::request_header_fields_too_large,
                                               "header_too_large", "request header too large"),
                                 11);
      } else if (ec != http::error::end_of_stream && ec != beast::error::timeout &&
                 ec != net::error::operation_aborted && ec != net::error::eof &&
                 ec != net::error::connection_reset && ec != net::error::bad_descriptor) {
        co_await reply_and_close(
            ErrorResponse(http::status::bad_request, "bad_request", "malformed HTTP request"),
            11);
      }
      break;
    }
    conn.busy = true;
    auto started = std::chrono::steady_clock::now();
    auto& req = parser.get();
    const unsigned version = req.version();
    const bool head = req.method() == http::verb::head;

    if (!parser.is_done()) {
      if (beast::iequals(req[http::field::expect], "100-continue")) {
        http::response<http::empty_body> cont{http::status::continue_, version};
        co_await http::async_write(stream, cont, net::redirect_error(net::use_awaitable, ec));
        if (ec) break;
      }
      stream.expires_after(options_.body_timeout);
      co_await http::async_read(stream, buffer, parser,
                                net::redirect_error(net::use_awaitable, ec));
      if (ec == http::error::body_limit) {
        co_await reply_and_close(
            ErrorResponse(http::status::payload_too_large, "payload_too_large",
                          "request body exceeds " + std::to_string(options_.max_body) + " bytes"),
            version);
        break;
      }
      if (ec) {
        break;
      }
    }

    std::string_view route = "unmatched";
    Response response = co_await Dispatch(req, remote, route);
    const int status = static_cast<int>(response.status);
    const bool keep_alive = req.keep_alive() && !shutting_down_;
    std::string method(req.method_string());
    auto msg = ToMessage(std::move(response), version, keep_alive, head);
    if (metrics_) {
      // Observed before the write, so a client that has its answer sees it counted.
      std::chrono::duration<double> took = std::chrono::steady_clock::now() - started;
      metrics_->ObserveRequest(route, method, status, took.count());
    }
    stream.expires_after(options_.body_timeout);
    co_await http::async_write(stream, msg, net::redirect_error(net::use_awaitable, ec));
    if (ec || !keep_alive) {
      break;
    }
  }
  conn.busy = false;
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  stream.close();
  connections_.erase(&conn);
  MaybeDrained();
}

Awaitable<Response> Server::Dispatch(RawRequest& req, const std::string& remote,
                                     std::string_view& route) {
  std::string_view target = req.target();
  auto q = target.find('?');
  std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);

  Router::Match m = router_.Find(req.method(), path);
  route = m.pattern;
  if (m.kind == Router::Match::Kind::kNotFound) {
    co_return ErrorResponse(http::status::not_found, "not_found", "no such route");
  }
  if (m.kind == Router::Match::Kind::kMethodNotAllowed) {
    co_return ErrorResponse(http::status::method_not_allowed, "method_not_allowed",
                            std::string(req.method_string()) + " is not allowed here");
  }
  Request request{req, path, query, std::move(m.params), remote};
  if (IsWrite(req.method()) && !req.body().empty() && !request.HasJsonContentType()) {
    co_return ErrorResponse(http::status::unsupported_media_type, "unsupported_media_type",
                            "request body must be application/json");
  }
  try {
    co_return co_await (*m.handler)(request);
  } catch (const std::exception& e) {
    spdlog::error("handler {} {} threw: {}", req.method_string(), m.pattern, e.what());
  } catch (...) {
    spdlog::error("handler {} {} threw a non-exception", req.method_string(), m.pattern);
  }
  co_return ErrorResponse(http::status::internal_server_error, "internal", "internal error");
}

void Server::Shutdown(std::function<void()> on_drained, std::chrono::milliseconds deadline) {
  shutting_down_ = true;
  on_drained_ = std::move(on_drained);
  boost::system::error_code ec;
  acceptor_.close(ec);
  // Idle keep-alive connections are closed now; busy ones close after their response.
  for (Connection* c : connections_) {
    if (!c->busy) {
      c->stream->socket().cancel(ec);
    }
  }
  drain_timer_.expires_after(deadline);
  drain_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    for (Connection* c : connections_) {
      boost::system::error_code ignored;
      c->stream->socket().cancel(ignored);
      c->stream->socket().close(ignored);
    }
  });
  net::post(ioc_, [this] { MaybeDrained(); });
}

void Server::MaybeDrained() {
  if (shutting_down_ && connections_.empty() && on_drained_) {
    drain_timer_.cancel();
    auto fn = std::move(on_drained_);
    on_drained_ = nullptr;
    fn();
  }
}

}  // namespace plaudit::http_api
