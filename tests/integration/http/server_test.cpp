// The HTTP server and router over real sockets: statuses and error bodies of API.md, size
// caps, timeouts, keep-alive, handler failures and the graceful drain.
#include "http/server.hpp"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "http/errors.hpp"
#include "support/http_client.hpp"

namespace plaudit::http {
namespace {

using testing::HttpClient;

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.Add(beast::http::verb::get, "/items/{id}", [](Request& r) -> Awaitable<Response> {
      auto id = r.IdParam("id");
      if (!id) {
        co_return ErrorResponse(id.error());
      }
      co_return JsonResponse(beast::http::status::ok,
                             {{"id", *id}, {"q", r.Query("q").value_or("")}});
    });
    router_.Add(beast::http::verb::post, "/echo", [](Request& r) -> Awaitable<Response> {
      auto body = r.JsonBody();
      if (!body) {
        co_return ErrorResponse(body.error());
      }
      co_return JsonResponse(beast::http::status::created, *body);
    });
    router_.Add(beast::http::verb::get, "/throw", [](Request&) -> Awaitable<Response> {
      throw std::runtime_error("boom");
      co_return Response{};
    });
    router_.Add(beast::http::verb::get, "/slow", [this](Request&) -> Awaitable<Response> {
      net::steady_timer t(ioc_, std::chrono::milliseconds(400));
      co_await t.async_wait(net::use_awaitable);
      co_return JsonResponse(beast::http::status::ok, {{"slow", true}});
    });
    ServerOptions opts;
    opts.port = 0;
    opts.max_body = 1024;
    opts.max_header = 2048;
    opts.header_timeout = std::chrono::milliseconds(300);
    opts.idle_timeout = std::chrono::milliseconds(5000);
    server_ = std::make_unique<Server>(ioc_, opts, router_, &metrics_);
    ASSERT_TRUE(server_->Listen());
    server_->Start();
    thread_ = std::thread([this] { ioc_.run(); });
  }

  void TearDown() override {
    if (!stopped_) {
      std::promise<void> drained;
      net::post(ioc_, [&] { server_->Shutdown([&] { drained.set_value(); }); });
      drained.get_future().wait_for(std::chrono::seconds(15));
    }
    ioc_.stop();
    thread_.join();
  }

  HttpClient Client() { return HttpClient("127.0.0.1", server_->port()); }

  // Expects an API.md error answer: `status` with `code` in its body (`context` names the case).
  static void ExpectError(const testing::HttpResponse& r, int status, const std::string& code,
                          const std::string& context = "") {
    EXPECT_EQ(r.status, status) << context;
    EXPECT_EQ(r.ErrorCode(), code) << context;
  }

  // The server's open connections, read on its I/O thread.
  size_t OpenConnections() {
    std::promise<size_t> open;
    net::post(ioc_, [&] { open.set_value(server_->open_connections()); });
    return open.get_future().get();
  }

  net::io_context ioc_;
  Router router_;
  Metrics metrics_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  bool stopped_ = false;
};

TEST_F(ServerTest, RoutesWithPathParamsAndQuery) {
  auto c = Client();
  auto r = c.Get("/items/42?q=a%20b");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Json().at("id").as_int64(), 42);
  EXPECT_EQ(r.Json().at("q").as_string(), "a b");
  EXPECT_EQ(r.Header("content-type"), "application/json; charset=utf-8");
}

TEST_F(ServerTest, BadPathIdIs400WithErrorBody) {
  auto c = Client();
  for (const char* bad : {"/items/abc", "/items/0", "/items/-3", "/items/99999999999999999999"}) {
    ExpectError(c.Get(bad), 400, "invalid_field", bad);
  }
}

TEST_F(ServerTest, UnknownRouteIs404) {
  auto c = Client();
  ExpectError(c.Get("/nope"), 404, "not_found");
  EXPECT_EQ(c.Get("/items/1/").status, 404);
}

TEST_F(ServerTest, WrongMethodIs405) {
  auto c = Client();
  ExpectError(c.Delete("/items/1"), 405, "method_not_allowed");
}

TEST_F(ServerTest, JsonBodyEchoes) {
  auto c = Client();
  auto r = c.Post("/echo", R"({"a":[1,2,{"b":"ü"}]})");
  ASSERT_EQ(r.status, 201);
  EXPECT_EQ(r.Json().at("a").as_array().size(), 3u);
}

