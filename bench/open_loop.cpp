// An open-loop HTTP/1.1 load generator, for issue 50's "2x the measured capacity" figures
// (bench/open_loop.py drives it).
//
// wrk is closed-loop: each connection sends its next request only when the last one came back,
// so an overloaded server slows down its own load and a 503 makes the next request come at
// once. Here requests fall due at a fixed rate whatever the server does. --connections
// keep-alive connections are opened first; a due request goes out on an idle one, and when none
// is free it waits in a local queue (at most one second of requests; older ones are dropped and
// counted), and its latency is counted from when it fell due, not from when it was sent, so a
// server that holds requests back cannot hide it (no coordinated omission).
//
//   bench_open_loop --port P --rate R --seconds S [--connections M] [--method GET|PUT|...]
//                   [--target /path] [--tokens FILE] [--alternate DELETE] [--body JSON]
//
// --tokens: bearer tokens one per line, request i uses token i mod n; --alternate: every other
// request with this method (a like, then an unlike); --body: a JSON body sent with each request,
// "{n}" in it replaced by the request's number (so comment texts differ). Prints one JSON
// object: what fell due, what was answered 2xx (goodput), 503 (shed) or otherwise, I/O errors,
// dropped requests, and the latency percentiles of the 2xx and the 503 answers, counted from
// when each fell due; and of the 2xx counted from when each was sent (the server's part: the
// rest is the time a due request waited here for a free connection).
#include <algorithm>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  uint16_t port = 0;
  double rate = 1000;
  double seconds = 10;
  int connections = 1024;
  std::string method = "GET";
  std::string alternate;
  std::string target = "/healthz";
  std::string body;
  std::vector<std::string> tokens;
};

struct Tally {
  int64_t due = 0, ok = 0, shed = 0, other = 0, errors = 0, dropped = 0;
  std::vector<double> ok_ms, shed_ms, ok_sent_ms;
};

struct Worker {
  explicit Worker(net::io_context& io) : socket(io), wake(io) {}
  tcp::socket socket;
  net::steady_timer wake;
  beast::flat_buffer buffer;
  bool connected = false;
};

class Generator {
 public:
  Generator(net::io_context& io, Options o)
      : io_(io),
        o_(std::move(o)),
        ticker_(io),
        endpoint_(net::ip::address_v4::loopback(), o_.port) {}

  // Every connection is opened first (a server busy with the load accepts late, and a
  // request's wait for that would be counted as the server's), then requests fall due.
  void Start() {
    start_ = end_ = Clock::time_point::max();
    for (; workers_ < o_.connections; ++workers_) {
      net::co_spawn(io_, Run(std::make_shared<Worker>(io_)), net::detached);
    }
    ticker_.expires_after(std::chrono::milliseconds(10));
    ticker_.async_wait([this](boost::system::error_code ec) {
      if (!ec) {
        WaitConnected(Clock::now() + std::chrono::seconds(10));
      }
    });
  }

  const Tally& tally() const { return tally_; }
  int connections() const { return workers_; }

 private:
  Clock::time_point DueAt(int64_t n) const {
    return start_ + std::chrono::duration_cast<Clock::duration>(
                        std::chrono::duration<double>(static_cast<double>(n) / o_.rate));
  }

