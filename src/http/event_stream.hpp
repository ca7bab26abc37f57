#pragma once
// A response that does not end with its body: Server-Sent Events (text/event-stream, API.md
// "Live updates"). A handler returns a Response whose `stream` is set; the server writes the
// head (no Content-Length, Connection: close), then whatever Next() gives, each write bounded
// by the body timeout (a reader that stops reading is closed, not queued for), until Next()
// gives "" or the client goes (its end closed, seen at once: the server waits to read). Shutdown
// closes every open stream, so a drain never waits on one. The producer's side (what is sent,
// heartbeats, per-stream bounds) is the stream's own.
#include <string>

#include "common/result.hpp"

namespace plaudit::http {

class EventStream {
 public:
  virtual ~EventStream() = default;
  // The next bytes to send, waiting for them; "" once the stream has ended.
  virtual Awaitable<std::string> Next() = 0;
  // Ends the stream: a waiting Next() gives "" soon after (not from inside Close). May be called
  // more than once, and after the end.
  virtual void Close() = 0;
};

}  // namespace plaudit::http
