#include "http/server.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>

#include "http/csrf.hpp"
#include "http/errors.hpp"
#include "http/forwarded.hpp"
#include "http/framing.hpp"
#include "http/wire.hpp"

namespace plaudit::http {

using Clock = std::chrono::steady_clock;

// Per-connection state the server needs to see during shutdown and for timeouts.
struct Server::Connection {
  tcp::socket* socket = nullptr;
  bool busy = false;     // between reading a request's header and writing its response
  bool evicted = false;  // closed to make room for a new client
  bool waiting = false;  // in waiting_, at waiting_pos
  std::list<Connection*>::iterator waiting_pos;
  // When the current read or write must have finished; the sweep closes the connection
  // after it. max() while a handler runs (handlers bound their own waits).
  Clock::time_point deadline = Clock::time_point::max();
};

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

bool Server::EvictOneWaiting() {
  if (waiting_.empty()) {
    return false;
  }
  Connection* victim = waiting_.front();
  waiting_.pop_front();
  victim->waiting = false;
  victim->evicted = true;
  ++evicted_live_;
  // Fails its pending read with operation_aborted; its loop then ends and counts it gone.
  boost::system::error_code ignored;
  victim->socket->close(ignored);
  return true;
}

void Server::RefuseConnection(tcp::socket& socket) {
  static constexpr std::string_view kBusy =
      "HTTP/1.1 503 Service Unavailable\r\n"
      "Content-Type: application/json; charset=utf-8\r\n"
      "Retry-After: 1\r\n"
      "X-Content-Type-Options: nosniff\r\n"
      "Connection: close\r\n"
      "Content-Length: 84\r\n\r\n"
      R"({"error":{"code":"unavailable","message":"too many connections; retry in a moment"}})";
  static_assert(kBusy.size() - kBusy.find("\r\n\r\n") - 4 == 84);
  boost::system::error_code ec;
  socket.write_some(net::buffer(kBusy.data(), kBusy.size()), ec);  // best effort, never waits
  socket.shutdown(tcp::socket::shutdown_send, ec);
  socket.close(ec);
}

void Server::NoteCapHit(bool evicted) {
  if (metrics_) {
    metrics_->CountConnectionCap(evicted);
  }
  ++(evicted ? evicted_since_log_ : refused_since_log_);
  const auto now = Clock::now();
  // Once, then at most once a minute with what happened since.
  if (cap_logged_at_ != Clock::time_point{} && now - cap_logged_at_ < std::chrono::minutes(1)) {
    return;
  }
  cap_logged_at_ = now;
  spdlog::warn(
      "connection cap of {} reached (--max-connections): {} waiting connection(s) closed to make "
      "room, {} new one(s) refused with 503 since the last such line",
      options_.max_connections, evicted_since_log_, refused_since_log_);
  evicted_since_log_ = refused_since_log_ = 0;
}

void Server::MarkWaiting(Connection& conn) {
  if (conn.waiting || conn.evicted) {
    return;
  }
  conn.waiting_pos = waiting_.insert(waiting_.end(), &conn);
  conn.waiting = true;
}

void Server::MarkBusy(Connection& conn) {
  if (!conn.waiting) {
    return;
  }
  waiting_.erase(conn.waiting_pos);
  conn.waiting = false;
}

namespace {

// A body is read only for the methods that send one to this API.
bool TakesBody(beast::http::verb method) {
  return method == beast::http::verb::post || method == beast::http::verb::put ||
         method == beast::http::verb::patch;
}

// Gives a body's reserved bytes back when its request is done, whichever way.
class BodyReservation {
 public:
  BodyReservation(size_t& total, size_t bytes) : total_(total), bytes_(bytes) { total_ += bytes; }
  ~BodyReservation() { total_ -= bytes_; }
  BodyReservation(const BodyReservation&) = delete;
  BodyReservation& operator=(const BodyReservation&) = delete;

