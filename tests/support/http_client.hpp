#pragma once
// A small blocking HTTP/1.1 client for tests (Beast, keep-alive), plus a raw-bytes helper
// for malformed requests.
#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/net.hpp"

namespace plaudit::testing {

struct HttpResponse {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names

  boost::json::value Json() const;
  std::string Header(const std::string& lower_name) const;
  // The "code" of an API.md error body, or "" when the body is not one.
  std::string ErrorCode() const;
};

class HttpClient {
 public:
  HttpClient(std::string host, uint16_t port);
  // Round robin: request i goes to ports[i % size] (each on a keep-alive connection of its
  // own), as a load balancer in front of several plauditd would send them.
  HttpClient(std::string host, std::vector<uint16_t> ports);
  ~HttpClient();

  using Headers = std::vector<std::pair<std::string, std::string>>;
  HttpResponse Send(beast::http::verb method, const std::string& target,
                    const std::string& body = "", const std::string& content_type = "",
                    const Headers& headers = {});
  HttpResponse Get(const std::string& target, const Headers& headers = {});
  HttpResponse Post(const std::string& target, const std::string& json,
                    const Headers& headers = {});
  HttpResponse Put(const std::string& target, const std::string& json = "",
                   const Headers& headers = {});
  HttpResponse Patch(const std::string& target, const std::string& json,
                     const Headers& headers = {});
  HttpResponse Delete(const std::string& target, const Headers& headers = {});

  // Sends `bytes` on a fresh connection and returns everything the server answers until it
  // closes the connection or `timeout_ms` passes.
  static std::string Raw(const std::string& host, uint16_t port, const std::string& bytes,
                         int timeout_ms = 3000);

 private:
  struct Connection {
    uint16_t port;
    std::unique_ptr<beast::tcp_stream> stream;
    beast::flat_buffer buffer;
  };
  void Connect(Connection& c);

  std::string host_;
  net::io_context ioc_;
  std::vector<Connection> connections_;
  size_t turn_ = 0;
};

// The header that signs a request in with a session token.
inline HttpClient::Headers Bearer(const std::string& token) {
  return {{"Authorization", "Bearer " + token}};
}

}  // namespace plaudit::testing
