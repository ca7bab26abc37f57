// Bytes on a connection's socket (the design is in server.hpp): the reads that feed Beast's
// parser, with no asynchronous operation while the bytes are already buffered, and the writes
// of a response, one non-blocking send(2) when the socket takes it all.
#include <array>

#include "http/errors.hpp"
#include "http/server_detail.hpp"
#include "http/wire.hpp"

namespace plaudit::http {
namespace {

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

}  // namespace plaudit::http