TEST_F(ServerTest, MalformedJsonIs400) {
  auto c = Client();
  for (const char* bad : {"{", "[1,2]", "nul", "{\"a\":}", ""}) {
    ExpectError(c.Send(beast::http::verb::post, "/echo", bad, "application/json"), 400,
                "invalid_json", bad);
  }
}

TEST_F(ServerTest, NonJsonWriteIs415) {
  auto c = Client();
  ExpectError(c.Send(beast::http::verb::post, "/echo", "a=1", "application/x-www-form-urlencoded"),
              415, "unsupported_media_type");
  auto r = c.Send(beast::http::verb::post, "/echo", "{}", "");
  EXPECT_EQ(r.status, 415);
  // Parameters and case of the media type do not matter.
  r = c.Send(beast::http::verb::post, "/echo", "{}", "Application/JSON; charset=utf-8");
  EXPECT_EQ(r.status, 201);
}

TEST_F(ServerTest, OversizedBodyIs413WithoutReadingIt) {
  // The header promises 10 MB but no body is sent: the answer must come anyway.
  std::string raw = HttpClient::Raw("127.0.0.1", server_->port(),
                                    "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: "
                                    "application/json\r\nContent-Length: 10000000\r\n\r\n",
                                    2000);
  EXPECT_NE(raw.find("HTTP/1.1 413"), std::string::npos) << raw;
  EXPECT_NE(raw.find("payload_too_large"), std::string::npos) << raw;
  // A body just over the limit sent in full is refused too; one at the limit is accepted.
  auto c = Client();
  std::string big = "{\"a\":\"" + std::string(1024, 'x') + "\"}";
  EXPECT_EQ(c.Post("/echo", big).status, 413);
  std::string fits = "{\"a\":\"" + std::string(1024 - 8, 'x') + "\"}";
  ASSERT_EQ(fits.size(), 1024u);
  EXPECT_EQ(Client().Post("/echo", fits).status, 201);
}

TEST_F(ServerTest, ChunkedBodyOverLimitIs413) {
  std::string chunk(1500, 'x');
  char hex[16];
  std::snprintf(hex, sizeof(hex), "%zx", chunk.size());
  std::string raw = HttpClient::Raw(
      "127.0.0.1", server_->port(),
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: "
      "chunked\r\n\r\n" +
          std::string(hex) + "\r\n" + chunk + "\r\n0\r\n\r\n",
      2000);
  EXPECT_NE(raw.find("HTTP/1.1 413"), std::string::npos) << raw.substr(0, 200);
}

// RFC 9112 6.1/6.3: a request whose Transfer-Encoding does not end in chunked has no
// knowable length. Read as "no body", its body would be served as the next request
// (smuggling): it gets 400 and the connection closes, whatever follows.
TEST_F(ServerTest, ATransferEncodingNotEndingInChunkedIs400AndClosesTheConnection) {
  const std::string smuggled = "GET /items/7 HTTP/1.1\r\nHost: x\r\n\r\n";
  for (const std::string te : {"chunked, identity", "xchunked", "identity", "gzip",
                               "chunked;x=1, gzip", "chunked\r\nTransfer-Encoding: identity"}) {
    std::string raw = HttpClient::Raw("127.0.0.1", server_->port(),
                                      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: "
                                      "application/json\r\nTransfer-Encoding: " +
                                          te + "\r\n\r\n" + smuggled,
                                      2000);
    EXPECT_EQ(raw.rfind("HTTP/1.1 400", 0), 0u) << te << "\n" << raw;
    EXPECT_EQ(raw.find("HTTP/1.1", 1), std::string::npos) << te << ": two responses\n" << raw;
    EXPECT_EQ(raw.find(R"("id":7)"), std::string::npos) << te;
  }
  // A coding before chunked is framed, but not one this server decodes: 501, and closed.
  std::string raw = HttpClient::Raw("127.0.0.1", server_->port(),
                                    "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: "
                                    "application/json\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
                                    "2\r\n{}\r\n0\r\n\r\n" +
                                        smuggled,
                                    2000);
  EXPECT_EQ(raw.rfind("HTTP/1.1 501", 0), 0u) << raw;
  EXPECT_EQ(raw.find("HTTP/1.1", 1), std::string::npos) << raw;
  // HTTP/1.0 has no transfer codings: any Transfer-Encoding is faulty framing there.
  raw = HttpClient::Raw("127.0.0.1", server_->port(),
                        "POST /echo HTTP/1.0\r\nContent-Type: application/json\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
                        2000);
  EXPECT_EQ(raw.rfind("HTTP/1.0 400", 0), 0u) << raw;
  // Transfer-Encoding beside Content-Length stays refused.
  raw = HttpClient::Raw("127.0.0.1", server_->port(),
                        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}" +
                            smuggled,
                        2000);
  EXPECT_EQ(raw.rfind("HTTP/1.1 400", 0), 0u) << raw;
  EXPECT_EQ(raw.find("HTTP/1.1", 1), std::string::npos) << raw;
  // And plain chunked, in any letter case, is still read.
  raw = HttpClient::Raw("127.0.0.1", server_->port(),
                        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        "Transfer-Encoding: Chunked\r\nConnection: close\r\n\r\n"
                        "7\r\n{\"a\":1}\r\n0\r\n\r\n",
                        2000);
  EXPECT_EQ(raw.rfind("HTTP/1.1 201", 0), 0u) << raw;
  EXPECT_NE(raw.find(R"({"a":1})"), std::string::npos) << raw;
}

