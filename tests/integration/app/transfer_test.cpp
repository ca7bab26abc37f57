// plauditd export and import (API.md "Moving data in and out", issue 49): a site's data out of
// SQLite and into PostgreSQL and MariaDB byte for byte, a second import that changes nothing,
// the imported site serving what the old one did, and bad files refused whole.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "plauditd_process.hpp"
#include "support/mariadb_server.hpp"
#include "support/postgres_server.hpp"
#include "support/sse_reader.hpp"

namespace plaudit::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::vector<std::string> kFlags = {"--password-hash",
                                         "minimal",
                                         "--rate-limits",
                                         "off",
                                         "--sites",
                                         "https://blog.example",
                                         "--guests",
                                         "on",
                                         "--flush-interval-ms",
                                         "3600000"};

class TransferTest : public PlauditdProcessTest {
 protected:
  TransferTest() : PlauditdProcessTest("plaudit-transfer") {}

  // plauditd `args` run to completion; its exit status.
  int Run(std::vector<std::string> args) {
    std::vector<std::string> argv = {PLAUDITD_PATH};
    argv.insert(argv.end(), args.begin(), args.end());
    Process p(argv, log_path());
    return p.Wait(120s).value_or(-1);
  }

  std::string Dir(const std::string& name) const { return (scratch_.path() / name).string(); }
  std::string File(const std::string& name) const { return Dir(name); }

  // `import --from FROM FILE --site SITE`, into this test's data directory, with `flags` (the
  // server's) after it.
  std::vector<std::string> ImportArgs(const std::string& from, const std::string& file,
                                      const std::string& site,
                                      const std::vector<std::string>& flags) const {
    std::vector<std::string> args = {"import", "--from", from,         file,
                                     "--site", site,     "--data-dir", data_dir()};
    args.insert(args.end(), flags.begin(), flags.end());
    return args;
  }

  // Runs `args` and returns its exit status, keeping what it logged apart from the rest.
  int RunLogged(std::vector<std::string> args, std::string& log) {
    const size_t before = Log().size();
    const int status = Run(std::move(args));
    log = Log().substr(before);
    return status;
  }

  static std::string Bearer(HttpClient& c, const std::string& name, const std::string& password) {
    auto s = c.Post("/api/v1/sessions",
                    R"({"username":")" + name + R"(","password":")" + password + R"("})");
    EXPECT_EQ(s.status, 201) << s.body;
    return s.status == 201 ? "Bearer " + std::string(s.Json().at("token").as_string()) : "";
  }

  // A small site with something of every kind: accounts, a published and a draft article,
  // a reply, likes on both, a view, a report, a guest's comment on a page thread.
  struct Site {
    int64_t article = 0;
    int64_t comment = 0;
    int64_t reply = 0;
  };
  static Site Populate(int port) {
    HttpClient c("127.0.0.1", port);
    Site site;
    for (std::string name : {"alice", "bob"}) {
      EXPECT_EQ(c.Post("/api/v1/users", R"({"username":")" + name +
                                            R"(","password":"password123","displayName":"Ms )" +
                                            name + R"( \u00e9\u4f60"})")
                    .status,
                201);
    }
    const std::string boss = Bearer(c, "boss", "boss-password");
    const std::string alice = Bearer(c, "alice", "password123");
    const std::string bob = Bearer(c, "bob", "password123");
    auto a =
        c.Post("/api/v1/articles",
               R"({"title":"Hello \"world\"","content":"<p>one\ntwo</p>","status":"published"})",
               {{"Authorization", boss}});
    EXPECT_EQ(a.status, 201) << a.body;
    site.article = a.Json().at("id").as_int64();
    EXPECT_EQ(c.Post("/api/v1/articles", R"({"title":"Draft","content":"<p>later</p>"})",
                     {{"Authorization", boss}})
                  .status,
              201);
    const std::string comments = "/api/v1/articles/" + std::to_string(site.article) + "/comments";
    auto first = c.Post(comments, R"({"body":"first *post*"})", {{"Authorization", alice}});
    EXPECT_EQ(first.status, 201) << first.body;
    site.comment = first.Json().at("id").as_int64();
    auto reply =
        c.Post(comments, R"({"body":"a reply","parentId":)" + std::to_string(site.comment) + "}",
               {{"Authorization", bob}});
    EXPECT_EQ(reply.status, 201) << reply.body;
    site.reply = reply.Json().at("id").as_int64();
    const std::string like = "/api/v1/articles/" + std::to_string(site.article) + "/like";
    EXPECT_EQ(c.Put(like, "", {{"Authorization", alice}}).status, 200);
    EXPECT_EQ(c.Put(like, "", {{"Authorization", bob}}).status, 200);
    EXPECT_EQ(c.Put("/api/v1/comments/" + std::to_string(site.reply) + "/like", "",
                    {{"Authorization", alice}})
                  .status,
              200);
    // An undone like leaves a row the export does not carry.
    EXPECT_EQ(c.Put("/api/v1/comments/" + std::to_string(site.comment) + "/like", "",
                    {{"Authorization", bob}})
                  .status,
              200);
    EXPECT_EQ(c.Delete("/api/v1/comments/" + std::to_string(site.comment) + "/like",
                       {{"Authorization", bob}})
                  .status,
              200);
    EXPECT_EQ(c.Get("/api/v1/articles/" + std::to_string(site.article)).status, 200);
    EXPECT_EQ(c.Post("/api/v1/comments/" + std::to_string(site.reply) + "/reports",
                     R"({"reason":"rude"})", {{"Authorization", alice}})
                  .status,
              204);
    auto guest =
        c.Post("/api/v1/pages/comments?url=https%3A%2F%2Fblog.example%2Fp1",
               R"({"body":"from a guest","guest":{"name":"Gus","email":"gus@example.com"}})",
               {{"Origin", "https://blog.example"}});
    EXPECT_EQ(guest.status, 201) << guest.body;
    return site;
  }

  TempDir scratch_{"plaudit-transfer-files"};
};

