// Streaming responses (http/event_stream.hpp), over real sockets: the head of a stream, its
// bytes as the producer gives them, its end when the producer ends it, when the reader goes,
// and when the server shuts down (a drain never waits on a stream).
#include "http/event_stream.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <deque>
#include <future>
#include <thread>

#include "http/server.hpp"

namespace plaudit::http {
namespace {

using namespace std::chrono_literals;

// A stream the test feeds from its I/O thread: Push queues bytes, End finishes it.
class QueueStream : public EventStream {
 public:
  explicit QueueStream(net::io_context& ioc) : wake_(ioc) {}

  Awaitable<std::string> Next() override {
    while (true) {
      if (!queue_.empty()) {
        std::string out = std::move(queue_.front());
        queue_.pop_front();
        co_return out;
      }
      if (closed_) {
        co_return std::string();
      }
      wake_.expires_at(std::chrono::steady_clock::time_point::max());
      boost::system::error_code ec;
      co_await wake_.async_wait(net::redirect_error(net::use_awaitable, ec));
    }
  }
  void Close() override {
    if (closed_) {
      return;  // as the contract allows: more than once, the first one counts
    }
    closed_ = true;
    ++closes_;
    wake_.cancel();
  }
  void Push(std::string bytes) {
    queue_.push_back(std::move(bytes));
    wake_.cancel();
  }
  int closes() const { return closes_; }

 private:
  net::steady_timer wake_;
  std::deque<std::string> queue_;
  bool closed_ = false;
  int closes_ = 0;
};

class EventStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.Add(beast::http::verb::get, "/events", [this](Request&) -> Awaitable<Response> {
      Response r;
      r.content_type = "text/event-stream";
      r.headers.emplace_back("Cache-Control", "no-store");
      stream_ = std::make_shared<QueueStream>(ioc_);
      r.stream = stream_;
      co_return r;
    });
    ServerOptions opts;
    opts.port = 0;
    opts.body_timeout = 2000ms;
    server_ = std::make_unique<Server>(ioc_, opts, router_, nullptr);
    ASSERT_TRUE(server_->Listen());
    server_->Start();
    thread_ = std::thread([this] { ioc_.run(); });
  }

  void TearDown() override {
    if (!stopped_) {
      Shutdown();
    }
    ioc_.stop();
    thread_.join();
  }

  bool Shutdown() {
    auto drained = std::make_shared<std::promise<void>>();
    net::post(ioc_, [this, drained] { server_->Shutdown([drained] { drained->set_value(); }); });
    stopped_ = true;
    return drained->get_future().wait_for(5s) == std::future_status::ready;
  }

  template <class F>
  auto OnLoop(F f) {
    std::promise<decltype(f())> p;
    net::post(ioc_, [&] { p.set_value(f()); });
    return p.get_future().get();
  }

  // A reader: connects, asks for the stream, reads with a 3 s timeout per read.
  struct Reader {
    net::io_context ioc;
    tcp::socket socket{ioc};
    std::string got;

    explicit Reader(uint16_t port) {
      socket.connect(tcp::endpoint(net::ip::address_v4::loopback(), port));
      timeval tv{3, 0};
      ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      net::write(socket, net::buffer(std::string("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")));
    }
    // Reads until `want` is in what was read; false at EOF or a timeout.
    // recv(2) itself: asio's read_some waits in poll(2) and would ignore SO_RCVTIMEO.
    bool ReadUntil(const std::string& want) {
      char buf[4096];
      while (got.find(want) == std::string::npos) {
        const ssize_t n = ::recv(socket.native_handle(), buf, sizeof buf, 0);
        if (n <= 0) {
          return false;
        }
        got.append(buf, static_cast<size_t>(n));
      }
      return true;
    }
    // Reads until the server closes the connection; false on a timeout.
    bool ReadToEnd() {
      char buf[4096];
      while (true) {
        const ssize_t n = ::recv(socket.native_handle(), buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) {
          return true;
        }
        if (n < 0) {
          return false;
        }
        got.append(buf, static_cast<size_t>(n));
      }
    }
  };

  // Waits (polling, at most 5 s) until the server has `n` streams open.
  bool StreamsBecome(size_t n) {
    for (int i = 0; i < 500; ++i) {
      if (OnLoop([this] { return server_->open_streams(); }) == n) {
        return true;
      }
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }

  net::io_context ioc_;
  Router router_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  std::shared_ptr<QueueStream> stream_;  // the last one opened (I/O thread)
  bool stopped_ = false;
};

TEST_F(EventStreamTest, BytesGoOutAsTheyComeAndTheStreamEndsWithItsProducer) {
  Reader reader(server_->port());
  ASSERT_TRUE(StreamsBecome(1));
  OnLoop([this] {
    stream_->Push("data: one\n\n");
    return 0;
  });
  ASSERT_TRUE(reader.ReadUntil("data: one\n\n")) << reader.got;
  const std::string head = reader.got.substr(0, reader.got.find("\r\n\r\n"));
  EXPECT_NE(head.find("HTTP/1.1 200 OK"), std::string::npos) << head;
  EXPECT_NE(head.find("Content-Type: text/event-stream"), std::string::npos) << head;
  EXPECT_NE(head.find("Cache-Control: no-store"), std::string::npos) << head;
  EXPECT_NE(head.find("Connection: close"), std::string::npos) << head;
  EXPECT_EQ(head.find("Content-Length"), std::string::npos) << head;
  OnLoop([this] {
    stream_->Push("data: two\n\n");
    return 0;
  });
  ASSERT_TRUE(reader.ReadUntil("data: two\n\n")) << reader.got;
  OnLoop([this] {
    stream_->Close();
    return 0;
  });
  EXPECT_TRUE(reader.ReadToEnd());
  EXPECT_TRUE(StreamsBecome(0));
  EXPECT_EQ(OnLoop([this] { return server_->open_connections(); }), 0u);
}

TEST_F(EventStreamTest, AReaderThatGoesEndsItsStream) {
  {
    Reader reader(server_->port());
    ASSERT_TRUE(StreamsBecome(1));
    OnLoop([this] {
      stream_->Push("data: hello\n\n");
      return 0;
    });
    ASSERT_TRUE(reader.ReadUntil("data: hello\n\n"));
  }  // the reader closes its socket
  // Nothing more is written: the server's wait to read sees the close and ends the stream
  // (not the next write, which may be a heartbeat 25 s away).
  EXPECT_TRUE(StreamsBecome(0));
  EXPECT_EQ(OnLoop([this] { return stream_->closes(); }), 1);
}

TEST_F(EventStreamTest, ShutdownClosesOpenStreamsAndDrains) {
  Reader a(server_->port());
  Reader b(server_->port());
  ASSERT_TRUE(StreamsBecome(2));
  EXPECT_TRUE(Shutdown());  // within 5 s, far below the 10 s drain deadline
  EXPECT_TRUE(a.ReadToEnd());
  EXPECT_TRUE(b.ReadToEnd());
  EXPECT_NE(a.got.find("text/event-stream"), std::string::npos);
}

}  // namespace
}  // namespace plaudit::http
