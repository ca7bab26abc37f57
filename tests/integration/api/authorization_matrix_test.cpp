// The authorization matrix (issue 50): every /api/v1 route, called by each kind of caller, on
// an object of their own and on another's, answers the status one table says. The table has
// a row for each route the router serves and no other, so a route added without a row fails
// the test before anything is sent.
//
// Each cell is a world of its own (fresh accounts, articles and comments: a DELETE or a ban in
// one cell changes nothing another reads), made through the API by the bootstrap admin `root`,
// who is never the caller. A cell's caller:
//   anonymous  no session;
//   guest      no session, but the Plaudit-Edit-Token of its own comment's 201 (guests on),
//              presented on its own comment and on another guest's;
//   user       a new account;  author, moderator, admin: one given that role by root;
//   banned     a user banned (by root) after writing its own post and comment.
// "Own": the article (a user's: a post), comment or account the path names is the caller's;
// "another's": another user's (an author's published article, a user's comment, an account;
// for a guest, another guest's comment).
// Callers without an account own nothing: their "own" cell is the other one's.
// Rows with a variant call a route again in a world changed the way API.md has a rule for:
// drafts, held comments, closed threads, a moderator as the one banned.
#include <array>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "api_test_base.hpp"

namespace plaudit::testing {
namespace {

using beast::http::verb;

enum Actor { kAnonymous, kGuest, kUser, kAuthor, kModerator, kAdmin, kBanned, kActors };
constexpr std::array<const char*, kActors> kActorNames = {"anonymous", "guest", "user",  "author",
                                                          "moderator", "admin", "banned"};

// How a cell's world differs from the plain one, before the call.
enum Variant {
  kPlain,
  kDraft,            // both articles (the caller's and another's) are drafts
  kHeld,             // every comment of the world is held (marked spam by root)
  kClosed,           // both articles take no comments (allowComments: false)
  kModeratorTarget,  // the other user (the one "another's" account names) is a moderator
};
constexpr std::array<const char*, 5> kVariantNames = {"", " (drafts)", " (held comments)",
                                                      " (closed threads)", " (a moderator)"};

// One route's row: the statuses of the seven callers (in Actor order) on their own object and
// on another's. `own` empty: the path names nobody's object, both are `others`.
struct Row {
  verb method;
  const char* pattern;
  const char* body;    // "" for none; {marker}s are filled in by the cell
  const char* others;  // seven statuses, space-separated
  const char* own = "";
  Variant variant = kPlain;
};

// API.md's rules, route by route (its order, that of api/routes.cpp).
//   anon guest user author mod admin banned
const Row kTable[] = {
    // Users and sessions. Anyone may sign up (an account is not a write of the caller's).
    {verb::post, "/api/v1/users", R"({"username":"{fresh}","password":"password123"})",
     "201 201 201 201 201 201 201"},
    // The user list is for moderators (the ban screen) and admins (roles).
    {verb::get, "/api/v1/users", "", "401 401 403 403 200 200 403"},
    {verb::get, "/api/v1/users/me", "", "401 401 200 200 200 200 200"},
    // The account's address (here cleared: this server sends no mail). A write: a banned user
    // may not make the server mail an address it gives; its notice settings stay its own.
    {verb::patch, "/api/v1/users/me", R"({"email":null})", "401 401 200 200 200 200 403"},
    // No address to verify on these accounts: a signed-in caller gets past the guard to 400.
    {verb::post, "/api/v1/users/me/email/verify", "{}", "401 401 400 400 400 400 400"},
    {verb::get, "/api/v1/users/me/notifications", "", "401 401 200 200 200 200 200"},
    {verb::patch, "/api/v1/users/me/notifications", R"({"replies":false})",
     "401 401 200 200 200 200 200"},
    {verb::get, "/api/v1/users/{user}", "", "200 200 200 200 200 200 200",
     "200 200 200 200 200 200 200"},
    // Roles: admins only (an admin may also change its own).
    {verb::patch, "/api/v1/users/{user}", R"({"role":"author"})", "401 401 403 403 403 200 403",
     "401 401 403 403 403 200 403"},
    // An account: its owner (also banned) or an admin.
    {verb::delete_, "/api/v1/users/{user}", "", "401 401 403 403 403 204 403",
     "401 401 204 204 204 204 204"},
    {verb::post, "/api/v1/sessions", R"({"username":"{me}","password":"password123"})",
     "401 401 201 201 201 201 201"},
    {verb::delete_, "/api/v1/sessions/current", "", "401 401 204 204 204 204 204"},
    // No --sso: no site may sign anyone in.
    {verb::post, "/api/v1/sessions/sso", R"({"token":"x.y.z"})", "401 401 401 401 401 401 401"},
    {verb::get, "/api/v1/auth/providers", "", "200 200 200 200 200 200 200"},
    {verb::get, "/api/v1/auth/nowhere/start?return=https%3A%2F%2Fblog.example%2F", "",
     "404 404 404 404 404 404 404"},
    {verb::get, "/api/v1/auth/nowhere/callback?code=c&state=s", "", "404 404 404 404 404 404 404"},
    {verb::get, "/api/v1/setup", "", "200 200 200 200 200 200 200"},
    // Not the setup token (printed at start only when the site has no admin): refused to anyone.
    {verb::post, "/api/v1/setup",
     R"({"token":"not-the-one","username":"{fresh}","password":"password123"})",
     "403 403 403 403 403 403 403"},

    // Articles. Anyone with an account writes posts; articles need an author.
    {verb::post, "/api/v1/articles", R"({"title":"T","content":"c","kind":"post"})",
     "401 401 201 201 201 201 403"},
    {verb::get, "/api/v1/articles", "", "200 200 200 200 200 200 200"},
    {verb::get, "/api/v1/articles/{article}", "", "200 200 200 200 200 200 200",
     "200 200 200 200 200 200 200"},
    // Its author or an admin; a moderator moderates comments, not articles.
    {verb::patch, "/api/v1/articles/{article}", R"({"title":"New"})", "401 401 403 403 403 200 403",
     "401 401 200 200 200 200 403"},
    {verb::delete_, "/api/v1/articles/{article}", "", "401 401 403 403 403 204 403",
     "401 401 204 204 204 204 403"},
    {verb::get, "/api/v1/changes", "", "401 401 403 403 403 200 403"},
    {verb::get, "/api/v1/search?q=hello", "", "200 200 200 200 200 200 200"},

    // Likes: an account's; a guest has none (401); a banned user's write is 403.
    {verb::put, "/api/v1/articles/{article}/like", "", "401 401 200 200 200 200 403",
     "401 401 200 200 200 200 403"},
    {verb::delete_, "/api/v1/articles/{article}/like", "", "401 401 200 200 200 200 403",
     "401 401 200 200 200 200 403"},
    {verb::get, "/api/v1/articles/{article}/like", "", "200 200 200 200 200 200 200",
     "200 200 200 200 200 200 200"},
    {verb::put, "/api/v1/comments/{comment}/like", "", "401 401 200 200 200 200 403",
     "401 401 200 200 200 200 403"},
    {verb::delete_, "/api/v1/comments/{comment}/like", "", "401 401 200 200 200 200 403",
     "401 401 200 200 200 200 403"},
    {verb::get, "/api/v1/comments/{comment}/like", "", "200 200 200 200 200 200 200",
     "200 200 200 200 200 200 200"},
    {verb::get, "/api/v1/likes?article={article}&comment={comment}", "",
     "200 200 200 200 200 200 200"},

    // Comments: anyone with an account, guests too (guests on); not the banned.
    {verb::post, "/api/v1/articles/{article}/comments", R"({"body":"a comment"{guest}})",
     "401 201 201 201 201 201 403", "401 201 201 201 201 201 403"},
    {verb::get, "/api/v1/articles/{article}/comments", "", "200 200 200 200 200 200 200",
     "200 200 200 200 200 200 200"},
    {verb::post, "/api/v1/comments/preview", R"({"body":"*hi*"})", "200 200 200 200 200 200 200"},
    // An edit token presented on a comment it is not for is refused (403), even to read.
    {verb::get, "/api/v1/comments/{comment}", "", "200 403 200 200 200 200 200",
     "200 200 200 200 200 200 200"},
    // Its author (a guest: by its edit token, not another guest's) or an admin.
    {verb::patch, "/api/v1/comments/{comment}", R"({"body":"edited"})",
     "401 403 403 403 403 200 403", "401 200 200 200 200 200 403"},
    {verb::delete_, "/api/v1/comments/{comment}", "", "401 403 403 403 403 204 403",
     "401 204 204 204 204 204 403"},
    {verb::get, "/api/v1/comments/{comment}/replies", "", "200 200 200 200 200 200 200",
     "200 200 200 200 200 200 200"},

    // Pages of --sites.
    {verb::get, "/api/v1/pages?url={page}", "", "200 200 200 200 200 200 200"},
    {verb::get, "/api/v1/pages/comments?url={page}", "", "200 200 200 200 200 200 200"},
    {verb::get, "/api/v1/pages/events?url={page}", "", "200 200 200 200 200 200 200"},
    {verb::get, "/api/v1/articles/{article}/events", "", "200 200 200 200 200 200 200",
     "200 200 200 200 200 200 200"},
    {verb::post, "/api/v1/pages/comments?url={page}", R"({"body":"on a page"{guest}})",
     "401 201 201 201 201 201 403"},
    {verb::put, "/api/v1/pages/like?url={page}", "", "401 401 200 200 200 200 403"},
    {verb::delete_, "/api/v1/pages/like?url={page}", "", "401 401 200 200 200 200 403"},
    {verb::get, "/api/v1/pages/counts?url={page}", "", "200 200 200 200 200 200 200"},

    // Moderation: moderators and admins.
    {verb::get, "/api/v1/moderation/comments?status=pending", "", "401 401 403 403 200 200 403"},
    {verb::post, "/api/v1/moderation/comments", R"({"ids":[{comment}],"action":"spam"})",
     "401 401 403 403 200 200 403"},
    {verb::get, "/api/v1/moderation/log", "", "401 401 403 403 200 200 403"},
    // Any account may report a comment (its own too), not the banned.
    {verb::post, "/api/v1/comments/{comment}/reports", R"({"reason":"rude"})",
     "401 401 204 204 204 204 403", "401 401 204 204 204 204 403"},
    // Bans: moderators, on users; a moderator or admin is not bannable (its own: 403), and
    // lifting the ban it does not have changes nothing (200).
    {verb::put, "/api/v1/users/{user}/ban", R"({"reason":"spam"})", "401 401 403 403 200 200 403",
     "401 401 403 403 403 403 403"},
    {verb::delete_, "/api/v1/users/{user}/ban", "", "401 401 403 403 200 200 403",
     "401 401 403 403 200 200 403"},

    // The contract itself.
    {verb::get, "/api/v1/openapi.json", "", "200 200 200 200 200 200 200"},

    // The links of mails: a token in the query, whoever follows it. The confirmation's GET is
    // the page whose form POSTs it (200 whatever the token); a made-up token is 404 otherwise.
    {verb::get, "/api/v1/notifications/confirm?token=nonsense", "", "200 200 200 200 200 200 200"},
    {verb::post, "/api/v1/notifications/confirm?token=nonsense", "{}",
     "404 404 404 404 404 404 404"},
    {verb::get, "/api/v1/notifications/unsubscribe?token=nonsense", "",
     "404 404 404 404 404 404 404"},
    {verb::post, "/api/v1/notifications/unsubscribe?token=nonsense", "{}",
     "404 404 404 404 404 404 404"},

    // The variants: API.md's rules that a plain world cannot reach.
    // Drafts are their author's and admins' alone: 404 to anyone else, also to write.
    {verb::get, "/api/v1/articles/{article}", "", "404 404 404 404 404 200 404",
     "404 404 200 200 200 200 200", kDraft},
    {verb::patch, "/api/v1/articles/{article}", R"({"title":"New"})", "401 401 404 404 404 200 403",
     "401 401 200 200 200 200 403", kDraft},
    {verb::delete_, "/api/v1/articles/{article}", "", "401 401 404 404 404 204 403",
     "401 401 204 204 204 204 403", kDraft},
    // Not published: no comments (403), nor for the author.
    {verb::post, "/api/v1/articles/{article}/comments", R"({"body":"a comment"{guest}})",
     "401 404 404 404 404 403 403", "401 404 403 403 403 403 403", kDraft},
    {verb::put, "/api/v1/articles/{article}/like", "", "401 401 404 404 404 200 403",
     "401 401 200 200 200 200 403", kDraft},
    // allowComments false: a comment is refused to everyone (403).
    {verb::post, "/api/v1/articles/{article}/comments", R"({"body":"a comment"{guest}})",
     "401 403 403 403 403 403 403", "401 403 403 403 403 403 403", kClosed},
    // A held comment is its author's and moderators' to read (404 to anyone else); the guest's
    // token on another guest's comment stays refused (403).
    {verb::get, "/api/v1/comments/{comment}", "", "404 403 404 404 200 200 404",
     "404 200 200 200 200 200 200", kHeld},
    {verb::put, "/api/v1/comments/{comment}/like", "", "401 401 404 404 404 404 403",
     "401 401 404 404 404 404 403", kHeld},
    // Only admins pin, and only authors write articles (a user's kind is "post").
    {verb::post, "/api/v1/articles", R"({"title":"T","content":"c","kind":"post","pinned":true})",
     "401 401 403 403 403 201 403"},
    {verb::post, "/api/v1/articles", R"({"title":"T","content":"c","kind":"article"})",
     "401 401 403 201 201 201 403"},
    // Moderators and admins are not bannable.
    {verb::put, "/api/v1/users/{user}/ban", R"({"reason":"spam"})", "401 401 403 403 403 403 403",
     "", kModeratorTarget},
};

std::array<int, kActors> Statuses(const char* text) {
  std::array<int, kActors> out{};
  std::istringstream in(text);
  for (int& s : out) {
    in >> s;
  }
  return out;
}

// The route a row is for, as the router names it (the query and {markers} gone).
std::string RouteOf(const Row& row) {
  std::string path = row.pattern;
  path = path.substr(0, path.find('?'));
  for (const auto& [marker, name] : std::map<std::string, std::string>{
           {"{article}", "{id}"}, {"{comment}", "{id}"}, {"{user}", "{id}"}}) {
    for (size_t at = path.find(marker); at != std::string::npos; at = path.find(marker)) {
      path.replace(at, marker.size(), name);
    }
  }
  if (path.starts_with("/api/v1/auth/nowhere/")) {
    path = "/api/v1/auth/{name}/" + path.substr(std::string("/api/v1/auth/nowhere/").size());
  }
  return std::string(beast::http::to_string(row.method)) + " " + path;
}

// The row's name in messages and in the check that no row is there twice: its route, its
// variant, and its body (rows of one route may differ by what they send: a pinned article).
std::string RowName(const Row& row) {
  std::string name = RouteOf(row) + kVariantNames[row.variant];
  if (row.body[0] != '\0') {
    name += std::string(" with ") + row.body;
  }
  return name;
}

class AuthorizationMatrixTest : public ApiTest {
 protected:
  void Configure(config::Config& c) override {
    c.guests = "on";
    c.sites = SiteList::Parse("https://blog.example").value();
    c.rate_limits = false;
  }