TEST_F(TransferTest, ExportImportExportIsByteIdenticalAcrossBackendsAndTheSiteServesTheSame) {
  const int port = FreeTcpPort();
  std::vector<std::string> flags = kFlags;
  flags.insert(flags.end(), {"--bootstrap-admin", "boss:boss-password"});
  auto p = Start(flags, port);
  ASSERT_TRUE(Ready(port)) << Log();
  const Site site = Populate(port);
  if (HasFailure()) {
    return;
  }
  // Beside the running server (its likes and views are still only in Redis: the export
  // flushes them first).
  ASSERT_EQ(Run({"export", "--data-dir", data_dir(), "--with-secrets", "--out", File("a.jsonl")}),
            0)
      << Log();
  ASSERT_EQ(Run({"export", "--data-dir", data_dir(), "--out", File("public.jsonl")}), 0) << Log();
  EXPECT_EQ(p->Stop(15s), 0);
  const std::string exported = ReadFile(File("a.jsonl"));
  EXPECT_TRUE(exported.starts_with(R"({"type":"plaudit-export","version":1})"
                                   "\n"))
      << exported.substr(0, 200);
  EXPECT_NE(exported.find(R"("password_hash":"$argon2id)"), std::string::npos);
  EXPECT_NE(exported.find(R"({"type":"end","records":)"), std::string::npos);
  EXPECT_FALSE(fs::exists(File("a.jsonl.partial")));
  // Its owner's only (it holds password hashes), made new: an export cut short leaves a
  // .partial that the next one will not write through.
  EXPECT_EQ(fs::status(File("a.jsonl")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  std::ofstream(File("b.jsonl.partial")) << "someone else's\n";
  std::string refused;
  EXPECT_EQ(RunLogged({"export", "--data-dir", data_dir(), "--out", File("b.jsonl")}, refused), 1);
  EXPECT_NE(refused.find("(an export cut short? remove it)"), std::string::npos) << refused;
  EXPECT_EQ(ReadFile(File("b.jsonl.partial")), "someone else's\n");
  const std::string plain = ReadFile(File("public.jsonl"));
  EXPECT_EQ(plain.find("password_hash"), std::string::npos);
  EXPECT_EQ(plain.find("unsubscribe_key"), std::string::npos);
  EXPECT_EQ(plain.find("edit_token_hash"), std::string::npos);
  // The likes and the view reached the snapshot; the undone like did not.
  EXPECT_NE(exported.find(R"({"type":"like","target_type":"a","target_id":)" +
                          std::to_string(site.article)),
            std::string::npos);
  EXPECT_NE(exported.find(R"("view_count":1,)"), std::string::npos);
  size_t likes = 0;
  for (size_t at = 0; (at = exported.find(R"({"type":"like",)", at)) != std::string::npos; ++at) {
    ++likes;
  }
  EXPECT_EQ(likes, 3u);

  // Into PostgreSQL, and out again: the same bytes.
  auto& pg = PostgresServer::Shared();
  const std::string pg_url = pg.url(pg.CreateDatabase());
  ASSERT_EQ(Run({"import", File("a.jsonl"), "--data-dir", Dir("pg"), "--database", pg_url}), 0)
      << Log();
  ASSERT_EQ(Run({"export", "--data-dir", Dir("pg"), "--database", pg_url, "--with-secrets", "--out",
                 File("pg.jsonl")}),
            0)
      << Log();
  EXPECT_EQ(ReadFile(File("pg.jsonl")), exported);
  // The same file again changes nothing.
  std::string log;
  EXPECT_EQ(
      RunLogged({"import", File("a.jsonl"), "--data-dir", Dir("pg"), "--database", pg_url}, log), 0)
      << log;
  EXPECT_NE(log.find("holds this file's import already; nothing changed"), std::string::npos)
      << log;
  ASSERT_EQ(Run({"export", "--data-dir", Dir("pg"), "--database", pg_url, "--with-secrets", "--out",
                 File("pg2.jsonl")}),
            0);
  EXPECT_EQ(ReadFile(File("pg2.jsonl")), exported);

  // Into MariaDB, and out again.
  auto& maria = MariadbServer::Shared();
  const std::string maria_url = maria.url(maria.CreateDatabase());
  ASSERT_EQ(Run({"import", File("a.jsonl"), "--data-dir", Dir("maria"), "--database", maria_url}),
            0)
      << Log();
  ASSERT_EQ(Run({"export", "--data-dir", Dir("maria"), "--database", maria_url, "--with-secrets",
                 "--out", File("maria.jsonl")}),
            0)
      << Log();
  EXPECT_EQ(ReadFile(File("maria.jsonl")), exported);

  // The imported site serves what the old one did, signs its readers in, and hands out new ids
  // above the imported ones.
  const int pg_port = FreeTcpPort();
  std::vector<std::string> pg_flags = kFlags;
  pg_flags.insert(pg_flags.end(), {"--data-dir", Dir("pg"), "--database", pg_url, "--port",
                                   std::to_string(pg_port)});
  std::vector<std::string> argv = {PLAUDITD_PATH};
  argv.insert(argv.end(), pg_flags.begin(), pg_flags.end());
  Process server(argv, log_path());
  ASSERT_TRUE(Ready(pg_port)) << Log();
  HttpClient c("127.0.0.1", pg_port);
  const std::string art = "/api/v1/articles/" + std::to_string(site.article);
  auto a = c.Get(art);
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.Json().at("likeCount").as_int64(), 2);
  EXPECT_EQ(a.Json().at("title").as_string(), "Hello \"world\"");
  auto reply = c.Get("/api/v1/comments/" + std::to_string(site.reply));
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.Json().at("likeCount").as_int64(), 1);
  EXPECT_EQ(c.Get("/api/v1/comments/" + std::to_string(site.comment)).Json().at("likeCount"), 0);
  auto page = c.Get("/api/v1/pages?url=https%3A%2F%2Fblog.example%2Fp1");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.Json().at("commentCount").as_int64(), 1);
  const std::string alice = Bearer(c, "alice", "password123");
  auto liked = c.Get(art + "/like", {{"Authorization", alice}});
  EXPECT_EQ(liked.body, R"({"liked":true,"likeCount":2})");
  auto more = c.Post(art + "/comments", R"({"body":"after the move"})", {{"Authorization", alice}});
  ASSERT_EQ(more.status, 201) << more.body;
  EXPECT_GT(more.Json().at("id").as_int64(), site.reply);
  const std::string boss = Bearer(c, "boss", "boss-password");
  auto next = c.Post("/api/v1/articles", R"({"title":"Next","content":"<p>x</p>"})",
                     {{"Authorization", boss}});
  ASSERT_EQ(next.status, 201) << next.body;
  EXPECT_GT(next.Json().at("id").as_int64(), site.article + 1);  // the draft had article + 1
  auto signup = c.Post("/api/v1/users", R"({"username":"carol","password":"password123"})");
  EXPECT_EQ(signup.status, 201) << signup.body;  // the users' id sequence moved past the file's
  EXPECT_EQ(server.Stop(15s), 0);

  // Without secrets the accounts are there but sign in no other way than they can without a
  // password.
  ASSERT_EQ(Run({"import", File("public.jsonl"), "--data-dir", Dir("plain")}), 0) << Log();
  const int plain_port = FreeTcpPort();
  std::vector<std::string> plain_argv = {PLAUDITD_PATH, "--data-dir", Dir("plain"), "--port",
                                         std::to_string(plain_port)};
  plain_argv.insert(plain_argv.end(), kFlags.begin(), kFlags.end());
  Process plain_server(plain_argv, log_path());
  ASSERT_TRUE(Ready(plain_port)) << Log();
  HttpClient pc("127.0.0.1", plain_port);
  EXPECT_EQ(pc.Post("/api/v1/sessions", R"({"username":"alice","password":"password123"})").status,
            401);
  EXPECT_EQ(pc.Get(art).Json().at("likeCount").as_int64(), 2);
  EXPECT_EQ(plain_server.Stop(15s), 0);
}

