// The connection cap (issue 41; the design is in server.hpp): at max_connections a newcomer
// takes the place of the connection that has waited longest without a request in progress, or
// is refused with a fixed 503 when every connection is busy. The waiting list kept for that,
// and the log line that says the cap was hit.
#include <spdlog/spdlog.h>

#include "http/server_detail.hpp"

namespace plaudit::http {

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

}  // namespace plaudit::http