TEST_F(ServerTest, HugeHeaderIs431) {
  std::string raw = HttpClient::Raw(
      "127.0.0.1", server_->port(),
      "GET /items/1 HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(4096, 'a') + "\r\n\r\n", 2000);
  EXPECT_NE(raw.find("HTTP/1.1 431"), std::string::npos) << raw.substr(0, 200);
}

TEST_F(ServerTest, GarbageRequestIs400) {
  std::string raw = HttpClient::Raw("127.0.0.1", server_->port(), "HELLO THERE\r\n\r\n", 2000);
  EXPECT_NE(raw.find("HTTP/1.1 400"), std::string::npos) << raw;
  EXPECT_NE(raw.find("bad_request"), std::string::npos) << raw;
}

TEST_F(ServerTest, SlowHeaderIsCutOffByTimeout) {
  auto start = std::chrono::steady_clock::now();
  std::string raw =
      HttpClient::Raw("127.0.0.1", server_->port(), "GET /items/1 HTTP/1.1\r\nHo", 5000);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(raw, "");
  EXPECT_LT(took, std::chrono::milliseconds(3000));  // closed by the server, not our timeout
}

// The connection loop parses what is already buffered before it reads again: two requests
// sent in one write are both answered, in order.
TEST_F(ServerTest, PipelinedRequestsInOneWriteAreAllAnswered) {
  std::string raw = HttpClient::Raw("127.0.0.1", server_->port(),
                                    "GET /items/1 HTTP/1.1\r\nHost: x\r\n\r\n"
                                    "GET /items/2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                    2000);
  auto first = raw.find(R"({"id":1,)");
  auto second = raw.find(R"({"id":2,)");
  ASSERT_NE(first, std::string::npos) << raw;
  ASSERT_NE(second, std::string::npos) << raw;
  EXPECT_LT(first, second);
  EXPECT_EQ(raw.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_NE(raw.find("Connection: close\r\n", first), std::string::npos);
}

TEST_F(ServerTest, ExpectContinueGetsAnInterimResponse) {
  std::string raw =
      HttpClient::Raw("127.0.0.1", server_->port(),
                      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: "
                      "100-continue\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{\"a\":1}",
                      2000);
  EXPECT_EQ(raw.rfind("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\n", 0), 0u) << raw;
  EXPECT_NE(raw.find(R"({"a":1})"), std::string::npos);
}

TEST_F(ServerTest, Http10IsAnsweredIn10AndClosed) {
  auto start = std::chrono::steady_clock::now();
  std::string raw =
      HttpClient::Raw("127.0.0.1", server_->port(), "GET /items/3 HTTP/1.0\r\n\r\n", 3000);
  EXPECT_EQ(raw.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << raw;
  EXPECT_NE(raw.find("Content-Length: "), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2000));
}

TEST_F(ServerTest, ThrowingHandlerIs500AndServerLivesOn) {
  auto c = Client();
  ExpectError(c.Get("/throw"), 500, "internal");
  EXPECT_EQ(c.Get("/items/7").status, 200);
}

TEST_F(ServerTest, KeepAliveReusesOneConnection) {
  auto c = Client();
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(c.Get("/items/" + std::to_string(i + 1)).status, 200);
  }
  EXPECT_EQ(OpenConnections(), 1u);
}

TEST_F(ServerTest, HeadServesGetWithoutBody) {
  auto c = Client();
  auto r = c.Send(beast::http::verb::head, "/items/5");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "");
  EXPECT_NE(r.Header("content-length"), "0");
}

TEST_F(ServerTest, ShutdownFinishesInFlightRequestsThenStops) {
  auto slow = std::async(std::launch::async, [&] { return Client().Get("/slow"); });
  // Wait until the slow request is being served (generously: under ASan and a loaded box
  // the client thread can take a while to connect).
  bool in_flight = false;
  for (int i = 0; i < 2000 && !in_flight; ++i) {
    in_flight = OpenConnections() == 1;
    if (!in_flight) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ASSERT_TRUE(in_flight);
  auto idle = Client();
  ASSERT_EQ(idle.Get("/items/1").status, 200);  // an idle keep-alive connection
  auto drained = std::make_shared<std::promise<void>>();
  net::post(ioc_, [&, drained] { server_->Shutdown([drained] { drained->set_value(); }); });
  auto r = slow.get();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("connection"), "close");
  EXPECT_EQ(drained->get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  stopped_ = true;
  EXPECT_THROW(Client().Get("/items/1"), std::exception);  // no longer accepting
}

TEST_F(ServerTest, MetricsCountRequestsByRouteAndStatus) {
  auto c = Client();
  c.Get("/items/1");
  c.Get("/items/2");
  c.Get("/nope");
  std::string text = metrics_.Serialize();
  EXPECT_NE(
      text.find(R"(plaudit_http_requests_total{method="GET",route="/items/{id}",status="200"} 2)"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(route="unmatched",status="404"} 1)"), std::string::npos);
  EXPECT_NE(text.find("plaudit_http_request_duration_seconds_bucket"), std::string::npos);
}

// Methods are labelled only by the ones HTTP defines (anything else is "other"): invented
// methods add no series, and no method text reaches /metrics.
TEST_F(ServerTest, InventedMethodsAreOneMetricsLabel) {
  for (int i = 0; i < 200; ++i) {
    HttpClient::Raw("127.0.0.1", server_->port(),
                    "ZZ" + std::to_string(i) + std::string(600, 'Q') +
                        " /items/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    2000);
  }
  std::string text = metrics_.Serialize();
  EXPECT_EQ(text.find("QQQ"), std::string::npos);
  EXPECT_NE(
      text.find(
          R"(plaudit_http_requests_total{method="other",route="/items/{id}",status="405"} 200)"),
      std::string::npos)
      << text;
}

// However many routes and statuses the code ever reports, the series are capped: past the
// cap, requests are still counted, under one overflow series.
TEST(MetricsTest, SeriesAreCappedAndTheRestCountedUnderOther) {
  Metrics m;
  for (int i = 0; i < 5000; ++i) {
    m.ObserveRequest("/route/" + std::to_string(i), beast::http::verb::get, 200 + i % 7, 0.001);
  }
  std::string text = m.Serialize();
  size_t series = 0;
  for (size_t at = text.find("\nplaudit_http_requests_total{"); at != std::string::npos;
       at = text.find("\nplaudit_http_requests_total{", at + 1)) {
    ++series;
  }
  EXPECT_LE(series, Metrics::kMaxRequestSeries + 1);
  EXPECT_GE(series, Metrics::kMaxRequestSeries);
  const std::string overflow =
      R"(plaudit_http_requests_total{method="other",route="other",status="other"} )";
  auto at = text.find(overflow);
  ASSERT_NE(at, std::string::npos) << text.substr(0, 2000);
  EXPECT_EQ(std::stoll(text.substr(at + overflow.size())),
            5000 - static_cast<long long>(Metrics::kMaxRequestSeries));
}

}  // namespace
}  // namespace plaudit::http