// Lines of a good export of a small site (no secrets), for the bad-file tests to spoil.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

void Write(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  for (const auto& l : lines) {
    out << l << '\n';
  }
}

TEST_F(TransferTest, BadFilesAreRefusedWholeWithTheirLineAndAFullDatabaseOrRedisIsNotTouched) {
  const int port = FreeTcpPort();
  std::vector<std::string> flags = kFlags;
  flags.insert(flags.end(), {"--bootstrap-admin", "boss:boss-password"});
  auto p = Start(flags, port);
  ASSERT_TRUE(Ready(port)) << Log();
  Populate(port);
  ASSERT_EQ(Run({"export", "--data-dir", data_dir(), "--out", File("good.jsonl")}), 0) << Log();
  // Into the database it came from (the server's Redis beside it): refused.
  std::string log;
  EXPECT_EQ(RunLogged({"import", File("good.jsonl"), "--data-dir", data_dir()}, log), 1);
  EXPECT_NE(log.find("the database is not new"), std::string::npos) << log;
  EXPECT_EQ(p->Stop(15s), 0);

  const std::vector<std::string> good = Lines(ReadFile(File("good.jsonl")));
  ASSERT_GT(good.size(), 10u);
  size_t comment_line = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    if (good[i].starts_with(R"({"type":"comment",)") && comment_line == 0) {
      comment_line = i;
    }
  }
  ASSERT_GT(comment_line, 0u);
  const std::string line_no = std::to_string(comment_line + 1);

  struct Bad {
    std::string name;
    std::vector<std::string> lines;
    std::string message;
  };
  std::vector<Bad> bad;
  {
    auto l = good;
    l[0] = R"({"type":"disqus","version":1})";
    bad.push_back({"not an export", l, "line 1: not a Plaudit export"});
  }
  {
    auto l = good;
    l[0] = R"({"type":"plaudit-export","version":2})";
    bad.push_back({"a newer version", l, "line 1: an export of version 2"});
  }
  {
    auto l = good;
    l[comment_line].insert(1, R"("colour":"red",)");
    bad.push_back({"an unknown field", l, "line " + line_no + ": unknown field \"colour\""});
  }
  {
    auto l = good;
    const size_t at = l[comment_line].find(R"("deleted":0,)");
    ASSERT_NE(at, std::string::npos) << l[comment_line];
    l[comment_line].erase(at, 12);
    bad.push_back(
        {"a missing field", l, "line " + line_no + ": a comment record without \"deleted\""});
  }
  {
    auto l = good;
    l[comment_line] = l[comment_line].substr(0, l[comment_line].size() / 2);
    bad.push_back({"a line cut in half", l, "line " + line_no + ": not a JSON object"});
  }
  {
    auto l = good;
    l.pop_back();
    bad.push_back({"cut short at a line's end", l, "ends without its end record"});
  }
  {
    auto l = good;
    l.erase(l.begin() + static_cast<std::ptrdiff_t>(comment_line));
    bad.push_back({"a record less than the end counts", l, "does not count the"});
  }
  {
    // The first comment (the reply's parent) removed and the end's count mended: a reply
    // whose parent is missing.
    auto l = good;
    l.erase(l.begin() + static_cast<std::ptrdiff_t>(comment_line));
    const size_t n = l.size() - 2;
    l.back() = R"({"type":"end","records":)" + std::to_string(n) + "}";
    bad.push_back({"a reply without its parent", l, "a reply names a parent comment"});
  }
  {
    auto l = good;
    std::swap(l[1], l[comment_line]);
    bad.push_back({"records out of order", l, "records come in the export's order"});
  }
  {
    // One line of 100 MiB: refused once it passes 64 MiB, without being read whole.
    auto l = good;
    l[comment_line] = std::string(size_t{100} << 20, ' ');
    bad.push_back({"a line of 100 MiB", l, "line " + line_no + ": longer than 64 MiB"});
  }
  {
    auto l = good;
    l.push_back("{}");
    bad.push_back({"a record after the end", l, "after the end record"});
  }
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.name);
    Write(File("bad.jsonl"), b.lines);
    EXPECT_EQ(RunLogged({"import", File("bad.jsonl"), "--data-dir", Dir("fresh")}, log), 1) << log;
    EXPECT_NE(log.find(b.message), std::string::npos) << log;
  }
  // None of them left a row: the good file still loads into the same database (with the blank
  // lines an editor may leave after its end).
  std::ofstream(File("good.jsonl"), std::ios::app) << "\n\n";
  ASSERT_EQ(RunLogged({"import", File("good.jsonl"), "--data-dir", Dir("fresh")}, log), 0) << log;
  EXPECT_NE(log.find("imported "), std::string::npos) << log;

  // A new database beside a Redis that holds Plaudit's keys (a server ran on it): refused.
  const int port2 = FreeTcpPort();
  std::vector<std::string> argv = {PLAUDITD_PATH, "--data-dir", Dir("busy"), "--port",
                                   std::to_string(port2)};
  Process busy(argv, log_path());
  ASSERT_TRUE(Ready(port2)) << Log();
  // A failed sign-in: a rate-limit key in Redis, nothing in SQL.
  EXPECT_EQ(HttpClient("127.0.0.1", port2)
                .Post("/api/v1/sessions", R"({"username":"nobody","password":"wrong-password"})")
                .status,
            401);
  EXPECT_NE(Shell("redis-cli -s " + ShellQuote(Dir("busy") + "/redis/redis.sock") + " DBSIZE"),
            "0");
  EXPECT_EQ(RunLogged({"import", File("good.jsonl"), "--data-dir", Dir("busy")}, log), 1) << log;
  EXPECT_NE(log.find("Redis holds Plaudit's keys"), std::string::npos) << log;
  EXPECT_EQ(busy.Stop(15s), 0);
}

