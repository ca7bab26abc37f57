// Raw bytes from a stranger through the real HTTP server (http::Server: Beast's parser with the
// server's caps, Transfer-Encoding framing, keep-alive and pipelining, CORS, the CSRF check,
// forwarding headers from a trusted proxy, the router) over a loopback socket, one connection
// per input, into handlers that run the request decoders every API handler shares (query
// parameters, paging, cursors, path ids, JSON bodies and their fields). The routes are the
// API's, read from docs/openapi.json. Findings: a crash or sanitizer report anywhere; a 500
// (a decoder threw); an answer that is not HTTP; a connection the server keeps after the
// client's end of input.
#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "api/json_fields.hpp"
#include "api/paging.hpp"
#include "common/address_set.hpp"
#include "common/web_origin.hpp"
#include "domain/cursor.hpp"
#include "fuzz_source_dir.hpp"
#include "http/router.hpp"
#include "http/server.hpp"

namespace plaudit::fuzz {
namespace {

namespace json = boost::json;
using http::Request;
using http::Response;

// What the handlers of API.md read of a request, as they read it.
Awaitable<Response> Decode(Request& req) {
  for (const char* name : {"page", "size", "cursor", "sort", "replies", "url", "q", "status",
                           "kind", "after", "limit", "token", "redirect", "state", "code"}) {
    (void)req.Query(name);
  }
  (void)req.QueryAll("url");
  (void)api::ParsePaging(req);
  (void)api::IntParam(req, "replies", 3, 0, 10);
  for (const auto& [name, value] : req.path_params) {
    (void)req.IdParam(name);
  }
  if (auto cursor = req.Query("cursor")) {
    (void)domain::DecodeCursor(*cursor);
    (void)domain::DecodeScoreCursor(*cursor, 'h');
    (void)domain::ParseChangeCursor(*cursor);
  }
  (void)req.Header(beast::http::field::cookie);
  (void)req.Header("X-Forwarded-For");
  if (auto body = req.JsonBody()) {
    (void)api::OnlyFields(*body, {"body", "parentId", "title", "allowComments"});
    (void)api::RefuseFields(*body, {"authorId", "role"});
    (void)api::RequiredString(*body, "body");
    (void)api::OptionalString(*body, "title");
    (void)api::OptionalId(*body, "parentId");
    (void)api::OptionalBool(*body, "allowComments");
  }
  co_return http::JsonResponse(beast::http::status::ok, json::object{{"ok", true}});
}

// Every method and path of the API document, each answered by Decode.
void AddRoutes(http::Router& router) {
  std::ifstream file(PLAUDIT_SOURCE_DIR "/docs/openapi.json");
  std::stringstream text;
  text << file.rdbuf();
  const json::value doc = json::parse(text.str());
  for (const auto& [path, item] : doc.at("paths").as_object()) {
    for (const auto& [method, operation] : item.as_object()) {
      std::string name(method);  // "get": Beast knows methods by their upper-case names
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      const beast::http::verb verb = beast::http::string_to_verb(name);
      if (verb == beast::http::verb::unknown) {
        continue;  // "parameters" and the like
      }
      http::BodyKind body = http::BodyKind::kJson;
      const json::value* content = operation.as_object().if_contains("requestBody");
      if (content != nullptr && content->as_object().contains("content") &&
          content->at("content").as_object().contains("application/x-www-form-urlencoded")) {
        body = http::BodyKind::kJsonOrForm;
      }
      router.Add(verb, std::string(path), Decode, body);
    }
  }
}

struct World {
  net::io_context ioc;
  http::Router router;
  std::unique_ptr<http::Server> server;
  tcp::endpoint endpoint;

  World() {
    AddRoutes(router);
    // The API has some 60 routes: far fewer means the document was misread, and every input
    // would only meet the 404 (as happened with lower-case method names).
    if (router.Routes().size() < 40) {
      std::fprintf(stderr, "only %zu routes read from docs/openapi.json\n", router.Routes().size());
      std::abort();
    }
    http::ServerOptions options;
    options.port = 0;
    options.max_body = 64 * 1024;
    options.max_header = 8 * 1024;
    options.header_timeout = options.body_timeout = std::chrono::seconds(2);
    options.sites = SiteList::Parse("https://blog.example").value();
    options.trusted_proxies = AddressSet::Parse("127.0.0.1/32").value();
    options.max_connections = 8;
    options.body_budget = 256 * 1024;
    server = std::make_unique<http::Server>(ioc, options, router, nullptr);
    if (!server->Listen()) {
      std::fprintf(stderr, "the server could not listen on a loopback port\n");
      std::abort();
    }
    server->Start();
    endpoint = tcp::endpoint(net::ip::address_v4::loopback(), server->port());
  }
};

// Sends `input` on a new connection, ends the client's side, and returns all the server wrote
// until it closed. Aborts when the server has not closed within 10 s of the input's end.
std::string Exchange(World& w, std::string_view input) {
  std::string answer;
  bool done = false;
  tcp::socket socket(w.ioc);
  net::co_spawn(
      w.ioc,
      [&]() -> Awaitable<void> {
        boost::system::error_code ec;
        co_await socket.async_connect(w.endpoint, net::redirect_error(net::use_awaitable, ec));
        if (!ec) {
          co_await net::async_write(socket, net::buffer(input.data(), input.size()),
                                    net::redirect_error(net::use_awaitable, ec));
          // A server that answered and closed early makes the write fail: the answer still
          // waits to be read.
          socket.shutdown(tcp::socket::shutdown_send, ec);
          auto into = net::dynamic_buffer(answer);
          co_await net::async_read(socket, into, net::redirect_error(net::use_awaitable, ec));
        }
        done = true;
      },
      net::detached);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done) {
    w.ioc.run_one_until(deadline);
    if (std::chrono::steady_clock::now() >= deadline && !done) {
      std::fprintf(stderr, "the server kept the connection 10 s after the input ended\n");
      std::abort();
    }
  }
  w.ioc.poll();
  return answer;
}

}  // namespace
}  // namespace plaudit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static plaudit::fuzz::World world;
  const std::string answer =
      plaudit::fuzz::Exchange(world, std::string_view(reinterpret_cast<const char*>(data), size));
  if (!answer.empty() && !answer.starts_with("HTTP/1.")) {
    std::fprintf(stderr, "an answer that is not HTTP: %.80s\n", answer.c_str());
    std::abort();
  }
  // Methods and targets the server echoes hold no space, so this is only ever a status line.
  for (std::string_view status : {"HTTP/1.1 500 ", "HTTP/1.0 500 "}) {
    if (answer.find(status) != std::string::npos) {
      std::fprintf(stderr, "a 500 answer:\n%s\n", answer.c_str());
      std::abort();
    }
  }
  return 0;
}
