// The JSON body of every write route into the decoder its handler calls (api/bodies.hpp). The
// first byte picks the route, the rest is its body. Every route of docs/openapi.json with a
// request body has a row here, or the target refuses to start: a new write route is fuzzed
// from its first day. Findings: a crash or sanitizer report, an exception out of a decoder,
// and a decoder that accepts a body yet breaks what it promises (bodies.hpp says what each
// promises; Check* below is that, read back from the decoded request).
#include "api/bodies.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "domain/comment_verdict.hpp"
#include "domain/notice_language.hpp"
#include "fuzz_source_dir.hpp"

namespace plaudit::fuzz {
namespace {

namespace json = boost::json;
namespace bodies = api::bodies;

constexpr int64_t kNowMs = 1'800'000'000'000;  // a fixed "now" for the ban's until

void Require(bool ok, const char* route, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "%s: accepted a body that breaks its promise: %s\n", route, what);
    std::abort();
  }
}

bool HasField(const json::object& body, std::string_view field) {
  return body.if_contains(field) != nullptr;
}

// Fields a client may never set, refused by every decoder that does not name them.
bool NamesIdentity(const json::object& body) {
  return HasField(body, "id") || HasField(body, "userId") || HasField(body, "role") ||
         HasField(body, "authorId");
}

bool ReasonFits(const std::string& reason) {
  return reason.size() <= bodies::kMaxReason &&
         std::none_of(reason.begin(), reason.end(),
                      [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F; });
}

void CheckArticle(json::object body, bool create, const char* route) {
  const auto in = bodies::Article(body, create);
  if (!in) {
    return;
  }
  Require(!NamesIdentity(body) && !HasField(body, "author") && !HasField(body, "likes"), route,
          "a field outside the writer's");
  Require(create || !in->kind, route, "a kind on an update");
  Require(!in->kind || *in->kind != domain::ArticleKind::kPage, route, "kind page");
  Require(!in->moderation || in->moderation->empty() || domain::ParsePolicy(*in->moderation), route,
          "an unknown moderation policy");
  Require(in->title.has_value() == (HasField(body, "title") && !body.at("title").is_null()), route,
          "a title other than the one given");
}

void CheckComment(const domain::CommentInput& in, const json::object& body, const char* route) {
  Require(HasField(body, "body") && body.at("body").is_string() &&
              in.body == std::string_view(body.at("body").as_string()),
          route, "a comment text other than the one given");
  Require(!in.form_age_ms || *in.form_age_ms >= 0, route, "a negative formAgeMs");
  Require(!in.parent_id || *in.parent_id > 0, route, "a parentId that is no id");
  Require(!in.reply_to_user_id || *in.reply_to_user_id > 0, route, "a replyToUserId that is no id");
  Require(!HasField(body, "author") && !NamesIdentity(body), route, "an author from the body");
}

// POST /articles/{id}/comments and POST /pages/comments: the guest object first, as the
// handlers take it.
void CheckNewComment(json::object body, bool page, const char* route) {
  const auto guest = bodies::Guest(body);
  if (!guest) {
    return;
  }
  Require(!HasField(body, "guest"), route, "the guest object left in the body");
  if (!page) {
    if (const auto in = bodies::NewComment(body)) {
      CheckComment(*in, body, route);
    }
    return;
  }
  if (const auto in = bodies::NewPageComment(body)) {
    json::object rest = body;
    rest.erase("title");
    CheckComment(in->comment, rest, route);
    Require(in->title.has_value() == (HasField(body, "title") && !body.at("title").is_null()),
            route, "a title other than the one given");
  }
}

void CheckModeration(const json::object& body, const char* route) {
  const auto in = bodies::Moderation(body);
  if (!in) {
    return;
  }
  Require(!in->ids.empty() && in->ids.size() <= bodies::kMaxModerated, route, "ids out of 1-100");
  Require(std::all_of(in->ids.begin(), in->ids.end(), [](int64_t id) { return id > 0; }), route,
          "an id that is not positive");
  Require(body.size() <= 2, route, "a field besides ids and action");
}

void CheckBan(const json::object& body, const char* route) {
  const auto in = bodies::Ban(body, kNowMs);
  if (!in) {
    return;
  }
  Require(in->until > kNowMs, route, "a ban that ends before now");
  Require(ReasonFits(in->reason), route, "a reason too long or with control characters");
}

void CheckSettings(const json::object& body, const char* route) {
  const auto in = bodies::NoticeSettings(body);
  if (!in) {
    return;
  }
  Require(!in->language || domain::NoticeLanguage(*in->language) == in->language, route,
          "an unknown language");
}

struct Row {
  std::string method;  // as docs/openapi.json spells it
  std::string path;
  std::function<void(const json::object&, const char*)> check;  // empty: the body is not read
};