// import --from disqus beside a running server (tests/data/import/disqus.xml): a dry run
// writes nothing; the import makes the page threads, flattens the replies, keeps spam out of
// readers' sight, and the running server serves it all at once (its caches learn of the
// writes as of any other); a second run writes nothing.
TEST_F(TransferTest, ImportFromDisqusBesideARunningServerWritesEachCommentOnce) {
  const std::string sample = std::string(PLAUDIT_SOURCE_DIR) + "/tests/data/import/disqus.xml";
  const std::vector<std::string> site = {
      "--sites", "https://blog.example.org", "--password-hash", "minimal", "--rate-limits", "off"};
  const int port = FreeTcpPort();
  auto p = Start(site, port);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c("127.0.0.1", port);
  const std::string hello = "url=https%3A%2F%2Fblog.example.org%2F2020%2F05%2Fhello";
  const std::string about = "url=https%3A%2F%2Fblog.example.org%2Fabout";
  auto before = c.Get("/api/v1/pages?" + hello);
  ASSERT_EQ(before.status, 200) << before.body;
  EXPECT_TRUE(before.Json().at("articleId").is_null());

  std::vector<std::string> import = ImportArgs("disqus", sample, "https://blog.example.org", site);
  std::vector<std::string> dry = import;
  dry.push_back("--dry-run");
  ASSERT_EQ(Run(dry), 0) << Log();
  EXPECT_TRUE(c.Get("/api/v1/pages?" + hello).Json().at("articleId").is_null());

  std::string log;
  ASSERT_EQ(RunLogged(import, log), 0) << log;
  EXPECT_NE(log.find("imported: 2 pages; 4 comments written now, 0 by an earlier run"),
            std::string::npos)
      << log;
  auto page = c.Get("/api/v1/pages?" + hello);
  ASSERT_EQ(page.status, 200) << page.body;
  ASSERT_FALSE(page.Json().at("articleId").is_null()) << page.body;
  EXPECT_EQ(page.Json().at("commentCount").as_int64(), 3);
  auto list = c.Get("/api/v1/pages/comments?" + hello + "&sort=old&replies=5");
  ASSERT_EQ(list.status, 200) << list.body;
  const boost::json::value listed = list.Json();
  const auto& items = listed.at("items").as_array();
  ASSERT_EQ(items.size(), 1u) << list.body;
  const auto& first = items[0].as_object();
  EXPECT_EQ(first.at("author").at("displayName").as_string(), "Alice");
  EXPECT_TRUE(first.at("author").at("guest").as_bool());
  EXPECT_EQ(first.at("createdAt").as_string(), "2020-05-02T09:15:00.000Z");
  EXPECT_EQ(first.at("replyCount").as_int64(), 2);
  const auto& replies = first.at("replies").as_array();
  ASSERT_EQ(replies.size(), 2u) << list.body;
  EXPECT_EQ(replies[0].at("author").at("displayName").as_string(), "Bob");
  EXPECT_EQ(replies[0].at("body").as_string(), "Thanks Alice & all. Second line.");
  EXPECT_EQ(replies[1].at("author").at("displayName").as_string(), "Dave");
  EXPECT_EQ(list.body.find("spam@example.net"), std::string::npos);
  // The spam comment is the about page's, held from readers.
  auto about_page = c.Get("/api/v1/pages?" + about);
  ASSERT_EQ(about_page.status, 200) << about_page.body;
  EXPECT_EQ(about_page.Json().at("commentCount").as_int64(), 0);
  EXPECT_EQ(c.Get("/api/v1/pages/comments?" + about).Json().at("items").as_array().size(), 0u);

  // Again: nothing more.
  ASSERT_EQ(RunLogged(import, log), 0) << log;
  EXPECT_NE(log.find("imported: 2 pages; 0 comments written now, 4 by an earlier run"),
            std::string::npos)
      << log;
  EXPECT_EQ(c.Get("/api/v1/pages?" + hello).Json().at("commentCount").as_int64(), 3);
  EXPECT_EQ(p->Stop(15s), 0);
}