  void SetUp() override {
    ApiTest::SetUp();
    root_ = Login("root", "rootpassword");
  }

  std::string Fresh() { return "matrix" + std::to_string(++names_); }

  // A new account of `role` ("user", "author", "moderator", "admin"); its id and token.
  std::pair<int64_t, std::string> Account(const std::string& role) {
    const std::string name = Fresh();
    const int64_t id = Register(name);
    if (role != "user") {
      auto r = Client().Patch("/api/v1/users/" + std::to_string(id),
                              R"({"role":")" + role + R"("})", Bearer(root_));
      EXPECT_EQ(r.status, 200) << r.body;
    }
    last_name_ = name;
    return {id, Login(name)};
  }

  int64_t Article(const std::string& token, const std::string& kind) {
    auto r = Client().Post(
        "/api/v1/articles",
        R"({"title":"hello","content":"c","status":"published","kind":")" + kind + R"("})",
        Bearer(token));
    EXPECT_EQ(r.status, 201) << r.body;
    return r.status == 201 ? r.Json().at("id").as_int64() : 0;
  }

  // A comment on `article` by `token` (a guest's when empty: its edit token is kept).
  int64_t Comment(int64_t article, const std::string& token, std::string* edit_token = nullptr) {
    auto r = Client().Post(
        "/api/v1/articles/" + std::to_string(article) + "/comments",
        token.empty() ? R"({"body":"mine","guest":{"name":"Gus"}})" : R"({"body":"mine"})",
        token.empty() ? HttpClient::Headers{} : Bearer(token));
    EXPECT_EQ(r.status, 201) << r.body;
    if (r.status != 201) {
      return 0;
    }
    if (edit_token != nullptr) {
      *edit_token = std::string(r.Json().at("editToken").as_string());
    }
    return r.Json().at("id").as_int64();
  }

