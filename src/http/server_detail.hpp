#pragma once
// Private to the Server files (src/http/server*.cpp): the per-connection state they all touch.
// The design is in server.hpp; Server is written in six files, one concern each:
//   server.cpp                 its life: listening, the accept loop, the deadline sweep, and
//                              the drain on shutdown;
//   server_connection_cap.cpp  the connection cap (issue 41): who is closed or refused at it,
//                              and the list of connections waiting without a request;
//   server_io.cpp              bytes on the socket: reading into the parser, writing a
//                              response in place when the socket takes it;
//   server_session.cpp         one connection's loop: header, framing, body budget, body,
//                              answer, keep-alive;
//   server_dispatch.cpp        a parsed request routed to its handler (or refused first);
//   server_stream.cpp          a streaming response (event_stream.hpp) written until it ends.
#include <list>

#include "http/server.hpp"

namespace plaudit::http {

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

}  // namespace plaudit::http