// WordPress, Waline and Twikoo files into one running site (their pages are the same paths, so
// their threads merge): each comment written once, replies under their top-level comment, and
// what the files held for moderation (WordPress 0, Waline "waiting", Twikoo isSpam) pending:
// in the moderation queue, and served by no path a reader has (lists, replies, reads, counts,
// likes, live events).
TEST_F(TransferTest, ImportsFromWordpressWalineAndTwikooHoldPendingCommentsFromEveryReader) {
  const std::string data = std::string(PLAUDIT_SOURCE_DIR) + "/tests/data/import/";
  const std::vector<std::string> site = {
      "--sites", "https://blog.example.org", "--password-hash", "minimal", "--rate-limits", "off"};
  const int port = FreeTcpPort();
  std::vector<std::string> serve = site;
  serve.insert(serve.end(), {"--bootstrap-admin", "boss:boss-password"});
  auto p = Start(serve, port);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c("127.0.0.1", port);
  const std::string boss = Bearer(c, "boss", "boss-password");
  auto import = [&](const std::string& from, const std::string& file, std::string& log) {
    return RunLogged(ImportArgs(from, data + file, "https://blog.example.org", site), log);
  };
  const std::string hello = "url=https%3A%2F%2Fblog.example.org%2F2024%2F01%2Fhello-world%2F";
  std::string log;
  ASSERT_EQ(import("wordpress", "wordpress.xml", log), 0) << log;
  EXPECT_NE(log.find("imported: 1 pages; 3 comments written now, 0 by an earlier run"),
            std::string::npos)
      << log;
  // A reader of the page from now on: what the next imports write must not reach it.
  auto thread = c.Get("/api/v1/pages?" + hello);
  ASSERT_EQ(thread.status, 200) << thread.body;
  EXPECT_EQ(thread.Json().at("commentCount").as_int64(), 2);
  SseReader live(static_cast<uint16_t>(port), "/api/v1/pages/events?" + hello);
  ASSERT_EQ(live.status(), 200) << live.head();

  ASSERT_EQ(import("waline", "waline.json", log), 0) << log;
  EXPECT_NE(log.find("imported: 3 pages; 5 comments written now, 0 by an earlier run"),
            std::string::npos)
      << log;
  ASSERT_EQ(import("twikoo", "twikoo.json", log), 0) << log;
  EXPECT_NE(log.find("imported: 2 pages; 4 comments written now, 0 by an earlier run"),
            std::string::npos)
      << log;
  ASSERT_EQ(import("twikoo", "twikoo.json", log), 0) << log;  // again: nothing more
  EXPECT_NE(log.find("imported: 2 pages; 0 comments written now, 4 by an earlier run"),
            std::string::npos)
      << log;

  // What the files held back: in the queue, with their text.
  auto queue = c.Get("/api/v1/moderation/comments?status=pending", {{"Authorization", boss}});
  ASSERT_EQ(queue.status, 200) << queue.body;
  std::vector<int64_t> held;
  std::string held_text;
  const boost::json::value queued = queue.Json();
  for (const auto& item : queued.at("items").as_array()) {
    EXPECT_EQ(item.at("status").as_string(), "pending");
    held.push_back(item.at("id").as_int64());
    held_text += std::string(item.at("body").as_string()) + "\n";
  }
  ASSERT_EQ(held.size(), 4u) << queue.body;
  for (const char* text : {"Waiting for moderation (reply to the admin).",
                           "Nested reply, still waiting for moderation.",
                           "Nested reply awaiting manual review.", "cheap pills here"}) {
    EXPECT_NE(held_text.find(text), std::string::npos) << text << " not in " << queue.body;
  }
  auto spam = c.Get("/api/v1/moderation/comments?status=spam", {{"Authorization", boss}});
  ASSERT_EQ(spam.status, 200) << spam.body;
  EXPECT_EQ(spam.Json().at("items").as_array().size(), 1u) << spam.body;  // Waline's

  // Nowhere for readers: the page's count and list with its replies, each reply page, each
  // comment's own read and its likes.
  const std::vector<std::string> hidden = {"moderation", "manual review", "cheap pills"};
  auto expect_hidden = [&](const HttpResponse& r, const std::string& what) {
    for (const std::string& text : hidden) {
      EXPECT_EQ(r.body.find(text), std::string::npos) << what << ": " << r.body;
    }
  };
  auto page = c.Get("/api/v1/pages?" + hello);
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.Json().at("commentCount").as_int64(), 6);  // 2 approved from each file
  auto list = c.Get("/api/v1/pages/comments?" + hello + "&sort=old&replies=10");
  ASSERT_EQ(list.status, 200) << list.body;
  expect_hidden(list, "the page's list");
  const boost::json::value listed = list.Json();
  const auto& tops = listed.at("items").as_array();
  ASSERT_EQ(tops.size(), 3u) << list.body;  // Alice's, from each file
  std::string replies_seen;
  for (const auto& top : tops) {
    EXPECT_EQ(top.at("author").at("displayName").as_string(), "Alice");
    EXPECT_EQ(top.at("replyCount").as_int64(), 1) << list.body;
    const std::string id = std::to_string(top.at("id").as_int64());
    auto replies = c.Get("/api/v1/comments/" + id + "/replies?sort=old");
    ASSERT_EQ(replies.status, 200) << replies.body;
    expect_hidden(replies, "replies of " + id);
    replies_seen += replies.body;
  }
  // Waline's Markdown rendered, the emoji image it allowed in it judged by the allow-list
  // (images off: its alt text); WordPress's newlines as breaks.
  EXPECT_NE(list.body.find("<a href=\\\"https://example.com\\\""), std::string::npos) << list.body;
  EXPECT_NE(replies_seen.find("Thanks weibo_smile"), std::string::npos) << replies_seen;
  EXPECT_EQ(list.body.find("wl-emoji"), std::string::npos) << list.body;
  EXPECT_NE(list.body.find("Nice post!<br"), std::string::npos) << list.body;
  auto about = c.Get("/api/v1/pages?url=https%3A%2F%2Fblog.example.org%2Fabout");
  ASSERT_EQ(about.status, 200) << about.body;
  EXPECT_EQ(about.Json().at("commentCount").as_int64(), 0);
  expect_hidden(c.Get("/api/v1/pages/comments?url=https%3A%2F%2Fblog.example.org%2Fabout"),
                "the about page's list");
  for (const int64_t id : held) {
    const std::string path = "/api/v1/comments/" + std::to_string(id);
    EXPECT_EQ(c.Get(path).status, 404) << path;
    EXPECT_EQ(c.Get(path, {{"Authorization", boss}}).status, 200) << path;
    EXPECT_EQ(c.Get(path + "/replies").status, 404) << path;
    auto likes = c.Get("/api/v1/likes?comment=" + std::to_string(id));
    ASSERT_EQ(likes.status, 200) << likes.body;
    EXPECT_EQ(likes.Json().at("comment").at(std::to_string(id)).at("likeCount").as_int64(), 0);
  }
  // The live stream saw none of it (imports announce nothing; held comments never would).
  live.Next(std::chrono::milliseconds(200));
  for (const std::string& text : hidden) {
    EXPECT_EQ(live.raw().find(text), std::string::npos) << live.raw();
  }
  EXPECT_EQ(p->Stop(15s), 0);
}

