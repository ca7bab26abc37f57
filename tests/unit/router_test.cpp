#include "http/router.hpp"

#include <gtest/gtest.h>

#include "http/errors.hpp"

namespace plaudit::http {
namespace {

Handler Noop() {
  return [](Request&) -> Awaitable<Response> { co_return Response{}; };
}

TEST(Router, MatchesLiteralAndParamSegments) {
  Router r;
  r.Add(beast::http::verb::get, "/api/v1/articles/{id}", Noop());
  r.Add(beast::http::verb::put, "/api/v1/articles/{id}/like", Noop());
  auto m = r.Find(beast::http::verb::put, "/api/v1/articles/42/like");
  ASSERT_EQ(m.kind, Router::Match::Kind::kFound);
  EXPECT_EQ(m.pattern, "/api/v1/articles/{id}/like");
  ASSERT_EQ(m.params.size(), 1u);
  EXPECT_EQ(m.params[0].first, "id");
  EXPECT_EQ(m.params[0].second, "42");
}

TEST(Router, WrongMethodIsMethodNotAllowedAndUnknownIsNotFound) {
  Router r;
  r.Add(beast::http::verb::get, "/a/{x}", Noop());
  EXPECT_EQ(r.Find(beast::http::verb::post, "/a/1").kind, Router::Match::Kind::kMethodNotAllowed);
  EXPECT_EQ(r.Find(beast::http::verb::get, "/a").kind, Router::Match::Kind::kNotFound);
  EXPECT_EQ(r.Find(beast::http::verb::get, "/a/1/b").kind, Router::Match::Kind::kNotFound);
  EXPECT_EQ(r.Find(beast::http::verb::get, "/b/1").kind, Router::Match::Kind::kNotFound);
  EXPECT_EQ(r.Find(beast::http::verb::get, "/a/1/").kind, Router::Match::Kind::kNotFound);
}

TEST(Router, HeadFallsBackToGet) {
  Router r;
  r.Add(beast::http::verb::get, "/x", Noop());
  EXPECT_EQ(r.Find(beast::http::verb::head, "/x").kind, Router::Match::Kind::kFound);
}

TEST(Router, SameShapeDifferentMethodsPickTheRightHandler) {
  Router r;
  r.Add(beast::http::verb::get, "/c/{id}", Noop());
  r.Add(beast::http::verb::patch, "/c/{id}", Noop());
  r.Add(beast::http::verb::delete_, "/c/{id}", Noop());
  auto m = r.Find(beast::http::verb::delete_, "/c/9");
  EXPECT_EQ(m.kind, Router::Match::Kind::kFound);
  EXPECT_EQ(m.handler, r.Find(beast::http::verb::delete_, "/c/1").handler);
  EXPECT_NE(m.handler, r.Find(beast::http::verb::get, "/c/1").handler);
}

TEST(ErrorMap, EveryCodeHasTheApiStatus) {
  EXPECT_EQ(StatusFor(ErrorCode::kInvalidArgument), beast::http::status::bad_request);
  EXPECT_EQ(StatusFor(ErrorCode::kInvalidJson), beast::http::status::bad_request);
  EXPECT_EQ(StatusFor(ErrorCode::kUnauthenticated), beast::http::status::unauthorized);
  EXPECT_EQ(StatusFor(ErrorCode::kPermissionDenied), beast::http::status::forbidden);
  EXPECT_EQ(StatusFor(ErrorCode::kNotFound), beast::http::status::not_found);
  EXPECT_EQ(StatusFor(ErrorCode::kAlreadyExists), beast::http::status::conflict);
  EXPECT_EQ(StatusFor(ErrorCode::kRateLimited), beast::http::status::too_many_requests);
  EXPECT_EQ(StatusFor(ErrorCode::kUnavailable), beast::http::status::service_unavailable);
  EXPECT_EQ(StatusFor(ErrorCode::kInternal), beast::http::status::internal_server_error);
  EXPECT_EQ(ApiCodeFor(ErrorCode::kAlreadyExists), "conflict");
  EXPECT_EQ(ApiCodeFor(ErrorCode::kPermissionDenied), "forbidden");
}

TEST(ErrorMap, RateLimitedCarriesRetryAfter) {
  Error e{ErrorCode::kRateLimited, "slow down", 7};
  Response r = ErrorResponse(e);
  EXPECT_EQ(r.status, beast::http::status::too_many_requests);
  ASSERT_EQ(r.headers.size(), 2u);
  EXPECT_EQ(r.headers[0], (std::pair<std::string, std::string>{"Cache-Control", "no-store"}));
  EXPECT_EQ(r.headers[1].first, "Retry-After");
  EXPECT_EQ(r.headers[1].second, "7");
  EXPECT_EQ(r.body, R"({"error":{"code":"rate_limited","message":"slow down"}})");
}

}  // namespace
}  // namespace plaudit::http
