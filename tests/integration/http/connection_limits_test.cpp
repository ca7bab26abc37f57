// Issue 41, items 2 and 3: what a stranger's connections may hold. At the connection cap a new
// client takes the place of the connection waiting longest without a request; with every
// connection busy it gets a fast 503. Bodies are read only for routes that take one, and only
// within the body budget. Issue 50: past --max-in-flight requests a request is shed with a fast
// 503, except the ops routes.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "http/errors.hpp"
#include "http/server.hpp"
#include "support/http_client.hpp"
#include "support/process.hpp"

namespace plaudit::http {
namespace {

using namespace std::chrono_literals;
using testing::HttpClient;

class ConnectionLimitsTest : public ::testing::Test {
 protected:
  void Start(size_t max_connections, size_t body_budget, size_t max_in_flight = 0) {
    for (const char* path : {"/ping", "/healthz"}) {
      router_.Add(beast::http::verb::get, path, [](Request&) -> Awaitable<Response> {
        co_return JsonResponse(beast::http::status::ok, {{"pong", true}});
      });
    }
    router_.Add(beast::http::verb::post, "/echo", [](Request& r) -> Awaitable<Response> {
      co_return JsonResponse(beast::http::status::ok, {{"bytes", r.raw.body().size()}});
    });
    // Holds its connection busy until the test lets it go.
    router_.Add(beast::http::verb::get, "/hold", [this](Request&) -> Awaitable<Response> {
      ++held_;
      while (!release_) {
        net::steady_timer t(ioc_, 5ms);
        co_await t.async_wait(net::use_awaitable);
      }
      co_return JsonResponse(beast::http::status::ok, {{"held", true}});
    });
    ServerOptions opts;
    opts.port = 0;
    opts.max_body = 64 * 1024;
    opts.max_connections = max_connections;
    opts.body_budget = body_budget;
    opts.max_in_flight = max_in_flight;
    opts.idle_timeout = 20s;
    opts.header_timeout = 20s;
    opts.body_timeout = 20s;
    server_ = std::make_unique<Server>(ioc_, opts, router_, &metrics_);
    ASSERT_TRUE(server_->Listen());
    server_->Start();
    thread_ = std::thread([this] { ioc_.run(); });
  }

  void TearDown() override {
    release_ = true;
    if (server_) {
      std::promise<void> drained;
      net::post(ioc_, [&] { server_->Shutdown([&] { drained.set_value(); }, 2s); });
      drained.get_future().wait_for(5s);
    }
    ioc_.stop();
    if (thread_.joinable()) {
      thread_.join();
    }
  }

  // A connected socket that has sent nothing.
  std::unique_ptr<tcp::socket> Connect() {
    auto s = std::make_unique<tcp::socket>(client_ioc_);
    s->connect({net::ip::make_address("127.0.0.1"), server_->port()});
    return s;
  }

  static void Send(tcp::socket& s, const std::string& bytes) { net::write(s, net::buffer(bytes)); }

  // Everything the server sends until it closes or `timeout` passes.
  static std::string ReadAll(tcp::socket& s, std::chrono::milliseconds timeout) {
    std::string out;
    s.non_blocking(true);
    const auto end = std::chrono::steady_clock::now() + timeout;
    char buf[4096];
    while (std::chrono::steady_clock::now() < end) {
      boost::system::error_code ec;
      size_t n = s.read_some(net::buffer(buf), ec);
      if (ec == net::error::would_block) {
        std::this_thread::sleep_for(2ms);  // polling a socket, not waiting for background work
        continue;
      }
      if (ec) {
        break;  // closed (eof or reset)
      }
      out.append(buf, n);
    }
    return out;
  }

  // Whether the server has closed `s` (a read sees EOF or a reset) within `timeout`.
  static bool ClosedByServer(tcp::socket& s, std::chrono::milliseconds timeout) {
    s.non_blocking(true);
    const auto end = std::chrono::steady_clock::now() + timeout;
    char buf[256];
    while (std::chrono::steady_clock::now() < end) {
      boost::system::error_code ec;
      s.read_some(net::buffer(buf), ec);
      if (ec == net::error::would_block) {
        std::this_thread::sleep_for(2ms);
        continue;
      }
      if (ec) {
        return true;
      }
    }
    return false;
  }

