#include "support/http_client.hpp"

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>

namespace plaudit::testing {

namespace {

// With PLAUDIT_RECORD_EXCHANGES=<dir>, every answer is appended to <dir>/exchanges-<pid>.jsonl
// (method, target, status, content type, and the body when it is JSON), for
// tests/openapi/check.mjs to hold against docs/openapi.json's schemas.
void Record(beast::http::verb method, const std::string& target, const HttpResponse& r) {
  static const char* dir = std::getenv("PLAUDIT_RECORD_EXCHANGES");
  if (dir == nullptr || *dir == '\0') {
    return;
  }
  static std::mutex m;
  static std::ofstream out(std::string(dir) + "/exchanges-" + std::to_string(::getpid()) + ".jsonl",
                           std::ios::app);
  const std::string type = r.Header("content-type");
  boost::json::object line{{"method", std::string(beast::http::to_string(method))},
                           {"target", target},
                           {"status", r.status},
                           {"contentType", type}};
  if (type.starts_with("application/json") && r.Header("content-encoding").empty() &&
      !r.body.empty()) {
    line["body"] = r.body;
  }
  std::lock_guard lock(m);
  out << boost::json::serialize(line) << '\n' << std::flush;
}

}  // namespace

boost::json::value HttpResponse::Json() const { return boost::json::parse(body); }

std::string HttpResponse::Header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string{} : it->second;
}

std::string HttpResponse::ErrorCode() const {
  boost::system::error_code ec;
  auto v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) {
    return {};
  }
  auto* err = v.as_object().if_contains("error");
  if (!err || !err->is_object()) {
    return {};
  }
  auto* code = err->as_object().if_contains("code");
  auto* msg = err->as_object().if_contains("message");
  if (!code || !code->is_string() || !msg || !msg->is_string()) {
    return {};
  }
  return std::string(code->as_string());
}

HttpClient::HttpClient(std::string host, uint16_t port)
    : HttpClient(std::move(host), std::vector<uint16_t>{port}) {}

HttpClient::HttpClient(std::string host, std::vector<uint16_t> ports) : host_(std::move(host)) {
  for (uint16_t port : ports) {
    connections_.push_back(Connection{port, nullptr, {}});
  }
}

HttpClient::~HttpClient() = default;

void HttpClient::Connect(Connection& c) {
  tcp::resolver resolver(ioc_);
  c.stream = std::make_unique<beast::tcp_stream>(ioc_);
  c.stream->connect(resolver.resolve(host_, std::to_string(c.port)));
  // A server that never answers fails the test instead of hanging it.
  timeval tv{30, 0};
  ::setsockopt(c.stream->socket().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  c.buffer.clear();
}

HttpResponse HttpClient::Send(beast::http::verb method, const std::string& target,
                              const std::string& body, const std::string& content_type,
                              const Headers& headers) {
  Connection& c = connections_[turn_++ % connections_.size()];
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!c.stream) {
      Connect(c);
    }
    beast::http::request<beast::http::string_body> req{method, target, 11};
    req.set(beast::http::field::host, host_);
    req.keep_alive(true);
    if (!content_type.empty()) {
      req.set(beast::http::field::content_type, content_type);
    }
    for (const auto& [k, v] : headers) {
      req.set(k, v);
    }
    req.body() = body;
    req.prepare_payload();
    boost::system::error_code ec;
    beast::http::write(*c.stream, req, ec);
    beast::http::response_parser<beast::http::string_body> parser;
    parser.body_limit(64 << 20);
    if (method == beast::http::verb::head) {
      parser.skip(true);
    }
    if (!ec) {
      beast::http::read(*c.stream, c.buffer, parser, ec);
    }
    if (ec) {
      // A keep-alive connection the server closed: reconnect once.
      c.stream.reset();
      if (attempt == 0) {
        continue;
      }
      throw std::runtime_error("HTTP request failed: " + ec.message());
    }
    auto& res = parser.get();
    HttpResponse out;
    out.status = static_cast<int>(res.result_int());
    out.body = res.body();
    for (const auto& f : res) {
      std::string name(f.name_string());
      std::transform(name.begin(), name.end(), name.begin(), ::tolower);
      out.headers[name] = std::string(f.value());
    }
    if (!res.keep_alive()) {
      c.stream.reset();
    }
    Record(method, target, out);
    return out;
  }
  throw std::runtime_error("unreachable");
}

HttpResponse HttpClient::Get(const std::string& t, const Headers& h) {
  return Send(beast::http::verb::get, t, "", "", h);
}
HttpResponse HttpClient::Post(const std::string& t, const std::string& j, const Headers& h) {
  return Send(beast::http::verb::post, t, j, "application/json", h);
}
HttpResponse HttpClient::Put(const std::string& t, const std::string& j, const Headers& h) {
  return Send(beast::http::verb::put, t, j, j.empty() ? "" : "application/json", h);
}
HttpResponse HttpClient::Patch(const std::string& t, const std::string& j, const Headers& h) {
  return Send(beast::http::verb::patch, t, j, "application/json", h);
}
HttpResponse HttpClient::Delete(const std::string& t, const Headers& h) {
  return Send(beast::http::verb::delete_, t, "", "", h);
}

std::string HttpClient::Raw(const std::string& host, uint16_t port, const std::string& bytes,
                            int timeout_ms) {
  net::io_context ioc;
  tcp::resolver resolver(ioc);
  beast::tcp_stream stream(ioc);
  stream.connect(resolver.resolve(host, std::to_string(port)));
  // Blocking reads ignore Beast's expiry: bound them with SO_RCVTIMEO instead.
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  ::setsockopt(stream.socket().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  boost::system::error_code ec;
  net::write(stream.socket(), net::buffer(bytes), ec);
  std::string out;
  char buf[4096];
  while (true) {
    size_t n = stream.read_some(net::buffer(buf), ec);
    out.append(buf, n);
    if (ec) {
      break;
    }
  }
  return out;
}

}  // namespace plaudit::testing
