// The OpenAPI document (issue 49; API.md "Moving data in and out"): GET /api/v1/openapi.json
// serves docs/openapi.json, and its paths and methods are exactly the routes the router
// answers under /api/ and the operations routes — a route added without a line in the
// document, or a line left after its route went, fails here. (Its schemas are held against
// the API tests' recorded answers by tests/openapi/check.mjs.)
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

class OpenApiTest : public ApiTest {};

std::string Upper(std::string s) {
  for (char& c : s) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return s;
}

TEST_P(OpenApiTest, TheDocumentIsServedAndNamesEveryRouteAndNoOther) {
  auto r = Client().Get("/api/v1/openapi.json");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.Header("content-type").rfind("application/json", 0), 0u);
  EXPECT_FALSE(r.Header("etag").empty());
  const boost::json::value doc = r.Json();
  EXPECT_EQ(doc.at("openapi").as_string().subview().substr(0, 4), "3.1.");

  std::set<std::string> documented;
  for (const auto& [path, item] : doc.at("paths").as_object()) {
    for (const auto& [method, op] : item.as_object()) {
      if (method == "parameters" || method == "summary" || method == "description") {
        continue;
      }
      documented.insert(Upper(std::string(method)) + " " + std::string(path));
    }
  }
  std::set<std::string> routed;
  for (const auto& [verb, pattern] : app_->app().router().Routes()) {
    const bool api = pattern.starts_with("/api/");
    const bool ops = pattern == "/healthz" || pattern == "/readyz" || pattern == "/metrics";
    if (api || ops) {
      routed.insert(std::string(beast::http::to_string(verb)) + " " + pattern);
    }
  }
  ASSERT_GT(routed.size(), 50u);
  for (const std::string& r : routed) {
    EXPECT_TRUE(documented.count(r)) << r << " is routed but not in docs/openapi.json";
  }
  for (const std::string& d : documented) {
    EXPECT_TRUE(routed.count(d)) << d << " is in docs/openapi.json but not routed";
  }
}

TEST_P(OpenApiTest, ARevalidationWithItsEtagIs304) {
  auto first = Client().Get("/api/v1/openapi.json");
  ASSERT_EQ(first.status, 200);
  auto again = Client().Get("/api/v1/openapi.json", {{"If-None-Match", first.Header("etag")}});
  EXPECT_EQ(again.status, 304);
}

// The routes do not depend on the database: SQLite alone.
INSTANTIATE_TEST_SUITE_P(Databases, OpenApiTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