// A Twikoo file of 3,000 comments on 40 pages (seeded: a third replies to an approved comment of
// their page, a tenth held) imported into PostgreSQL and MariaDB while readers' comments arrive
// on the same pages from two clients: the import's transactions take many articles' rows
// (by ascending id, their cache shards after them) and the server's one each, so neither waits
// on the other for ever; afterwards each page counts exactly what was imported and posted.
TEST_F(TransferTest, AnImportOfManyPagesBesideCommentsOnThemKeepsEveryCountOnPostgresAndMariadb) {
  constexpr int kPages = 40;
  constexpr int kComments = 3000;
  std::mt19937 rng(49);
  std::map<int, int> approved;              // page → approved comments in the file
  std::map<int, std::vector<int>> visible;  // page → approved comments (to reply to)
  std::string file = "[\n";
  for (int i = 0; i < kComments; ++i) {
    const int page = static_cast<int>(rng() % kPages);
    const bool held = rng() % 10 == 0;
    std::string parent;
    if (rng() % 3 == 0 && !visible[page].empty()) {
      parent = "c" + std::to_string(visible[page][rng() % visible[page].size()]);
    }
    if (!held) {
      ++approved[page];
      visible[page].push_back(i);
    }
    file += std::string(i == 0 ? "" : ",\n") + R"({"_id":"c)" + std::to_string(i) +
            R"(","url":"/p/)" + std::to_string(page) + R"(/","nick":"n)" + std::to_string(i) +
            R"(","comment":"<p>comment )" + std::to_string(i) + R"(</p>","created":)" +
            std::to_string(1700000000000 + i) +
            (parent.empty() ? "" : R"(,"pid":")" + parent + "\"") +
            (held ? R"(,"isSpam":true)" : "") + "}";
  }
  file += "\n]\n";
  std::ofstream(File("many.json")) << file;

  for (const std::string backend : {"postgresql", "mariadb"}) {
    SCOPED_TRACE(backend);
    const std::string url =
        backend == "postgresql"
            ? PostgresServer::Shared().url(PostgresServer::Shared().CreateDatabase())
            : MariadbServer::Shared().url(MariadbServer::Shared().CreateDatabase());
    const std::string dir = Dir("many-" + backend);
    std::vector<std::string> flags = kFlags;
    flags.insert(flags.end(), {"--database", url});
    const int port = FreeTcpPort();
    std::vector<std::string> serve = {PLAUDITD_PATH, "--data-dir", dir, "--port",
                                      std::to_string(port)};
    serve.insert(serve.end(), flags.begin(), flags.end());
    auto p = std::make_unique<Process>(serve, log_path());
    ASSERT_TRUE(Ready(port)) << Log();

    std::atomic<bool> importing{true};
    std::vector<std::map<int, int>> posted(2);  // per client: page → comments posted
    std::vector<std::thread> clients;
    for (int t = 0; t < 2; ++t) {
      clients.emplace_back([&, t] {
        HttpClient c("127.0.0.1", port);
        std::mt19937 r(static_cast<unsigned>(t));
        for (int n = 0; importing.load() || n < 20; ++n) {
          const int page = static_cast<int>(r() % kPages);
          auto res = c.Post(
              "/api/v1/pages/comments?url=https%3A%2F%2Fblog.example%2Fp%2F" + std::to_string(page),
              R"({"body":"live )" + std::to_string(n) + R"(","guest":{"name":"Live )" +
                  std::to_string(t) + R"("}})",
              {{"Origin", "https://blog.example"}});
          if (res.status == 201) {
            posted[t][page] += res.Json().at("status").as_string() == "approved" ? 1 : 0;
          } else {
            ADD_FAILURE() << res.status << " " << res.body;
            return;
          }
        }
      });
    }
    std::string log;
    const int status = RunLogged({"import", "--from", "twikoo", File("many.json"), "--site",
                                  "https://blog.example", "--data-dir", dir, "--database", url,
                                  "--sites", "https://blog.example", "--rate-limits", "off"},
                                 log);
    importing = false;
    for (auto& t : clients) {
      t.join();
    }
    ASSERT_EQ(status, 0) << log;
    EXPECT_NE(log.find("comments written now, 0 by an earlier run"), std::string::npos) << log;
    HttpClient c("127.0.0.1", port);
    for (int page = 0; page < kPages; ++page) {
      auto got =
          c.Get("/api/v1/pages?url=https%3A%2F%2Fblog.example%2Fp%2F" + std::to_string(page));
      ASSERT_EQ(got.status, 200) << got.body;
      EXPECT_EQ(got.Json().at("commentCount").as_int64(),
                approved[page] + posted[0][page] + posted[1][page])
          << "page " << page;
    }
    EXPECT_EQ(p->Stop(15s), 0);
  }
}

// An import SIGKILLed in the middle, beside a running server: the rerun writes what the first
// run did not, each comment once (their places in the file commit with them), and the pages
// count exactly the file's approved comments; a third run writes nothing.
TEST_F(TransferTest, AnImportKilledMidwayIsFinishedByTheRerunWritingEachCommentOnce) {
  constexpr int kPages = 20;
  constexpr int kComments = 30000;
  std::mt19937 rng(4949);
  std::map<int, int> approved;  // page → approved comments in the file
  std::string file = "[\n";
  for (int i = 0; i < kComments; ++i) {
    const int page = i < kPages ? i : static_cast<int>(rng() % kPages);
    const bool held = rng() % 10 == 0;
    approved[page] += held ? 0 : 1;
    file += std::string(i == 0 ? "" : ",\n") + R"({"_id":"c)" + std::to_string(i) +
            R"(","url":"/k/)" + std::to_string(page) + R"(","nick":"n","comment":"<p>c )" +
            std::to_string(i) + R"(</p>","created":)" + std::to_string(1700000000000 + i) +
            (held ? R"(,"isSpam":true)" : "") + "}";
  }
  file += "\n]\n";
  std::ofstream(File("kill.json")) << file;
  const std::vector<std::string> site = {"--sites", "https://blog.example", "--password-hash",
                                         "minimal", "--rate-limits",        "off"};
  const int port = FreeTcpPort();
  auto p = Start(site, port);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c("127.0.0.1", port);
  auto count = [&](int page) -> int64_t {
    auto got = c.Get("/api/v1/pages?url=https%3A%2F%2Fblog.example%2Fk%2F" + std::to_string(page));
    if (got.status != 200 || got.Json().at("commentCount").is_null()) {
      return -1;
    }
    return got.Json().at("commentCount").as_int64();
  };
  std::vector<std::string> import = {PLAUDITD_PATH};
  for (std::string& arg : ImportArgs("twikoo", File("kill.json"), "https://blog.example", site)) {
    import.push_back(std::move(arg));
  }
  {
    Process first(import, log_path());
    // Killed once it has written something, long before it has written everything.
    ASSERT_TRUE(WaitFor([&] { return count(0) > 0 || !first.Running(); }, 60s)) << Log();
    first.Signal(SIGKILL);
    first.Wait(10s);
  }
  std::string log;
  import.erase(import.begin());
  ASSERT_EQ(RunLogged(import, log), 0) << log;
  const auto at = log.find("comments written now, ");
  ASSERT_NE(at, std::string::npos) << log;
  const auto now_at = log.rfind("; ", at) + 2;
  const int64_t now = std::stoll(log.substr(now_at, at - now_at));
  const int64_t earlier = std::stoll(log.substr(at + 22));
  EXPECT_GT(now, 0) << log;
  EXPECT_GT(earlier, 0) << log;
  EXPECT_EQ(now + earlier, kComments) << log;
  int64_t total = 0;
  for (int page = 0; page < kPages; ++page) {
    EXPECT_EQ(count(page), approved[page]) << "page " << page;
    total += count(page);
  }
  ASSERT_EQ(RunLogged(import, log), 0) << log;
  EXPECT_NE(log.find("0 comments written now, " + std::to_string(kComments) + " by an earlier run"),
            std::string::npos)
      << log;
  int64_t again = 0;
  for (int page = 0; page < kPages; ++page) {
    again += count(page);
  }
  EXPECT_EQ(again, total);
  EXPECT_EQ(p->Stop(15s), 0);
}

