// SerializeResponse: the framing rules Beast's serializer applied before it was replaced.
#include "http/wire.hpp"

#include <gtest/gtest.h>

namespace plaudit::http {
namespace {

// On every answer (API.md "Conventions").
#define PL_SECURITY_HEADERS \
  "X-Content-Type-Options: nosniff\r\nReferrer-Policy: strict-origin-when-cross-origin\r\n"

Response Json(beast::http::status s, std::string body) {
  Response r;
  r.status = s;
  r.body = std::move(body);
  return r;
}

TEST(WireTest, KeepAliveHttp11HasLengthAndNoConnectionField) {
  EXPECT_EQ(SerializeResponse(Json(beast::http::status::ok, R"({"a":1})"), 11, true, false),
            "HTTP/1.1 200 OK\r\nServer: plaudit\r\n" PL_SECURITY_HEADERS
            "Content-Type: application/json; charset=utf-8\r\nContent-Length: 7\r\n\r\n"
            R"({"a":1})");
}

TEST(WireTest, ClosingHttp11SaysCloseAndHttp10KeepAliveSaysKeepAlive) {
  auto r = Json(beast::http::status::not_found, "{}");
  EXPECT_NE(SerializeResponse(r, 11, false, false).find("\r\nConnection: close\r\n"),
            std::string::npos);
  std::string ten = SerializeResponse(r, 10, true, false);
  EXPECT_EQ(ten.rfind("HTTP/1.0 404 Not Found\r\n", 0), 0u) << ten;
  EXPECT_NE(ten.find("\r\nConnection: keep-alive\r\n"), std::string::npos);
  EXPECT_EQ(SerializeResponse(r, 10, false, false).find("Connection:"), std::string::npos);
}

TEST(WireTest, NoContentHasNeitherLengthNorBody) {
  Response r;
  r.status = beast::http::status::no_content;
  r.content_type = {};
  r.headers.push_back({"Set-Cookie", "plaudit_session=; Max-Age=0"});
  EXPECT_EQ(SerializeResponse(r, 11, true, false),
            "HTTP/1.1 204 No Content\r\nServer: plaudit\r\n" PL_SECURITY_HEADERS
            "Set-Cookie: plaudit_session=; Max-Age=0\r\n\r\n");
}

TEST(WireTest, HeadKeepsTheLengthAndDropsTheBody) {
  std::string head = SerializeResponse(Json(beast::http::status::ok, "0123456789"), 11, true, true);
  EXPECT_NE(head.find("Content-Length: 10\r\n"), std::string::npos);
  EXPECT_EQ(head.substr(head.size() - 4), "\r\n\r\n");
}

TEST(WireTest, ASharedBodyFollowsTheHeadUnlessTheAnswerHasNone) {
  Response r;
  r.shared_body = std::make_shared<const std::string>("0123456789");
  std::string out = SerializeResponse(r, 11, true, false);
  EXPECT_NE(out.find("Content-Length: 10\r\n"), std::string::npos);
  EXPECT_EQ(out.substr(out.size() - 4), "\r\n\r\n") << "the body is not copied into the head";
  EXPECT_EQ(BodyAfterHead(r, false), "0123456789");
  EXPECT_EQ(BodyAfterHead(r, true), "");  // HEAD
  r.status = beast::http::status::not_modified;
  EXPECT_EQ(BodyAfterHead(r, false), "");
  EXPECT_EQ(SerializeResponse(r, 11, true, false).find("Content-Length"), std::string::npos);
  Response plain = Json(beast::http::status::ok, "{}");
  EXPECT_EQ(BodyAfterHead(plain, false), "");
}

TEST(WireTest, LineBreaksInHeaderValuesCannotSplitTheMessage) {
  auto r = Json(beast::http::status::ok, "{}");
  r.headers.push_back({"X-Note", "a\r\nSet-Cookie: evil=1"});
  std::string out = SerializeResponse(r, 11, true, false);
  EXPECT_NE(out.find("X-Note: aSet-Cookie: evil=1\r\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("\r\nSet-Cookie"), std::string::npos);
}

}  // namespace
}  // namespace plaudit::http
