// A streaming response (event_stream.hpp) on one connection: the head, then the stream's
// bytes until it ends. Part of Server (server_detail.hpp lists the files).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "http/server_detail.hpp"
#include "http/wire.hpp"

namespace plaudit::http {

Awaitable<void> Server::Stream(Connection& conn, Response response, unsigned version, bool head) {
  const std::shared_ptr<EventStream> stream = response.stream;
  boost::system::error_code ec;
  // The head of a stream: no Content-Length, and the connection is not kept.
  std::string bytes = SerializeResponse(response, version, /*keep_alive=*/false, head);
  conn.deadline = Clock::now() + options_.body_timeout;
  co_await WriteResponse(conn, std::move(bytes), ec);
  if (head || ec || shutting_down_) {
    stream->Close();
    co_return;
  }
  streams_.insert(stream.get());
  // A reader whose network went (a phone out of range) acknowledges nothing; the heartbeats
  // still fit in the send buffer, so without this its slot would be held until TCP's own
  // retransmissions give up (~15 minutes). With it, written bytes unacknowledged for a
  // minute end the connection (two heartbeats).
  {
    const int timeout_ms = 60'000;
    ::setsockopt(conn.socket->native_handle(), IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout_ms,
                 sizeof(timeout_ms));
  }
  // A reader that closes its end (or sends anything: a stream reads nothing) ends the stream
  // now, not at the next heartbeat's write: its slot under the stream caps comes back at once.
  conn.socket->async_wait(net::socket_base::wait_read,
                          [stream](const boost::system::error_code& wait_ec) {
                            if (!wait_ec) {
                              stream->Close();
                            }
                          });
  while (!ec) {
    // No deadline while waiting for the producer: an idle stream is what it is for; the
    // producer's heartbeats find a client that went.
    conn.deadline = Clock::time_point::max();
    std::string next = co_await stream->Next();
    if (next.empty()) {
      break;
    }
    // A reader that does not take a write within the body timeout is closed (the sweep),
    // not buffered for without bound.
    conn.deadline = Clock::now() + options_.body_timeout;
    co_await WriteResponse(conn, std::move(next), ec);
  }
  conn.deadline = Clock::time_point::max();
  streams_.erase(stream.get());
  stream->Close();
  boost::system::error_code ignored;
  conn.socket->cancel(ignored);  // the wait above, if it is still pending
}

}  // namespace plaudit::http