  // One cell: a world for `actor`, the request of `row` on its own or another's object; the
  // status answered.
  int Call(const Row& row, Actor actor, bool own) {
    // Another's objects: an author's published article, a user's comment on it.
    auto [other_author, other_author_token] = Account("author");
    const int64_t others_article = Article(other_author_token, "article");
    auto [other_user, other_user_token] = Account("user");
    const int64_t others_comment = Comment(others_article, other_user_token);
    // A page of --sites with a thread (another's comment on it).
    const std::string page = "https%3A%2F%2Fblog.example%2F" + Fresh();
    auto on_page = Client().Post("/api/v1/pages/comments?url=" + page, R"({"body":"first"})",
                                 Bearer(other_user_token));
    EXPECT_EQ(on_page.status, 201) << on_page.body;

    // The caller, and what it owns.
    std::string token, name, edit_token;
    int64_t me = 0, my_article = 0, my_comment = 0;
    if (actor != kAnonymous && actor != kGuest) {
      const char* role = actor == kAuthor      ? "author"
                         : actor == kModerator ? "moderator"
                         : actor == kAdmin     ? "admin"
                                               : "user";
      std::tie(me, token) = Account(role);
      name = last_name_;
      my_article = Article(token, actor == kUser || actor == kBanned ? "post" : "article");
      my_comment = Comment(others_article, token);
    }
    // A guest's "another's" comment is another guest's, and it presents its own edit token on
    // it: every guest comment is by the one '@guest' account, so only the token tells them
    // apart.
    int64_t other_guests_comment = 0;
    if (actor == kGuest) {
      my_comment = Comment(others_article, "", &edit_token);
      other_guests_comment = Comment(others_article, "");
    }
    if (actor == kBanned) {
      auto r = Client().Put("/api/v1/users/" + std::to_string(me) + "/ban", R"({"reason":"x"})",
                            Bearer(root_));
      EXPECT_EQ(r.status, 200) << r.body;
    }
    ChangeWorld(row.variant, {my_article, others_article},
                {my_comment, others_comment, other_guests_comment}, other_user);
    const int64_t user = own && me != 0 ? me : other_user;
    const int64_t article = own && my_article != 0 ? my_article : others_article;
    const int64_t comment = own && my_comment != 0      ? my_comment
                            : other_guests_comment != 0 ? other_guests_comment
                                                        : others_comment;

    std::map<std::string, std::string> fill = {
        {"{user}", std::to_string(user)},
        {"{article}", std::to_string(article)},
        {"{comment}", std::to_string(comment)},
        {"{page}", page},
        {"{fresh}", Fresh()},
        {"{me}", name.empty() ? "nobody" : name},
        {"{guest}", actor == kGuest ? R"(,"guest":{"name":"Gus"})" : ""},
    };
    std::string target = row.pattern;
    std::string body = row.body;
    for (std::string* s : {&target, &body}) {
      for (const auto& [marker, value] : fill) {
        for (size_t at = s->find(marker); at != std::string::npos; at = s->find(marker)) {
          s->replace(at, marker.size(), value);
        }
      }
    }
    HttpClient::Headers headers;
    if (!token.empty()) {
      headers = Bearer(token);
    }
    if (actor == kGuest && !edit_token.empty()) {
      headers.emplace_back("Plaudit-Edit-Token", edit_token);
    }
    if (target.find("/events") != std::string::npos) {
      return EventsStatus(target, headers);  // a stream: only its status line
    }
    return Client()
        .Send(row.method, target, body, body.empty() ? "" : "application/json", headers)
        .status;
  }

