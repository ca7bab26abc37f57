#pragma once
// A text/event-stream reader for tests (API.md "Live updates"): one connection, the request
// sent, the answer's head read, then events one at a time, each wait bounded.
#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio.hpp>
#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace plaudit::testing {

struct SseEvent {
  std::string id;     // "" when the event has none
  std::string event;  // "message" when unnamed
  std::string data;
};

class SseReader {
 public:
  // Connects to 127.0.0.1:`port` and asks for `target` (with `last_event_id` when given).
  SseReader(uint16_t port, const std::string& target, const std::string& last_event_id = "")
      : socket_(ioc_) {
    socket_.connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::address_v4::loopback(), port));
    std::string req =
        "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n";
    if (!last_event_id.empty()) {
      req += "Last-Event-ID: " + last_event_id + "\r\n";
    }
    req += "\r\n";
    boost::asio::write(socket_, boost::asio::buffer(req));
    SetTimeout(std::chrono::seconds(5));
    while (buffer_.find("\r\n\r\n") == std::string::npos && Fill()) {
    }
    const size_t end = buffer_.find("\r\n\r\n");
    if (end != std::string::npos) {
      head_ = buffer_.substr(0, end);
      buffer_.erase(0, end + 4);
      status_ = std::stoi(head_.substr(9, 3));
    }
  }

  int status() const { return status_; }
  const std::string& head() const { return head_; }
  // For an answer that is no stream: what followed the head (its JSON body, for an error).
  std::string Rest() {
    SetTimeout(std::chrono::seconds(2));
    while (Fill()) {
    }
    return buffer_;
  }

  // The next event within `timeout` (comments and retry lines skipped); nullopt when none
  // came, or the server closed the stream.
  std::optional<SseEvent> Next(std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const size_t end = buffer_.find("\n\n");
      if (end != std::string::npos) {
        const std::string frame = buffer_.substr(0, end);
        buffer_.erase(0, end + 2);
        if (auto e = Parse(frame)) {
          return e;
        }
        continue;
      }
      const auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::milliseconds(0)) {
        return std::nullopt;
      }
      SetTimeout(std::chrono::duration_cast<std::chrono::milliseconds>(left));
      if (!Fill()) {
        return std::nullopt;
      }
    }
  }
  // Whether the server ended the stream within `timeout`.
  bool Closed(std::chrono::milliseconds timeout) {
    SetTimeout(timeout);
    while (true) {
      char buf[4096];
      const ssize_t n = ::recv(socket_.native_handle(), buf, sizeof buf, 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) {
        return true;
      }
      if (n < 0) {
        return false;
      }
      buffer_.append(buf, static_cast<size_t>(n));
      raw_.append(buf, static_cast<size_t>(n));
    }
  }
  // Every byte received so far, the head included: what the stream carried, parsed or not.
  const std::string& raw() const { return raw_; }
  void Close() {
    boost::system::error_code ec;
    socket_.close(ec);
  }

 private:
  static std::optional<SseEvent> Parse(const std::string& frame) {
    SseEvent e;
    e.event = "message";
    bool any = false;
    size_t at = 0;
    while (at <= frame.size()) {
      size_t nl = frame.find('\n', at);
      if (nl == std::string::npos) {
        nl = frame.size();
      }
      const std::string line = frame.substr(at, nl - at);
      at = nl + 1;
      if (line.empty() || line[0] == ':') {
        continue;
      }
      const size_t colon = line.find(':');
      const std::string field = line.substr(0, colon);
      std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
      if (!value.empty() && value[0] == ' ') {
        value.erase(0, 1);
      }
      if (field == "id") {
        e.id = value;
      } else if (field == "event") {
        e.event = value;
        any = true;
      } else if (field == "data") {
        e.data += value;
        any = true;
      }
    }
    return any ? std::optional<SseEvent>(e) : std::nullopt;
  }
  void SetTimeout(std::chrono::milliseconds t) {
    timeval tv{static_cast<time_t>(t.count() / 1000),
               static_cast<suseconds_t>((t.count() % 1000) * 1000)};
    if (tv.tv_sec == 0 && tv.tv_usec == 0) {
      tv.tv_usec = 1000;
    }
    ::setsockopt(socket_.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  // recv(2) itself, not asio's read_some: asio waits in poll(2) and ignores SO_RCVTIMEO.
  bool Fill() {
    char buf[4096];
    const ssize_t n = ::recv(socket_.native_handle(), buf, sizeof buf, 0);
    if (n <= 0) {
      return false;
    }
    buffer_.append(buf, static_cast<size_t>(n));
    raw_.append(buf, static_cast<size_t>(n));
    return true;
  }

  boost::asio::io_context ioc_;
  boost::asio::ip::tcp::socket socket_;
  std::string buffer_;
  std::string raw_;
  std::string head_;
  int status_ = 0;
};

}  // namespace plaudit::testing
