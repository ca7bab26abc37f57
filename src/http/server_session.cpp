// One connection's loop (the design is in server.hpp): a request's header under the idle then
// the header timeout, its framing checked, its body reserved from the body budget and read (or
// left unread and the connection closed after the answer), the answer written, and keep-alive.
#include <algorithm>
#include <optional>

#include "http/errors.hpp"
#include "http/framing.hpp"
#include "http/server_detail.hpp"
#include "http/wire.hpp"

namespace plaudit::http {
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

}  // namespace

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
    if (response.stream) {
      if (metrics_) {
        std::chrono::duration<double> took = Clock::now() - started;
        metrics_->ObserveRequest(route, req.method(), status, took.count());
      }
      co_await Stream(conn, std::move(response), version, head);
      break;  // a stream ends its connection
    }
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

}  // namespace plaudit::http