  // Makes the world of `variant` (root's requests, each expected to succeed).
  void ChangeWorld(Variant variant, const std::vector<int64_t>& articles,
                   const std::vector<int64_t>& comments, int64_t other_user) {
    auto expect_ok = [](const HttpResponse& r) { EXPECT_EQ(r.status, 200) << r.body; };
    for (const int64_t a : articles) {
      if (a == 0) {
        continue;
      }
      const std::string path = "/api/v1/articles/" + std::to_string(a);
      if (variant == kDraft) {
        expect_ok(Client().Patch(path, R"({"status":"draft"})", Bearer(root_)));
      } else if (variant == kClosed) {
        expect_ok(Client().Patch(path, R"({"allowComments":false})", Bearer(root_)));
      }
    }
    if (variant == kHeld) {
      std::string ids;
      for (const int64_t c : comments) {
        if (c != 0) {
          ids += (ids.empty() ? "" : ",") + std::to_string(c);
        }
      }
      expect_ok(Client().Post("/api/v1/moderation/comments",
                              R"({"ids":[)" + ids + R"(],"action":"spam"})", Bearer(root_)));
    }
    if (variant == kModeratorTarget) {
      expect_ok(Client().Patch("/api/v1/users/" + std::to_string(other_user),
                               R"({"role":"moderator"})", Bearer(root_)));
    }
  }

