#pragma once
// The HTTP/1.1 server: accept loop, one coroutine per connection with keep-alive, read
// timeouts and size caps, dispatch through the Router, and a graceful drain on shutdown.
//
// Why the header is read before the body: an oversized request is refused (413) as soon as
// its Content-Length shows it, without reading a byte of the body.
//
// Why the connection loop drives Beast's parser itself, on a plain socket: a request whose
// bytes are already buffered is parsed with no asynchronous operation at all, and a response
// is one non-blocking send(2), so a keep-alive request costs one asynchronous read. Timeouts
// are a deadline per connection that one sweep timer enforces, instead of a timer started
// and cancelled around every read and write (beast::tcp_stream). Together these took about
// 8% off plauditd's CPU per like (30.7 -> 28.2 us in an A/B of two builds, 2026-11-30),
// and /healthz went from 0.87x to 1.06x the hello server (docs/benchmarks.md).
//
// What a stranger's connections may hold (issue 41): at most max_connections sockets, and at
// the cap a new client takes the place of the connection that has waited longest without a
// request in progress (thousands of idle or trickling sockets cannot keep a real client out;
// when every connection is busy the newcomer gets a fast 503). Bodies are read only for
// POST/PUT/PATCH on a route that exists, and only while the bytes of all bodies in flight stay
// within body_budget (a request's Content-Length, or max_body for a chunked one, is reserved
// before its first byte is read; beyond the budget: 503 and close). So bodies in flight hold
// at most body_budget, plus per connection its header (max_header) and a 4 KiB read buffer.
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <string>
#include <unordered_set>

#include "common/address_set.hpp"
#include "common/net.hpp"
#include "common/result.hpp"
#include "common/web_origin.hpp"
#include "http/cors.hpp"
#include "http/event_stream.hpp"
#include "http/forwarded.hpp"
#include "http/metrics.hpp"
#include "http/router.hpp"

namespace plaudit::http {

struct ServerOptions {
  net::ip::address host = net::ip::address_v4::loopback();
  uint16_t port = 8080;
  size_t max_body = 1 << 20;
  size_t max_header = size_t{16} * 1024;
  std::chrono::milliseconds header_timeout{10'000};  // to read a request's header once begun
  std::chrono::milliseconds body_timeout{10'000};    // to read a request's body
  std::chrono::milliseconds idle_timeout{60'000};    // keep-alive wait for the next request
  SiteList sites;              // origins answered with CORS headers, and let past the CSRF check
  AddressSet trusted_proxies;  // peers whose forwarding headers name the client (forwarded.hpp)
  ProxyHeader proxy_header = ProxyHeader::kXForwarded;  // which headers they write
  size_t max_connections = 0;                           // open connections at most (0: no cap)
  size_t body_budget = 32u << 20;  // bytes of request bodies being read, all connections
  // Requests whose handlers run at once, at most (0: no bound). Beyond it a request is answered
  // 503 with Retry-After at once, its handler not run, rather than queued behind the others
  // (the ops routes, /healthz, /readyz and /metrics, are never shed).
  size_t max_in_flight = 0;
};

using RequestParser = beast::http::request_parser<beast::http::string_body>;

class Server {
 public:
  Server(net::io_context& ioc, ServerOptions options, const Router& router, Metrics* metrics);

  // Binds and listens (SO_REUSEADDR). Fails with kUnavailable when the address is taken.
  Status Listen();
  uint16_t port() const { return port_; }
  // Starts the accept loop on the io_context. Listen() first.
  void Start();
  // Stops accepting and closes idle connections; requests in flight finish and their
  // connections close after the response. Calls on_drained once no connection is left
  // (or after `deadline`, closing what is left).
  void Shutdown(std::function<void()> on_drained,
                std::chrono::milliseconds deadline = std::chrono::seconds(10));
  size_t open_connections() const { return connections_.size(); }
  // Streaming responses being written now (event_stream.hpp).
  size_t open_streams() const { return streams_.size(); }
  // Bytes reserved by the bodies being read now.
  size_t body_bytes_in_flight() const { return body_bytes_; }
  // Requests whose handlers are running now.
  size_t requests_in_flight() const { return in_flight_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Connection;  // server_detail.hpp, with the file each part below lives in

  Awaitable<void> Accept();
  // Closes connections past their deadline; re-arms itself until the server has drained.
  void ArmSweep();
  void Sweep();
  void MaybeDrained();

  // At the connection cap: closes the connection waiting longest without a request in
  // progress and returns true, or returns false when every connection is busy.
  bool EvictOneWaiting();
  // Answers a connection over the cap with a fixed 503 and closes it, without reading.
  void RefuseConnection(tcp::socket& socket);
  void NoteCapHit(bool evicted);
  void MarkWaiting(Connection& conn);
  void MarkBusy(Connection& conn);

  // Sends `bytes`, then `tail` (a shared body that `keep` holds), in place if the socket takes
  // them all (the usual case), else waits.
  Awaitable<void> WriteResponse(Connection& conn, std::string bytes, boost::system::error_code& ec,
                                std::shared_ptr<const std::string> keep = nullptr,
                                std::string_view tail = {});
  Awaitable<void> ReplyAndClose(Connection& conn, Response response, unsigned version);
  Awaitable<bool> ReadMessage(Connection& conn, RequestParser& parser, beast::flat_buffer& buffer,
                              bool whole, boost::system::error_code& ec);
  // 413, 431 or 400 for a request the parser refused.
  Response ParseErrorResponse(const boost::system::error_code& ec) const;

  Awaitable<void> Serve(tcp::socket socket);
  // Writes a streaming response (event_stream.hpp) until it ends, the client goes, a write
  // outlasts the body timeout, or the server shuts down (server_stream.cpp).
  Awaitable<void> Stream(Connection& conn, Response response, unsigned version, bool head);
  // Routes the request: a CORS preflight, 404/405, a cross-site cookie write (403), a body
  // that is not JSON (415), or the route's handler. The caller adds the CORS headers.
  Awaitable<Response> Dispatch(RawRequest& req, const std::string& remote, std::string_view& route);

  net::io_context& ioc_;
  ServerOptions options_;
  const Router& router_;
  Metrics* metrics_;
  CorsPolicy cors_;
  tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  bool shutting_down_ = false;
  std::unordered_set<Connection*> connections_;
  std::unordered_set<EventStream*> streams_;  // closed by Shutdown
  // Accepted and not yet ended (their Serve may not have started yet), and of those the ones
  // closed to make room that have not ended yet.
  size_t live_ = 0;
  size_t evicted_live_ = 0;
  // Connections without a request in progress, the one waiting longest first.
  std::list<Connection*> waiting_;
  size_t body_bytes_ = 0;
  size_t in_flight_ = 0;  // handlers running (one thread runs the io_context: no atomics)
  std::chrono::steady_clock::time_point cap_logged_at_{};
  uint64_t evicted_since_log_ = 0;
  uint64_t refused_since_log_ = 0;
  std::function<void()> on_drained_;
  net::steady_timer drain_timer_;
  net::steady_timer sweep_timer_;
  std::chrono::milliseconds sweep_period_;
};

}  // namespace plaudit::http