  size_t Open() {
    std::promise<size_t> open;
    net::post(ioc_, [&] { open.set_value(server_->open_connections()); });
    return open.get_future().get();
  }

  size_t BodyBytes() {
    std::promise<size_t> bytes;
    net::post(ioc_, [&] { bytes.set_value(server_->body_bytes_in_flight()); });
    return bytes.get_future().get();
  }

  net::io_context ioc_;
  net::io_context client_ioc_;
  Router router_;
  Metrics metrics_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  std::atomic<int> held_{0};
  std::atomic<bool> release_{false};
};

// Before the cap, 1,100 idle sockets under ulimit -n 1024 kept every client out for 60 s.
TEST_F(ConnectionLimitsTest, AtTheCapTheLongestIdleConnectionMakesRoomForANewClient) {
  Start(/*max_connections=*/4, /*body_budget=*/1 << 20);
  std::vector<std::unique_ptr<tcp::socket>> idle;
  for (int i = 0; i < 4; ++i) {
    idle.push_back(Connect());
    ASSERT_TRUE(::plaudit::testing::WaitFor([&] { return Open() == size_t(i + 1); }, 5s));
  }
  // A real client still gets its answer, at once.
  auto r = HttpClient("127.0.0.1", server_->port()).Get("/ping");
  EXPECT_EQ(r.status, 200);
  // The oldest idle connection was closed for it; the others are still open.
  EXPECT_TRUE(ClosedByServer(*idle[0], 2s));
  EXPECT_FALSE(ClosedByServer(*idle[3], 100ms));
  EXPECT_LE(Open(), 4u);
  const std::string metrics = metrics_.Serialize();
  EXPECT_NE(metrics.find(R"(plaudit_http_connection_cap_total{result="evicted"} 1)"),
            std::string::npos)
      << metrics;
}

TEST_F(ConnectionLimitsTest, AConnectionThatJustAnsweredIsKeptOverOneIdleLonger) {
  Start(3, 1 << 20);
  auto old_idle = Connect();
  ASSERT_TRUE(::plaudit::testing::WaitFor([&] { return Open() == 1; }, 5s));
  HttpClient keep("127.0.0.1", server_->port());  // a keep-alive client in use
  ASSERT_EQ(keep.Get("/ping").status, 200);
  auto other = Connect();
  ASSERT_TRUE(::plaudit::testing::WaitFor([&] { return Open() == 3; }, 5s));
  ASSERT_EQ(keep.Get("/ping").status, 200);  // now the most recently active
  EXPECT_EQ(HttpClient("127.0.0.1", server_->port()).Get("/ping").status, 200);
  EXPECT_TRUE(ClosedByServer(*old_idle, 2s));
  EXPECT_EQ(keep.Get("/ping").status, 200);  // its connection was not the one closed
}

TEST_F(ConnectionLimitsTest, WithEveryConnectionBusyANewcomerGetsAFast503) {
  Start(2, 1 << 20);
  std::vector<std::unique_ptr<tcp::socket>> busy;
  for (int i = 0; i < 2; ++i) {
    busy.push_back(Connect());
    Send(*busy.back(), "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
  }
  ASSERT_TRUE(::plaudit::testing::WaitFor([&] { return held_.load() == 2; }, 5s));
  const auto started = std::chrono::steady_clock::now();
  auto extra = Connect();
  Send(*extra, "GET /ping HTTP/1.1\r\nHost: x\r\n\r\n");
  const std::string answer = ReadAll(*extra, 3s);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 2s);  // closed by the server
  EXPECT_EQ(answer.rfind("HTTP/1.1 503", 0), 0u) << answer;
  EXPECT_NE(answer.find(R"("code":"unavailable")"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Retry-After: 1"), std::string::npos) << answer;
  // The busy ones finish normally.
  release_ = true;
  for (auto& s : busy) {
    EXPECT_NE(ReadAll(*s, 1s).find("HTTP/1.1 200"), std::string::npos);
  }
  EXPECT_EQ(HttpClient("127.0.0.1", server_->port()).Get("/ping").status, 200);
  EXPECT_NE(metrics_.Serialize().find(R"(plaudit_http_connection_cap_total{result="refused"} 1)"),
            std::string::npos);
}

TEST_F(ConnectionLimitsTest, PastMaxInFlightARequestIsShedAtOnceButNotTheOpsRoutes) {
  Start(100, 1 << 20, /*max_in_flight=*/2);
  std::vector<std::unique_ptr<tcp::socket>> busy;
  for (int i = 0; i < 2; ++i) {
    busy.push_back(Connect());
    Send(*busy.back(), "GET /hold HTTP/1.1\r\nHost: x\r\n\r\n");
  }
  ASSERT_TRUE(::plaudit::testing::WaitFor([&] { return held_.load() == 2; }, 5s));
  HttpClient client("127.0.0.1", server_->port());
  const auto started = std::chrono::steady_clock::now();
  const auto shed = client.Get("/ping");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1s);  // answered, not queued
  EXPECT_EQ(shed.status, 503);
  EXPECT_NE(shed.body.find(R"("code":"unavailable")"), std::string::npos) << shed.body;
  EXPECT_EQ(shed.Header("retry-after"), "1");
  // A monitor still hears how the server is, on the same keep-alive connection.
  EXPECT_EQ(client.Get("/healthz").status, 200);
  EXPECT_NE(metrics_.Serialize().find("plaudit_http_shed_total 1"), std::string::npos);
  // The running ones finish, and their places are free again.
  release_ = true;
  for (auto& s : busy) {
    EXPECT_NE(ReadAll(*s, 1s).find("HTTP/1.1 200"), std::string::npos);
  }
  EXPECT_EQ(client.Get("/ping").status, 200);
  EXPECT_EQ(client.Get("/ping").status, 200);
}

// Before the budget, 200 connections each sending 1 MiB minus one byte held ~1 MiB each.
TEST_F(ConnectionLimitsTest, BodiesInFlightStayWithinTheBudget) {
  Start(100, /*body_budget=*/100 * 1024);
  const std::string head =
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 40000\r\n\r\n";
  // Two partial bodies reserve 80,000 bytes; a third does not fit.
  auto a = Connect();
  auto b = Connect();
  Send(*a, head + std::string(100, ' '));
  Send(*b, head + std::string(100, ' '));
  ASSERT_TRUE(::plaudit::testing::WaitFor([&] { return BodyBytes() == 80'000; }, 5s));
  auto c = Connect();
  Send(*c, head);
  const std::string refused = ReadAll(*c, 3s);
  EXPECT_EQ(refused.rfind("HTTP/1.1 503", 0), 0u) << refused;
  EXPECT_NE(refused.find("Retry-After"), std::string::npos) << refused;
  EXPECT_EQ(BodyBytes(), 80'000u);
  // A finished body gives its share back.
  Send(*a, std::string(40000 - 100, ' '));
  EXPECT_NE(ReadAll(*a, 1s).find(R"("bytes":40000)"), std::string::npos);
  ASSERT_TRUE(::plaudit::testing::WaitFor([&] { return BodyBytes() == 40'000; }, 5s));
  auto d = Connect();
  Send(*d, head + std::string(40000, ' '));
  EXPECT_NE(ReadAll(*d, 1s).find(R"("bytes":40000)"), std::string::npos);
  // A connection dropped halfway gives its share back too.
  b->close();
  EXPECT_TRUE(::plaudit::testing::WaitFor([&] { return BodyBytes() == 0; }, 5s));
}

TEST_F(ConnectionLimitsTest, ABodyForARouteThatTakesNoneIsNotRead) {
  Start(100, /*body_budget=*/1024);
  // A GET announcing a body larger than the budget is answered at once, without waiting for
  // the body, and the connection is closed (the unread body must not become a request).
  auto s = Connect();
  Send(*s, "GET /ping HTTP/1.1\r\nHost: x\r\nContent-Length: 50000\r\n\r\n");
  const std::string answer = ReadAll(*s, 2s);
  EXPECT_EQ(answer.rfind("HTTP/1.1 200", 0), 0u) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_EQ(BodyBytes(), 0u);
  // Likewise a POST to no route: 404 without reading.
  auto t = Connect();
  Send(*t,
       "POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
       "Content-Length: 50000\r\n\r\n");
  const std::string missing = ReadAll(*t, 2s);
  EXPECT_EQ(missing.rfind("HTTP/1.1 404", 0), 0u) << missing;
}

}  // namespace
}  // namespace plaudit::http