  void WaitConnected(Clock::time_point give_up) {
    if (connected_ < o_.connections && Clock::now() < give_up) {
      ticker_.expires_after(std::chrono::milliseconds(10));
      ticker_.async_wait([this, give_up](boost::system::error_code ec) {
        if (!ec) {
          WaitConnected(give_up);
        }
      });
      return;
    }
    start_ = Clock::now();
    end_ = start_ +
           std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o_.seconds));
    Tick();
  }

  void Tick() {
    const auto now = Clock::now();
    while (DueAt(tally_.due) <= now && DueAt(tally_.due) < end_) {
      queue_.push_back({DueAt(tally_.due), tally_.due});
      ++tally_.due;
    }
    const auto cap = static_cast<size_t>(std::max(1.0, o_.rate));
    while (queue_.size() > cap) {  // a second's worth: the rest could only come back late
      queue_.pop_front();
      ++tally_.dropped;
    }
    size_t waiting = queue_.size();
    while (waiting > 0 && !idle_.empty()) {
      idle_.back()->wake.cancel();
      idle_.pop_back();
      --waiting;
    }
    if (now >= end_ + std::chrono::seconds(2)) {  // the last answers' grace
      stopping_ = true;
      for (Worker* w : idle_) {
        w->wake.cancel();
      }
      io_.stop();
      return;
    }
    ticker_.expires_after(std::chrono::microseconds(500));
    ticker_.async_wait([this](boost::system::error_code ec) {
      if (!ec) {
        Tick();
      }
    });
  }

  std::string RequestFor(int64_t n) const {
    const std::string& method = !o_.alternate.empty() && n % 2 == 1 ? o_.alternate : o_.method;
    std::string r = method + " " + o_.target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    if (!o_.tokens.empty()) {
      r += "Authorization: Bearer " + o_.tokens[static_cast<size_t>(n) % o_.tokens.size()] + "\r\n";
    }
    if (method == "GET" || method == "HEAD") {
      return r + "\r\n";
    }
    std::string body = o_.body;
    if (const auto at = body.find("{n}"); at != std::string::npos) {
      body.replace(at, 3, std::to_string(n));
    }
    if (!body.empty()) {
      r += "Content-Type: application/json\r\n";
    }
    return r + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  net::awaitable<void> Run(std::shared_ptr<Worker> w) {
    while (!stopping_) {
      if (!w->connected) {
        boost::system::error_code ec;
        auto connecting =
            w->socket.async_connect(endpoint_, net::redirect_error(net::use_awaitable, ec));
        co_await std::move(connecting);
        if (ec) {
          ++tally_.errors;
          w->socket.close(ec);
          w->socket = tcp::socket(io_);
          continue;
        }
        w->connected = true;
        ++connected_;
        w->socket.set_option(tcp::no_delay(true), ec);
      }
      if (queue_.empty()) {
        idle_.push_back(w.get());
        w->wake.expires_at(Clock::time_point::max());
        auto waited = w->wake.async_wait(net::as_tuple(net::use_awaitable));
        (void)co_await std::move(waited);
        continue;
      }
      const auto [due, n] = queue_.front();
      queue_.pop_front();
      boost::system::error_code ec;
      const std::string request = RequestFor(n);
      const auto sent = Clock::now();
      auto writing = net::async_write(w->socket, net::buffer(request),
                                      net::redirect_error(net::use_awaitable, ec));
      co_await std::move(writing);
      http::response_parser<http::string_body> parser;
      parser.body_limit(64 << 20);
      if (!ec) {
        auto reading = http::async_read(w->socket, w->buffer, parser,
                                        net::redirect_error(net::use_awaitable, ec));
        co_await std::move(reading);
      }
      if (due >= end_) {
        continue;
      }
      if (ec) {
        ++tally_.errors;
        w->socket.close(ec);
        w->socket = tcp::socket(io_);
        w->buffer.clear();
        w->connected = false;
        --connected_;
        continue;
      }
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - due).count();
      const int status = static_cast<int>(parser.get().result_int());
      if (status >= 200 && status < 300) {
        ++tally_.ok;
        tally_.ok_ms.push_back(ms);
        tally_.ok_sent_ms.push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
      } else if (status == 503) {
        ++tally_.shed;
        tally_.shed_ms.push_back(ms);
      } else {
        ++tally_.other;
      }
      if (!parser.get().keep_alive()) {
        w->socket.close(ec);
        w->socket = tcp::socket(io_);
        w->buffer.clear();
        w->connected = false;
        --connected_;
      }
    }
  }

  net::io_context& io_;
  Options o_;
  net::steady_timer ticker_;
  tcp::endpoint endpoint_;
  Clock::time_point start_, end_;
  std::deque<std::pair<Clock::time_point, int64_t>> queue_;
  std::vector<Worker*> idle_;
  int workers_ = 0;
  int connected_ = 0;
  bool stopping_ = false;
  Tally tally_;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  const auto at = static_cast<size_t>(p * static_cast<double>(v.size() - 1));
  return v[at];
}

int Usage() {
  std::fprintf(stderr,
               "usage: bench_open_loop --port P --rate R --seconds S [--connections M] "
               "[--method M] [--target PATH] [--tokens FILE] [--alternate METHOD] [--body JSON]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--port") {
      o.port = static_cast<uint16_t>(std::atoi(value.c_str()));
    } else if (flag == "--rate") {
      o.rate = std::atof(value.c_str());
    } else if (flag == "--seconds") {
      o.seconds = std::atof(value.c_str());
    } else if (flag == "--connections") {
      o.connections = std::atoi(value.c_str());
    } else if (flag == "--method") {
      o.method = value;
    } else if (flag == "--alternate") {
      o.alternate = value;
    } else if (flag == "--target") {
      o.target = value;
    } else if (flag == "--body") {
      o.body = value;
    } else if (flag == "--tokens") {
      std::ifstream in(value);
      for (std::string line; std::getline(in, line);) {
        if (!line.empty()) {
          o.tokens.push_back(line);
        }
      }
    } else {
      return Usage();
    }
  }
  if (o.port == 0 || o.rate <= 0 || o.seconds <= 0 || o.connections <= 0 || argc % 2 == 0) {
    return Usage();
  }
  net::io_context io(1);
  Generator g(io, o);
  g.Start();
  io.run();
  const Tally& t = g.tally();
  std::printf(
      "{\"rate\": %.0f, \"seconds\": %.1f, \"due\": %lld, \"ok\": %lld, \"shed\": %lld, "
      "\"other\": %lld, \"errors\": %lld, \"dropped\": %lld, \"goodput\": %.0f, "
      "\"ok_p50_ms\": %.2f, \"ok_p99_ms\": %.2f, \"shed_p50_ms\": %.2f, \"shed_p99_ms\": %.2f, "
      "\"ok_sent_p50_ms\": %.2f, \"ok_sent_p99_ms\": %.2f, \"connections\": %d}\n",
      o.rate, o.seconds, static_cast<long long>(t.due), static_cast<long long>(t.ok),
      static_cast<long long>(t.shed), static_cast<long long>(t.other),
      static_cast<long long>(t.errors), static_cast<long long>(t.dropped),
      static_cast<double>(t.ok) / o.seconds, Percentile(t.ok_ms, 0.5), Percentile(t.ok_ms, 0.99),
      Percentile(t.shed_ms, 0.5), Percentile(t.shed_ms, 0.99), Percentile(t.ok_sent_ms, 0.5),
      Percentile(t.ok_sent_ms, 0.99), g.connections());
  return 0;
}