std::vector<Row> Rows() {
  return {
      {"post", "/api/v1/users",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::NewUser(b)) {
           Require(!NamesIdentity(b), r, "an identity field");
         }
       }},
      {"patch", "/api/v1/users/me",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::Email(b)) {
           Require(in->given == HasField(b, "email"), r, "an email change not asked for");
           Require(b.size() <= 1, r, "a field besides email");
         }
       }},
      {"post", "/api/v1/users/me/email/verify",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::Token(b)) {
           Require(b.size() == 1, r, "a field besides token");
         }
       }},
      {"patch", "/api/v1/users/me/notifications", CheckSettings},
      {"patch", "/api/v1/users/{id}",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::RoleChange(b)) {
           Require(b.size() == 1, r, "a field besides role");
         }
       }},
      {"post", "/api/v1/sessions",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::SignIn(b)) {
           Require(HasField(b, "username") && HasField(b, "password"), r, "a missing credential");
         }
       }},
      {"post", "/api/v1/sessions/sso",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::Token(b)) {
           Require(b.size() == 1, r, "a field besides token");
         }
       }},
      {"post", "/api/v1/setup",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::Setup(b)) {
           Require(!HasField(b, "role") && !HasField(b, "id") && !HasField(b, "userId"), r,
                   "an identity field");
         }
       }},
      {"post", "/api/v1/articles",
       [](const json::object& b, const char* r) { CheckArticle(b, true, r); }},
      {"patch", "/api/v1/articles/{id}",
       [](const json::object& b, const char* r) { CheckArticle(b, false, r); }},
      {"post", "/api/v1/articles/{id}/comments",
       [](const json::object& b, const char* r) { CheckNewComment(b, false, r); }},
      {"post", "/api/v1/comments/preview",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::CommentText(b)) {
           Require(b.size() == 1, r, "a field besides body");
         }
       }},
      {"patch", "/api/v1/comments/{id}",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::CommentText(b)) {
           Require(b.size() == 1, r, "a field besides body");
         }
       }},
      {"post", "/api/v1/pages/comments",
       [](const json::object& b, const char* r) { CheckNewComment(b, true, r); }},
      {"post", "/api/v1/moderation/comments", CheckModeration},
      {"post", "/api/v1/comments/{id}/reports",
       [](const json::object& b, const char* r) {
         if (const auto in = bodies::ReportReason(b)) {
           Require(ReasonFits(*in), r, "a reason too long or with control characters");
         }
       }},
      {"put", "/api/v1/users/{id}/ban", CheckBan},
      // The token of a mail's link comes from its query; a body, form or JSON, is not read.
      {"post", "/api/v1/notifications/confirm", {}},
      {"post", "/api/v1/notifications/unsubscribe", {}},
  };
}

// Every operation of docs/openapi.json that takes a body must have a row, and every row an
// operation: the table is the API's, not a list that drifts from it.
std::vector<Row> CheckedRows() {
  std::ifstream file(PLAUDIT_SOURCE_DIR "/docs/openapi.json");
  std::stringstream text;
  text << file.rdbuf();
  const json::value doc = json::parse(text.str());
  std::set<std::pair<std::string, std::string>> documented;
  for (const auto& [path, item] : doc.at("paths").as_object()) {
    for (const auto& [method, operation] : item.as_object()) {
      if (operation.is_object() && operation.as_object().contains("requestBody")) {
        documented.emplace(std::string(method), std::string(path));
      }
    }
  }
  std::vector<Row> rows = Rows();
  std::set<std::pair<std::string, std::string>> covered;
  for (const Row& row : rows) {
    covered.emplace(row.method, row.path);
  }
  if (documented != covered || documented.size() < 15) {
    for (const auto& [method, path] : documented) {
      if (covered.count({method, path}) == 0) {
        std::fprintf(stderr, "no decoder row for %s %s\n", method.c_str(), path.c_str());
      }
    }
    for (const auto& [method, path] : covered) {
      if (documented.count({method, path}) == 0) {
        std::fprintf(stderr, "a row for %s %s, which takes no body\n", method.c_str(),
                     path.c_str());
      }
    }
    std::abort();
  }
  return rows;
}

}  // namespace
}  // namespace plaudit::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace plaudit::fuzz;
  static const std::vector<Row> rows = CheckedRows();
  if (size < 1) {
    return 0;
  }
  const Row& row = rows[data[0] % rows.size()];
  boost::system::error_code ec;
  boost::json::value body =
      boost::json::parse(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1), ec);
  if (ec || !body.is_object() || !row.check) {
    return 0;  // not an object: the server answers 400 before any decoder
  }
  const std::string route = row.method + " " + row.path;
  row.check(body.as_object(), route.c_str());
  return 0;
}