  // The status of a live stream's answer: its head only (the stream never ends), within 5 s.
  int EventsStatus(const std::string& target, const HttpClient::Headers& headers) {
    net::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.connect(net::ip::tcp::endpoint(net::ip::make_address("127.0.0.1"), app_->port()));
    beast::http::request<beast::http::empty_body> request(beast::http::verb::get, target, 11);
    request.set(beast::http::field::host, "127.0.0.1");
    for (const auto& [k, v] : headers) {
      request.set(k, v);
    }
    beast::flat_buffer buffer;
    beast::http::response_parser<beast::http::empty_body> parser;
    int status = 0;
    stream.expires_after(std::chrono::seconds(5));
    beast::http::async_write(stream, request, [&](beast::error_code ec, size_t) {
      if (ec) {
        return;
      }
      beast::http::async_read_header(stream, buffer, parser, [&](beast::error_code ec, size_t) {
        if (!ec) {
          status = static_cast<int>(parser.get().result_int());
        }
      });
    });
    ioc.run();
    return status;
  }

  std::string root_;
  std::string last_name_;
  int names_ = 0;
};

TEST_P(AuthorizationMatrixTest, EveryRouteAnswersEveryCallerAsTheTableSays) {
  // A row for each route, and a route for each row.
  std::set<std::string> routed;
  for (const auto& [method, pattern] : app_->app().router().Routes()) {
    if (pattern.starts_with("/api/")) {
      routed.insert(std::string(beast::http::to_string(method)) + " " + pattern);
    }
  }
  std::set<std::string> rows;
  std::set<std::string> names;
  for (const Row& row : kTable) {
    EXPECT_TRUE(names.insert(RowName(row)).second) << RowName(row) << " has two rows";
    rows.insert(RouteOf(row));
  }
  for (const std::string& r : routed) {
    EXPECT_TRUE(rows.count(r)) << r << " is routed but has no row in the authorization table";
  }
  for (const std::string& r : rows) {
    EXPECT_TRUE(routed.count(r)) << r << " has a row but is not routed";
  }
  ASSERT_FALSE(HasFailure());

  std::string wrong;
  int cells = 0;
  for (const Row& row : kTable) {
    const auto others = Statuses(row.others);
    const auto own = std::string(row.own).empty() ? others : Statuses(row.own);
    for (int a = 0; a < kActors; ++a) {
      for (const bool mine : {false, true}) {
        if (mine && std::string(row.own).empty()) {
          continue;
        }
        const int want = mine ? own[a] : others[a];
        const int got = Call(row, static_cast<Actor>(a), mine);
        ++cells;
        if (got != want) {
          wrong += "  " + RowName(row) + " as " + kActorNames[a] + (mine ? " (own)" : "") + ": " +
                   std::to_string(got) + ", the table says " + std::to_string(want) + "\n";
        }
      }
    }
  }
  EXPECT_TRUE(wrong.empty()) << "cells answered otherwise than the table says:\n" << wrong;
  EXPECT_GT(cells, 400);
}

// Authorization is the handlers' and the guard's, the same on every backend: SQLite only.
INSTANTIATE_TEST_SUITE_P(Db, AuthorizationMatrixTest, ::testing::Values(Db::kSqlite), DbName);

}  // namespace
}  // namespace plaudit::testing