 private:
  size_t& total_;
  size_t bytes_;
};

// Hands the buffered bytes to the parser. need_more comes back as a clear `ec` with the
// parser not yet at `want_done` (the header, or the whole message): read more and call again.
void Feed(RequestParser& parser, beast::flat_buffer& buffer, bool whole_message,
          boost::system::error_code& ec) {
  while (buffer.size() > 0 && !(whole_message ? parser.is_done() : parser.is_header_done())) {
    size_t used = parser.put(buffer.data(), ec);
    buffer.consume(used);
    if (ec == beast::http::error::need_more) {
      ec = {};
      return;
    }
    if (ec) {
      return;
    }
  }
}

// Writes what it can without waiting; returns how many bytes went out.
size_t SendNow(tcp::socket& socket, std::string_view bytes, std::string_view tail,
               boost::system::error_code& ec) {
  const std::array<net::const_buffer, 2> both{net::buffer(bytes.data(), bytes.size()),
                                              net::buffer(tail.data(), tail.size())};
  size_t sent = socket.write_some(both, ec);
  if (ec == net::error::would_block || ec == net::error::try_again) {
    ec = {};
  }
  return sent;
}

}  // namespace

Awaitable<void> Server::WriteResponse(Connection& conn, std::string bytes,
                                      boost::system::error_code& ec,
                                      std::shared_ptr<const std::string> keep,
                                      std::string_view tail) {
  // `tail` (a shared body) lives in `keep` until the write is done.
  size_t sent = SendNow(*conn.socket, bytes, tail, ec);
  if (ec || sent == bytes.size() + tail.size()) {
    co_return;
  }
  // The peer's window is full: wait for it, under the body timeout.
  conn.deadline = Clock::now() + options_.body_timeout;
  if (sent < bytes.size()) {
    const std::array<net::const_buffer, 2> rest{
        net::buffer(bytes.data() + sent, bytes.size() - sent),
        net::buffer(tail.data(), tail.size())};
    co_await net::async_write(*conn.socket, rest, net::redirect_error(net::use_awaitable, ec));
  } else {
    const size_t into_tail = sent - bytes.size();
    co_await net::async_write(*conn.socket,
                              net::buffer(tail.data() + into_tail, tail.size() - into_tail),
                              net::redirect_error(net::use_awaitable, ec));
  }
}

Awaitable<void> Server::ReplyAndClose(Connection& conn, Response response, unsigned version) {
  boost::system::error_code ec;
  const std::string_view tail = BodyAfterHead(response, false);
  co_await WriteResponse(conn, SerializeResponse(response, version, false, false), ec,
                         response.shared_body, tail);
}

// Until the parser has the header (or, `whole`, the message); a parse error comes back in
// `ec`. False when the connection failed (closed, reset, timed out, cancelled): nothing to
// answer. The header's first bytes move its deadline from the idle to the header timeout.
Awaitable<bool> Server::ReadMessage(Connection& conn, RequestParser& parser,
                                    beast::flat_buffer& buffer, bool whole,
                                    boost::system::error_code& ec) {
  bool begun = whole || buffer.size() > 0;
  while (true) {
    Feed(parser, buffer, whole, ec);
    if (ec || (whole ? parser.is_done() : parser.is_header_done())) {
      co_return true;
    }
    size_t n = co_await conn.socket->async_read_some(buffer.prepare(4096),
                                                     net::redirect_error(net::use_awaitable, ec));
    buffer.commit(n);
    if (ec) {
      co_return false;
    }
    if (!begun) {
      begun = true;
      conn.deadline = Clock::now() + options_.header_timeout;
    }
  }
}

Response Server::ParseErrorResponse(const boost::system::error_code& ec) const {
  if (ec == beast::http::error::body_limit) {
    // A Content-Length above the limit is refused before a byte of the body is read.
    return ErrorResponse(HttpError::kPayloadTooLarge,
                         "request body exceeds " + std::to_string(options_.max_body) + " bytes");
  }
  if (ec == beast::http::error::header_limit) {
    return ErrorResponse(HttpError::kHeaderTooLarge, "request header too large");
  }
  return ErrorResponse(HttpError::kMalformed, "malformed HTTP request");
}

Awaitable<void> Server::Serve(tcp::socket socket) {
  Connection conn;
  conn.socket = &socket;
  connections_.insert(&conn);
  std::string remote;
  {
    boost::system::error_code ec;
    auto ep = socket.remote_endpoint(ec);
    if (!ec) {
      remote = ep.address().to_string();
    }
  }
  beast::flat_buffer buffer;
  boost::system::error_code ec;

  while (!shutting_down_) {
    RequestParser parser;
    parser.header_limit(static_cast<std::uint32_t>(options_.max_header));
    parser.body_limit(options_.max_body);
    conn.busy = false;
    MarkWaiting(conn);
    // The header: the keep-alive wait for its first bytes is under the idle timeout, the
    // rest under the (shorter) header timeout. Bytes already buffered (a pipelined request)
    // are parsed without waiting.
    conn.deadline =
        Clock::now() + (buffer.size() > 0 ? options_.header_timeout : options_.idle_timeout);
    bool connected = co_await ReadMessage(conn, parser, buffer, /*whole=*/false, ec);
    if (!connected) {
      break;
    }
    if (ec) {
      Response refusal = ParseErrorResponse(ec);
      // A 413 for a Content-Length comes once every field is parsed (the parser is not yet
      // "header done"): a widget may read it if its origin is allowed. After other errors an
      // Origin field, if one was parsed, is whole too.
      cors_.Apply(parser.get(), refusal);
      co_await ReplyAndClose(conn, std::move(refusal), 11);
      if (ec == beast::http::error::body_limit && metrics_) {
        metrics_->ObserveRequest("unmatched", beast::http::verb::unknown, 413, 0);
      }
      break;
    }
    conn.busy = true;
    MarkBusy(conn);
    auto started = Clock::now();
    auto& req = parser.get();
    const unsigned version = req.version();
    const bool head = req.method() == beast::http::verb::head;
    // A body whose length cannot be known is never read, and nothing after it is parsed.
    if (const Framing framing = TransferFraming(req);
        framing == Framing::kUnknowable || framing == Framing::kUnsupported) {
      const bool unknowable = framing == Framing::kUnknowable;
      // Named, not a ?: inside the co_await (GCC 12 destroys such temporaries twice).
      Response refusal;
      if (unknowable) {
        refusal = ErrorResponse(HttpError::kMalformed, "Transfer-Encoding must end in chunked");
      } else {
        refusal = ErrorResponse(HttpError::kNotImplemented,
                                "only the chunked transfer coding is supported");
      }
      cors_.Apply(req, refusal);
      co_await ReplyAndClose(conn, std::move(refusal), version);
      if (metrics_) {
        metrics_->ObserveRequest("unmatched", req.method(), unknowable ? 400 : 501, 0);
      }
      break;
    }

    // A body is reserved from the budget before its first byte is read; one for a route that
    // takes none is not read at all (the answer closes the connection instead).
    std::optional<BodyReservation> reservation;
    bool skip_body = false;
    if (!parser.is_done()) {
      const auto target = req.target();
      const auto path = target.substr(0, target.find('?'));
      skip_body = !TakesBody(req.method()) ||
                  router_.Find(req.method(), path).kind != Router::Match::Kind::kFound;
      if (!skip_body) {
        const auto length = parser.content_length();
        const size_t want =
            length ? static_cast<size_t>(std::min<uint64_t>(*length, options_.max_body))
                   : options_.max_body;
        if (body_bytes_ + want > options_.body_budget) {
          Response refusal = ErrorResponse(Error{
              ErrorCode::kUnavailable, "too many request bodies in flight; retry in a moment"});
          refusal.headers.emplace_back("Retry-After", "1");
          cors_.Apply(req, refusal);
          co_await ReplyAndClose(conn, std::move(refusal), version);
          if (metrics_) {
            metrics_->CountBodyRefused();
            metrics_->ObserveRequest("unmatched", req.method(), 503, 0);
          }
          break;
        }
        reservation.emplace(body_bytes_, want);
      }
    }
    if (!parser.is_done() && !skip_body) {
      if (beast::iequals(req[beast::http::field::expect], "100-continue")) {
        const char* cont =
            version == 10 ? "HTTP/1.0 100 Continue\r\n\r\n" : "HTTP/1.1 100 Continue\r\n\r\n";
        co_await WriteResponse(conn, cont, ec);
        if (ec) {
          break;
        }
      }
      conn.deadline = Clock::now() + options_.body_timeout;
      parser.eager(true);
      connected = co_await ReadMessage(conn, parser, buffer, /*whole=*/true, ec);
      if (!connected) {
        break;
      }
      if (ec) {
        Response refusal = ParseErrorResponse(ec);
        cors_.Apply(req, refusal);
        co_await ReplyAndClose(conn, std::move(refusal), version);
        break;
      }
    }

    conn.deadline = Clock::time_point::max();
    std::string_view route = "unmatched";
    Response response = co_await Dispatch(req, remote, route);
    cors_.Apply(req, response);  // on errors too: a widget must read them
    const int status = static_cast<int>(response.status);
    // An unread body would be parsed as the next request: close after the answer.
    const bool keep_alive = req.keep_alive() && !shutting_down_ && !skip_body;
    if (metrics_) {
      // Observed before the write, so a client that has its answer sees it counted.
      std::chrono::duration<double> took = Clock::now() - started;
      metrics_->ObserveRequest(route, req.method(), status, took.count());
    }
    const std::string_view tail = BodyAfterHead(response, head);
    co_await WriteResponse(conn, SerializeResponse(response, version, keep_alive, head), ec,
                           response.shared_body, tail);
    if (ec || !keep_alive) {
      break;
    }
  }
  conn.busy = false;
  MarkBusy(conn);  // out of waiting_
  if (conn.evicted) {
    --evicted_live_;
  }
  --live_;
  if (metrics_) {
    metrics_->SetOpenConnections(live_ - evicted_live_);
  }
  socket.shutdown(tcp::socket::shutdown_send, ec);
  socket.close(ec);
  connections_.erase(&conn);
  MaybeDrained();
}

Awaitable<Response> Server::Dispatch(RawRequest& req, const std::string& remote,
                                     std::string_view& route) {
  std::string_view target = req.target();
  auto q = target.find('?');
  std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);