// What an import writes follows the rules a comment written now follows: a text that renders
// larger than a comment keeps is cut to fit and said so (not dropped); a guest's name is one
// line, and one that looks like a registered user's is marked as a guest's; a span the file's
// HTML calls a mention is no mention.
TEST_F(TransferTest, ImportedTextsAndNamesFollowTheRulesOfCommentsWrittenNow) {
  std::string list;
  for (int i = 0; i < 200000; ++i) {
    list += "- a\n";
  }
  const std::string file =
      R"({"type":"waline","version":1,"data":{"Comment":[)"
      R"({"objectId":1,"url":"/r/","nick":"boss","insertedAt":"2024-01-15T10:30:00Z","comment":")" +
      [&] {
        std::string escaped;
        for (char ch : list) {
          escaped += ch == '\n' ? std::string("\\n") : std::string(1, ch);
        }
        return escaped;
      }() +
      R"("},{"objectId":2,"url":"/r/","nick":"line1\nline2\u0007","mail":"x@example.com",)"
      R"("insertedAt":"2024-01-15T10:31:00Z",)"
      R"("comment":"<span class=\"mention\">@boss</span> hi"}]}})";
  std::ofstream(File("rules.json")) << file;
  const std::vector<std::string> site = {"--sites", "https://blog.example", "--password-hash",
                                         "minimal", "--rate-limits",        "off"};
  const int port = FreeTcpPort();
  std::vector<std::string> serve = site;
  serve.insert(serve.end(), {"--bootstrap-admin", "boss:boss-password"});
  auto p = Start(serve, port);
  ASSERT_TRUE(Ready(port)) << Log();
  const std::vector<std::string> import =
      ImportArgs("waline", File("rules.json"), "https://blog.example", site);
  std::string log;
  ASSERT_EQ(RunLogged(import, log), 0) << log;
  EXPECT_NE(log.find("line 1: comment 1: its text was cut to what a comment keeps"),
            std::string::npos)
      << log.substr(0, 2000);
  EXPECT_NE(log.find("2 comments written now, 0 by an earlier run; 1 written other than the "
                     "file has them"),
            std::string::npos)
      << log.substr(0, 2000);
  HttpClient c("127.0.0.1", port);
  // The pages of the list (one of a long comment is a page of its own: pages are bounded in
  // bytes, and say where the next begins).
  boost::json::array items;
  std::string cursor;
  for (int n = 0; n < 5 && items.size() < 2; ++n) {
    auto got = c.Get("/api/v1/pages/comments?url=https%3A%2F%2Fblog.example%2Fr&sort=old" +
                     (cursor.empty() ? "" : "&cursor=" + cursor));
    ASSERT_EQ(got.status, 200) << got.body.substr(0, 2000);
    const boost::json::value page = got.Json();
    for (const auto& item : page.at("items").as_array()) {
      items.push_back(item);
    }
    if (page.at("nextCursor").is_null()) {
      break;
    }
    cursor = std::string(page.at("nextCursor").as_string());
  }
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].at("author").at("displayName").as_string(), "boss (guest)");
  const auto& html = items[0].at("html").as_string();
  EXPECT_TRUE(html.starts_with("<ul>\n<li>a</li>")) << std::string(html.subview(0, 100));
  EXPECT_LE(html.size(), size_t{1} << 20);
  EXPECT_GT(html.size(), size_t{100} << 10);  // cut to fit, not to nothing
  EXPECT_EQ(items[1].at("author").at("displayName").as_string(), "line1 line2");
  EXPECT_EQ(items[1].at("html").as_string().find("mention"), std::string::npos)
      << items[1].at("html");
  EXPECT_EQ(p->Stop(15s), 0);
}

