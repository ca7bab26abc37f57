// A parsed request routed (the design is in server.hpp): the checks every route shares come
// first, so that no handler runs for a preflight, an unknown route or method, a cross-site
// cookie write or a body that is not JSON; a handler that throws is answered 500.
#include <spdlog/spdlog.h>

#include "http/csrf.hpp"
#include "http/errors.hpp"
#include "http/forwarded.hpp"
#include "http/server.hpp"

namespace plaudit::http {
namespace {

// The routes a monitor polls: never shed, so an overloaded server still says how it is.
bool IsOpsRoute(std::string_view pattern) {
  return pattern == "/healthz" || pattern == "/readyz" || pattern == "/metrics";
}

// Counts a handler in flight for as long as it runs, whichever way it ends.
class InFlight {
 public:
  explicit InFlight(size_t& n) : n_(n) { ++n_; }
  ~InFlight() { --n_; }
  InFlight(const InFlight&) = delete;
  InFlight& operator=(const InFlight&) = delete;

 private:
  size_t& n_;
};

}  // namespace

Awaitable<Response> Server::Dispatch(RawRequest& req, const std::string& remote,
                                     std::string_view& route) {
  std::string_view target = req.target();
  auto q = target.find('?');
  std::string_view path = target.substr(0, q);
  std::string_view query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);

  if (CorsPolicy::IsPreflight(req, path)) {
    route = "preflight";
    co_return cors_.Preflight(req);
  }
  Router::Match m = router_.Find(req.method(), path);
  route = m.pattern;
  if (m.kind == Router::Match::Kind::kNotFound) {
    co_return ErrorResponse(HttpError::kNoRoute, "no such route");
  }
  if (m.kind == Router::Match::Kind::kMethodNotAllowed) {
    co_return ErrorResponse(HttpError::kMethodNotAllowed,
                            std::string(req.method_string()) + " is not allowed here");
  }
  ClientEndpoint client = ClientOf(req, remote, options_.trusted_proxies, options_.proxy_header);
  Request request{req,
                  path,
                  query,
                  std::move(m.params),
                  std::move(client.address),
                  client.https,
                  std::move(client.host)};
  if (IsCrossSiteWrite(request, cors_.sites())) {
    co_return ErrorResponse(HttpError::kCrossSite,
                            "cross-site request refused: the Origin is neither this server nor "
                            "one of its --sites");
  }
  if (IsWriteMethod(req.method()) && !req.body().empty() && !request.HasJsonContentType() &&
      m.body == BodyKind::kJson) {
    co_return ErrorResponse(HttpError::kUnsupportedMediaType,
                            "request body must be application/json");
  }
  // Shed rather than queue: past the bound a handler would only wait behind the others for
  // Redis, SQL or the CPU, and every client's answer would come later; a fast 503 lets the
  // client (or its proxy) retry elsewhere or later, and the admitted ones keep their pace.
  if (options_.max_in_flight > 0 && in_flight_ >= options_.max_in_flight &&
      !IsOpsRoute(m.pattern)) {
    if (metrics_) {
      metrics_->CountShed();
    }
    Response shed = ErrorResponse(Error{
        ErrorCode::kUnavailable, "the server is at its limit of requests; retry in a moment"});
    shed.headers.emplace_back("Retry-After", "1");
    co_return shed;
  }
  const InFlight counted(in_flight_);
  try {
    co_return co_await (*m.handler)(request);
  } catch (const std::exception& e) {
    spdlog::error("handler {} {} threw: {}", req.method_string(), m.pattern, e.what());
  } catch (...) {
    spdlog::error("handler {} {} threw a non-exception", req.method_string(), m.pattern);
  }
  co_return ErrorResponse(Error{ErrorCode::kInternal, "the handler threw (logged above)"});
}

}  // namespace plaudit::http