  if (CorsPolicy::IsPreflight(req, path)) {
    route = "preflight";
    co_return cors_.Preflight(req);
  }
  Router::Match m = router_.Find(req.method(), path);
  route = m.pattern;
  if (m.kind == Router::Match::Kind::kNotFound) {
    co_return ErrorResponse(HttpError::kNoRoute, "no such route");
  }
  if (m.kind == Router::Match::Kind::kMethodNotAllowed) {
    co_return ErrorResponse(HttpError::kMethodNotAllowed,
                            std::string(req.method_string()) + " is not allowed here");
  }
  ClientEndpoint client = ClientOf(req, remote, options_.trusted_proxies, options_.proxy_header);
  Request request{req,
                  path,
                  query,
                  std::move(m.params),
                  std::move(client.address),
                  client.https,
                  std::move(client.host)};
  if (IsCrossSiteWrite(request, cors_.sites())) {
    co_return ErrorResponse(HttpError::kCrossSite,
                            "cross-site request refused: the Origin is neither this server nor "
                            "one of its --sites");
  }
  if (IsWriteMethod(req.method()) && !req.body().empty() && !request.HasJsonContentType() &&
      m.body == BodyKind::kJson) {
    co_return ErrorResponse(HttpError::kUnsupportedMediaType,
                            "request body must be application/json");
  }
  try {
    co_return co_await (*m.handler)(request);
  } catch (const std::exception& e) {
    spdlog::error("handler {} {} threw: {}", req.method_string(), m.pattern, e.what());
  } catch (...) {
    spdlog::error("handler {} {} threw a non-exception", req.method_string(), m.pattern);
  }
  co_return ErrorResponse(Error{ErrorCode::kInternal, "the handler threw (logged above)"});
}

void Server::Shutdown(std::function<void()> on_drained, std::chrono::milliseconds deadline) {
  shutting_down_ = true;
  on_drained_ = std::move(on_drained);
  boost::system::error_code ec;
  acceptor_.close(ec);
  // Idle keep-alive connections are closed now; busy ones close after their response.
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