// A site moved without --with-secrets: its accounts have no password, until the operator gives
// one (`plauditd user password NAME`, read from stdin); a running server takes it at once.
TEST_F(TransferTest, AnAccountMovedWithoutItsSecretsSignsInOnceGivenAPassword) {
  const int port = FreeTcpPort();
  std::vector<std::string> flags = kFlags;
  flags.insert(flags.end(), {"--bootstrap-admin", "boss:boss-password"});
  auto p = Start(flags, port);
  ASSERT_TRUE(Ready(port)) << Log();
  Populate(port);
  ASSERT_EQ(Run({"export", "--data-dir", data_dir(), "--out", File("public.jsonl")}), 0) << Log();
  EXPECT_EQ(p->Stop(15s), 0);
  ASSERT_EQ(Run({"import", File("public.jsonl"), "--data-dir", Dir("moved")}), 0) << Log();

  const int port2 = FreeTcpPort();
  std::vector<std::string> argv = {PLAUDITD_PATH, "--data-dir", Dir("moved"), "--port",
                                   std::to_string(port2)};
  argv.insert(argv.end(), kFlags.begin(), kFlags.end());
  Process moved(argv, log_path());
  ASSERT_TRUE(Ready(port2)) << Log();
  HttpClient c("127.0.0.1", port2);
  const std::string login = R"({"username":"alice","password":"new-password-1"})";
  EXPECT_EQ(c.Post("/api/v1/sessions", login).status, 401);
  auto set = [&](const std::string& name, const std::string& password) {
    Process sh({"sh", "-c",
                "printf '%s\\n' " + ShellQuote(password) + " | " + ShellQuote(PLAUDITD_PATH) +
                    " user password " + ShellQuote(name) + " --password-hash minimal --data-dir " +
                    ShellQuote(Dir("moved"))},
               log_path());
    return sh.Wait(60s).value_or(-1);
  };
  EXPECT_EQ(set("alice", "new-password-1"), 0) << Log();
  auto s = c.Post("/api/v1/sessions", login);
  ASSERT_EQ(s.status, 201) << s.body;
  EXPECT_EQ(s.Json().at("user").at("username").as_string(), "alice");
  EXPECT_EQ(set("nobody", "new-password-1"), 1);  // no such account
  EXPECT_EQ(set("alice", "short"), 1);            // the rules of a password
  EXPECT_EQ(c.Post("/api/v1/sessions", login).status, 201);
  EXPECT_EQ(Log().find("new-password-1"), std::string::npos);  // never logged

  // A password reset ends the account's open sessions (another may know the old password),
  // and no other account's; the refused resets above ended none.
  const std::string alice = "Bearer " + std::string(s.Json().at("token").as_string());
  ASSERT_EQ(set("boss", "boss-password"), 0) << Log();  // moved without one too
  const std::string boss2 = Bearer(c, "boss", "boss-password");
  ASSERT_EQ(c.Get("/api/v1/users/me", {{"Authorization", alice}}).status, 200);
  ASSERT_EQ(c.Get("/api/v1/users/me", {{"Authorization", boss2}}).status, 200);
  EXPECT_EQ(set("alice", "new-password-2"), 0) << Log();
  EXPECT_EQ(c.Get("/api/v1/users/me", {{"Authorization", alice}}).status, 401);
  EXPECT_EQ(c.Get("/api/v1/users/me", {{"Authorization", boss2}}).status, 200);
  EXPECT_EQ(c.Post("/api/v1/sessions", login).status, 401);
  EXPECT_EQ(
      c.Post("/api/v1/sessions", R"({"username":"alice","password":"new-password-2"})").status,
      201);
  EXPECT_EQ(moved.Stop(15s), 0);
}

// --users-by-email: a comment whose address is a user's verified one (whatever its case) is
// that user's; an address a user gave but did not verify takes nothing, and the guest who
// wrote it under that user's name is marked as a guest.
TEST_F(TransferTest, UsersByEmailGivesACommentToTheUserWhoseVerifiedAddressItIs) {
  const std::vector<std::string> site = {"--sites", "https://blog.example", "--password-hash",
                                         "minimal", "--rate-limits",        "off"};
  const int port = FreeTcpPort();
  auto p = Start(site, port);
  ASSERT_TRUE(Ready(port)) << Log();
  HttpClient c("127.0.0.1", port);
  for (const std::string name : {"carol", "dave"}) {
    auto r = c.Post("/api/v1/users", R"({"username":")" + name +
                                         R"(","password":"password123","displayName":"Ms )" + name +
                                         R"("})");
    ASSERT_EQ(r.status, 201) << r.body;
  }
  const std::string db = ShellQuote(data_dir() + "/plaudit.db");
  Shell("sqlite3 " + db +
        " \"UPDATE users SET email = 'Carol@Example.com', email_verified_at = 1 WHERE "
        "username = 'carol'; UPDATE users SET email = 'dave@example.net' WHERE username = "
        "'dave'\"");
  std::ofstream(File("by-email.json")) << R"([
{"_id":"1","url":"/e","nick":"C.","mail":"carol@example.com","comment":"<p>mine</p>","created":1705314600000},
{"_id":"2","url":"/e","nick":"dave","mail":"dave@example.net","comment":"<p>not his</p>","created":1705314601000},
{"_id":"3","url":"/e","nick":"Eve","mail":"eve@example.org","comment":"<p>a guest</p>","created":1705314602000}
])";
  std::vector<std::string> import =
      ImportArgs("twikoo", File("by-email.json"), "https://blog.example", site);
  import.push_back("--users-by-email");
  std::string log;
  ASSERT_EQ(RunLogged(import, log), 0) << log;
  auto got = c.Get("/api/v1/pages/comments?url=https%3A%2F%2Fblog.example%2Fe&sort=old");
  ASSERT_EQ(got.status, 200) << got.body;
  const boost::json::value listed = got.Json();
  const auto& items = listed.at("items").as_array();
  ASSERT_EQ(items.size(), 3u) << got.body;
  EXPECT_EQ(items[0].at("author").at("displayName").as_string(), "Ms carol");
  EXPECT_EQ(items[0].at("author").at("username").as_string(), "carol");
  EXPECT_FALSE(items[0].at("author").as_object().contains("guest"));  // an account's
  EXPECT_EQ(items[1].at("author").at("displayName").as_string(), "dave (guest)");
  EXPECT_TRUE(items[1].at("author").at("guest").as_bool());
  EXPECT_EQ(items[2].at("author").at("displayName").as_string(), "Eve");
  EXPECT_TRUE(items[2].at("author").at("guest").as_bool());
  // carol may delete what is now hers, and dave not what is not his.
  auto session = [&](const std::string& name) {
    auto s =
        c.Post("/api/v1/sessions", R"({"username":")" + name + R"(","password":"password123"})");
    EXPECT_EQ(s.status, 201) << s.body;
    return "Bearer " + std::string(s.Json().at("token").as_string());
  };
  EXPECT_EQ(c.Delete("/api/v1/comments/" + std::to_string(items[1].at("id").as_int64()),
                     {{"Authorization", session("dave")}})
                .status,
            403);
  EXPECT_EQ(c.Delete("/api/v1/comments/" + std::to_string(items[0].at("id").as_int64()),
                     {{"Authorization", session("carol")}})
                .status,
            204);
  // Without --from the flag is refused.
  EXPECT_EQ(Run({"import", File("by-email.json"), "--users-by-email", "--data-dir", Dir("x")}), 2);
  EXPECT_EQ(p->Stop(15s), 0);
}

}  // namespace
}  // namespace plaudit::testing
