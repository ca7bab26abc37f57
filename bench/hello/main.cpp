// The reference server for benchmarks: the smallest Beast/Asio C++20-coroutine HTTP server
// that answers every request with a fixed JSON body, built from the same stack and flags as
// plauditd and run on one thread like it. Scenarios are reported as ratios to this.
#include <cstdlib>
#include <iostream>

#include "common/net.hpp"

using namespace plaudit;

namespace {

Awaitable<void> Session(tcp::socket socket) {
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  boost::system::error_code ec;
  for (;;) {
    beast::http::request<beast::http::string_body> req;
    co_await beast::http::async_read(stream, buffer, req,
                                     net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      break;
    }
    beast::http::response<beast::http::string_body> res{beast::http::status::ok, req.version()};
    res.set(beast::http::field::content_type, "application/json; charset=utf-8");
    res.keep_alive(req.keep_alive());
    res.body() = R"({"status":"ok"})";
    res.prepare_payload();
    co_await beast::http::async_write(stream, res, net::redirect_error(net::use_awaitable, ec));
    if (ec || !res.keep_alive()) {
      break;
    }
  }
  stream.socket().shutdown(tcp::socket::shutdown_send, ec);
}

Awaitable<void> Listen(tcp::acceptor& acceptor) {
  for (;;) {
    tcp::socket socket = co_await acceptor.async_accept(net::use_awaitable);
    socket.set_option(tcp::no_delay(true));
    net::co_spawn(acceptor.get_executor(), Session(std::move(socket)), net::detached);
  }
}

}  // namespace

int main(int argc, char** argv) {
  unsigned short port = argc > 1 ? static_cast<unsigned short>(std::atoi(argv[1])) : 8081;
  net::io_context ioc{1};
  tcp::acceptor acceptor(ioc, {net::ip::make_address("127.0.0.1"), port}, true);
  std::cout << "hello listening on " << acceptor.local_endpoint().port() << std::endl;
  net::co_spawn(ioc, Listen(acceptor), net::detached);
  net::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](auto, auto) { ioc.stop(); });
  ioc.run();
}
