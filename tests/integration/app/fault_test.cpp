// Issue 23: a model-based fault test of likes and views against the real binaries.
//
// Real servers only, all started here in a temp dir: a redis-server on a Unix socket with
// `appendonly yes` + `appendfsync always` (so its SIGKILL loses nothing acknowledged), SQLite
// or PostgreSQL, and `plauditd serve` (plus, as faults, a second instance and `plauditd
// flush` processes). 320 users, 4 articles with 2 comments each; two targets are liked by
// every user in a warm-up so they start in big mode (> 256 likers), three start small just
// below 256 and cross it under traffic (the split), again after reloads.
//
// Client threads like/unlike, read like states and view articles, and keep a REFERENCE
// MODEL of what 2xx responses acknowledged: per (user, target) the last acknowledged state,
// or UNCERTAIN when a request got no answer or a 5xx (either state is then acceptable) until
// the next acknowledged write of that pair; per article the views acknowledged and the views
// attempted without an answer. Each user belongs to one thread (user i to thread i % 8), so
// a pair's model entry is only ever touched by the thread that sends its requests. Reads
// during the run are checked against the model at once.
//
// A fault loop driven by a seeded RNG injects faults at random moments (FaultKind), and
// after half of them (and within every FLUSHALL and rollback) runs a CHECKPOINT: clients
// paused, the API must match the model (each pair, each count), then after `plauditd flush`
// (nothing in flight) SQL must match it too, reconcile must have found nothing to repair,
// and view counts must satisfy acknowledged <= SQL <= acknowledged + unanswered, API == SQL.
//
// At the end: the primary (the only instance left) is SIGTERMed under traffic, and SQL alone
// must then hold every acknowledged change (its last flush, no reconcile); restarted, the API
// must match the model before any flush; after one `plauditd flush` API == SQL == model for
// every pair and count (uncertain pairs: API == SQL, counts == the users liking); after a
// FLUSHALL the API, reloaded from SQL, must say the same.
//
// Replay and isolate with the environment:
//   PLAUDIT_FAULT_SEED=<n>       the fault schedule and client choices (printed every run)
//   PLAUDIT_FAULT_SECONDS=<s>    length of the fault phase per database (default 40)
//   PLAUDIT_FAULTS=a,b           enabled kinds (default all): flushall, redis-kill,
//                                redis-rollback, server-kill, extra-flush, second-instance,
//                                sql-restart (PostgreSQL or MariaDB stopped for 0.2-2 s under
//                                traffic; the test then runs a server of its own);
//                                `none`: traffic only (a baseline for the harness itself)
//   PLAUDIT_FAULT_FLUSH_MS=<ms>  plauditd serve's --flush-interval-ms (default 200)
//   PLAUDIT_FAULT_FINAL_SIGTERM=0  skip the final SIGTERM-under-traffic stage (isolates the
//                                fault kinds from the last-flush-at-SIGTERM check)
//   PLAUDIT_FAULT_KEEP_LOGS=1    keep the servers' logs also when the test passes
//   PLAUDIT_FAULT_PLAUDITD=<path>  the binary to run (default: the one built with the test;
//                                a copy lets a long soak run while the tree is rebuilt)
// `make soak SEED=... MINUTES=...` runs this test alone for longer.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fault_harness.hpp"

namespace plaudit::testing {
namespace {

// ---------------------------------------------------------------------------------------
// Settings

// The kinds PLAUDIT_FAULTS may name.
constexpr std::array kFaults = {FaultKind::kFlushAll,      FaultKind::kRedisKill,
                                FaultKind::kRedisRollback, FaultKind::kServerKill,
                                FaultKind::kExtraFlush,    FaultKind::kSecondInstance,
                                FaultKind::kSqlRestart};

constexpr int kUsers = 320;  // > 256 so that hot targets go to big mode
constexpr int kThreads = 8;  // users are partitioned among them: user i belongs to i % kThreads
constexpr int kArticles = 4;
constexpr int kCommentsPerArticle = 2;
constexpr int kDefaultSeconds = 40;

struct Settings : FaultSettings {
  bool final_sigterm = true;
  int flush_ms = 200;
};

Settings ReadSettings() {
  static const Settings settings = [] {
    Settings s{ReadFaultSettings("PLAUDIT_FAULT", "PLAUDIT_FAULTS", kDefaultSeconds, kFaults)};
    if (const char* v = std::getenv("PLAUDIT_FAULT_FLUSH_MS"); v && *v) {
      s.flush_ms = std::max(1, std::atoi(v));
    }
    if (const char* v = std::getenv("PLAUDIT_FAULT_FINAL_SIGTERM"); v && std::string(v) == "0") {
      s.final_sigterm = false;
    }
    return s;
  }();
  return settings;
}

// ---------------------------------------------------------------------------------------
// The reference model and the findings.

struct Target {
  char type;  // 'a' article, 'c' comment
  int64_t id;
  int article;    // index of the article (its own index for an article)
  double p_like;  // a write is PUT with this probability, else DELETE
  double warm_p;  // the share of users liking it after the warm-up, before any fault
  std::string Label() const {
    return std::string(type == 'a' ? "article " : "comment ") + std::to_string(id);
  }
  std::string LikePath() const {
    return std::string(type == 'a' ? "/api/v1/articles/" : "/api/v1/comments/") +
           std::to_string(id) + "/like";
  }
};

struct Pair {
  bool liked = false;
  bool uncertain = false;
  int64_t at_ms = -1;  // when the model's state was acknowledged (ms since the test's start)
  char op = ' ';       // 'W' warm-up PUT, '+' PUT, '-' DELETE
  char via = ' ';      // 'P' primary, 'S' second instance
  int64_t uncertain_since_ms = -1;
};

struct ThreadStats {
  uint64_t writes_acked = 0, reads = 0, lost = 0, server_errors = 0, unauthenticated = 0,
           not_sent = 0, logins = 0, via_second = 0;
  std::vector<uint64_t> views_acked = std::vector<uint64_t>(kArticles, 0);
  std::vector<uint64_t> views_unacked = std::vector<uint64_t>(kArticles, 0);
};

// ---------------------------------------------------------------------------------------
// The test.

class FaultTest : public FaultFixture {
 protected:
  FaultTest() : FaultFixture("plaudit-fault") {}

  void SetUp() override {
    settings_ = ReadSettings();
    if (GetParam() == "sqlite") {
      std::erase(settings_.faults, FaultKind::kSqlRestart);  // no server to restart
    }
  }

  void TearDown() override {
    if (settings_.keep_logs || HasFailure()) {
      KeepLogs("plaudit-fault-" + std::to_string(settings_.seed) + "-" + GetParam());
    }
    if (second_) {
      second_->Signal(SIGKILL);
    }
    if (primary_) {
      primary_->Signal(SIGKILL);
    }
  }

  // --- processes -------------------------------------------------------------------------

  std::unique_ptr<Process> StartServe(int port, const std::string& log_name) {
    return FaultFixture::StartServe(port, log_name, settings_.flush_ms);
  }

  struct FlushRun {
    std::string error;   // "" when it exited 0
    int64_t fixed = -1;  // "reconciled like counts: N fixed"
  };

  // Runs `plauditd flush` (one write-behind pass, then reconcile) to completion.
  FlushRun RunFlush(const std::string& why) {
    FlushRun out;
    ToolRun run = RunTool("flush", why);
    out.error = run.error;
    if (!out.error.empty()) {
      return out;
    }
    std::ifstream in(run.log);
    std::string line;
    const std::string key = "reconciled like counts: ";
    while (std::getline(in, line)) {
      if (auto at = line.find(key); at != std::string::npos) {
        out.fixed = std::atoll(line.c_str() + at + key.size());
      }
    }
    return out;
  }

  std::string BatchQuery() const {
    std::string a, c;
    for (const auto& t : targets_) {
      std::string& s = t.type == 'a' ? a : c;
      s += (s.empty() ? "" : ",") + std::to_string(t.id);
    }
    return "/api/v1/likes?article=" + a + "&comment=" + c;
  }

  // liked/likeCount of every target from one batch answer; false when it is malformed.
  bool ParseBatch(const std::string& body, std::vector<int>& liked, std::vector<int64_t>& count) {
    auto v = ParseJson(body);
    if (!v || !v->is_object()) {
      return false;
    }
    liked.assign(targets_.size(), -1);
    count.assign(targets_.size(), -1);
    try {
      for (size_t i = 0; i < targets_.size(); ++i) {
        const auto& t = targets_[i];
        const auto& e =
            v->at(t.type == 'a' ? "article" : "comment").at(std::to_string(t.id)).as_object();
        liked[i] = e.at("liked").as_bool() ? 1 : 0;
        count[i] = e.at("likeCount").to_number<int64_t>();
      }
    } catch (...) {
      return false;
    }
    return true;
  }

  // --- observed states and their comparisons ---------------------------------------------

  struct ApiState {
    bool ok = false;
    std::vector<std::vector<int>> liked;  // [user][target], each user's own view
    std::vector<int64_t> count;           // [target], read anonymously
    std::map<int64_t, int64_t> views;     // article id -> viewCount (from the list: no view)
  };
  struct SqlState {
    bool ok = false;
    std::vector<std::vector<int>> valid;  // [user][target]: -1 no row, else `valid`
    std::vector<std::vector<std::string>> seq;
    std::vector<int64_t> count, rows;  // [target]: like_count, rows with valid = 1
    std::map<int64_t, int64_t> views;  // article id -> view_count
  };

  ApiState ReadApi(const std::string& stage, const std::string& label);
  SqlState ReadSql(const std::string& stage, const std::string& label);
  void CompareApiModel(const std::string& stage, const std::string& label, const ApiState& api);
  void CompareSqlModel(const std::string& stage, const std::string& label, const SqlState& sql);
  void CompareApiSql(const std::string& stage, const std::string& label, const ApiState& api,
                     const SqlState& sql);
  void CompareViews(const std::string& stage, const std::string& label, const SqlState& sql,
                    const ApiState* api);
  bool ViewsMatch(const SqlState& sql, const ApiState& api) const;
  void SettleViews(SqlState& sql, const ApiState& api);
  // Whether each target is in big mode now (its pl:lb mark), in one redis-cli run.
  std::vector<int> BigModes() {
    std::string cmds;
    for (const auto& t : targets_) {
      cmds += "EXISTS pl:lb:{l" + std::to_string(t.id % 256) + "}:" + t.type +
              std::to_string(t.id) + "\n";
    }
    auto rows = SplitRows(redis_->CliStdin(cmds));
    std::vector<int> out(targets_.size(), -1);
    for (size_t k = 0; k < out.size() && k < rows.size(); ++k) {
      out[k] = rows[k].at(0) == "1" ? 1 : rows[k].at(0) == "0" ? 0 : -1;
    }
    return out;
  }
  // Counts small -> big transitions between two looks (splits, also after reloads).
  void NoteModes() {
    auto now = BigModes();
    for (size_t k = 0; k < now.size(); ++k) {
      if (k < last_modes_.size() && last_modes_[k] == 0 && now[k] == 1) {
        ++splits_seen_;
      }
    }
    last_modes_ = now;
  }
  std::string ModesText() const {
    std::string out;
    for (int m : last_modes_) {
      out += m == 1 ? 'B' : m == 0 ? 's' : '?';
    }
    return out;
  }
  std::string Mode(size_t k) {
    const auto& t = targets_[k];
    std::string big = redis_->Cli("EXISTS 'pl:lb:{l" + std::to_string(t.id % 256) + "}:" + t.type +
                                  std::to_string(t.id) + "'");
    return big == "1" ? "big mode" : big == "0" ? "small mode (or not loaded)" : "mode unknown";
  }

  // --- the parts of the test -------------------------------------------------------------

  void Prepare();
  void ClientThread(int index);
  void OneClientOp(int index, std::mt19937_64& rng, Conn& primary, Conn& second,
                   ThreadStats& stats);
  void FaultPhase();
  bool Checkpoint(const std::string& why, bool* flushed = nullptr);
  void StopClients();
  void FinalChecks();
  void FinalSigterm();
  void FinalFlushAndReload();

  std::string Where(int user_index, size_t target_index) const {
    const auto& u = users_[user_index];
    return "user " + u.name + " (id " + std::to_string(u.id) + ", thread " +
           std::to_string(user_index % kThreads) + ") " + targets_[target_index].Label();
  }
  std::string PairText(const Pair& p) const {
    if (p.uncertain) {
      return std::string("uncertain since ") + FaultLog::Stamp(p.uncertain_since_ms) +
             " (last ack " + (p.liked ? "liked" : "not liked") + ")";
    }
    if (p.at_ms < 0) {
      return "not liked (never written)";
    }
    return std::string(p.liked ? "liked" : "not liked") + " (acked " + FaultLog::Stamp(p.at_ms) +
           " by " +
           (p.op == 'W'   ? "warm-up PUT"
            : p.op == '+' ? "PUT"
                          : "DELETE") +
           " via " + (p.via == 'S' ? "second instance" : "primary") + ")";
  }
  // "[<label> at t=..., last faults: ...]"
  std::string Context(const std::string& label) const {
    const int64_t now = log_->Now();
    return "[" + label + ", " + FaultLog::Stamp(now) + "; last faults: " + log_->Before(now, 3) +
           "]";
  }

  Settings settings_;
  int primary_port_ = 0;
  std::unique_ptr<Process> primary_;
  std::unique_ptr<Process> second_;
  std::atomic<int> second_port_{0};  // clients of odd threads use it while non-zero
  int serve_runs_ = 0;
  int checkpoints_ = 0;
  std::vector<int> last_modes_;
  int splits_seen_ = 0;  // small -> big mode changes seen between checkpoints

  std::vector<Target> targets_;
  std::vector<User> users_;
  std::vector<std::vector<Pair>> model_;  // [user][target]; written only by the user's thread
  std::vector<ThreadStats> stats_ = std::vector<ThreadStats>(kThreads);
  std::map<std::string, int> fault_counts_;

  Gate gate_;
  std::atomic<uint64_t> acked_ops_{0};  // 2xx answers to model traffic, for "traffic is flowing"
  std::vector<std::thread> clients_;
  std::atomic<bool> stop_clients_{false};
  Findings findings_;
  std::unique_ptr<FaultLog> log_;
};

void FaultTest::Prepare() {
  // Redis, the database, the primary plauditd.
  StartBackends(std::find(settings_.faults.begin(), settings_.faults.end(),
                          FaultKind::kSqlRestart) != settings_.faults.end());
  if (HasFatalFailure()) {
    return;
  }
  primary_port_ = FreeTcpPort();
  primary_ = StartServe(primary_port_, "plauditd-primary.log");
  ASSERT_TRUE(Ready(primary_port_, 30s)) << TailOf(dir_.path() / "plauditd-primary.log", 30);

  // Articles and comments, by the bootstrap admin.
  Conn c(primary_port_);
  User admin{"admin", "admin-password", 0, ""};
  ASSERT_TRUE(Login(c, admin));
  // Per target: the probability that a write is a like (so in the long run about that share
  // of the 320 users like it), and the share liking it after the warm-up. Liked by all in the
  // warm-up: big mode (> 256 likers) from the start. Warmed up to 0.75 (240) with 0.80-0.84
  // (256-269) in traffic: small at first, they cross the 256-liker split under traffic, and
  // again after each reload from SQL (FLUSHALL) that finds them at or below 256.
  struct Shape {
    double p_like, warm_p;
  };
  const Shape article_shape[kArticles] = {{0.9, 1.0}, {0.5, 0.0}, {0.82, 0.75}, {0.3, 0.0}};
  const Shape comment_shape[kArticles][kCommentsPerArticle] = {{{0.5, 0.0}, {0.88, 1.0}},
                                                               {{0.8, 0.75}, {0.5, 0.0}},
                                                               {{0.5, 0.0}, {0.2, 0.0}},
                                                               {{0.5, 0.0}, {0.84, 0.75}}};
  for (int a = 0; a < kArticles; ++a) {
    json::object body{{"title", "Fault article " + std::to_string(a)},
                      {"content", "<p>body of article " + std::to_string(a) + "</p>"},
                      {"status", "published"}};
    Reply r =
        Reliable(c, beast::http::verb::post, "/api/v1/articles", &admin, json::serialize(body));
    ASSERT_EQ(r.status, 201) << r.body;
    int64_t id = ParseJson(r.body)->at("id").as_int64();
    targets_.push_back({'a', id, a, article_shape[a].p_like, article_shape[a].warm_p});
    for (int k = 0; k < kCommentsPerArticle; ++k) {
      json::object cb{{"body", "comment " + std::to_string(k) + " on " + std::to_string(id)}};
      Reply rc = Reliable(c, beast::http::verb::post,
                          "/api/v1/articles/" + std::to_string(id) + "/comments", &admin,
                          json::serialize(cb));
      ASSERT_EQ(rc.status, 201) << rc.body;
      const Shape& shape = comment_shape[a][k];
      targets_.push_back(
          {'c', ParseJson(rc.body)->at("id").as_int64(), a, shape.p_like, shape.warm_p});
    }
  }

  // Users: registered, logged in and warmed up by their own threads.
  users_.resize(kUsers);
  model_.assign(kUsers, std::vector<Pair>(targets_.size()));
  for (int i = 0; i < kUsers; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "fu%04d", i);
    users_[i].name = name;
    users_[i].password = "password-" + std::string(name);
  }
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Conn conn(primary_port_);
      std::mt19937_64 rng(settings_.seed ^ (0xA5A5A5A5ULL + static_cast<uint64_t>(t)));
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      for (int i = t; i < kUsers; i += kThreads) {
        User& u = users_[i];
        json::object body{{"username", u.name}, {"password", u.password}};
        Reply r = Reliable(conn, beast::http::verb::post, "/api/v1/users", nullptr,
                           json::serialize(body));
        if (r.status != 201) {
          errors[t] = "register " + u.name + ": " + std::to_string(r.status) + " " + r.body;
          return;
        }
        u.id = ParseJson(r.body)->at("id").as_int64();
        for (size_t k = 0; k < targets_.size(); ++k) {
          if (targets_[k].warm_p <= 0 || unit(rng) >= targets_[k].warm_p) {
            continue;
          }
          Reply lr = Reliable(conn, beast::http::verb::put, targets_[k].LikePath(), &u);
          if (lr.status != 200) {
            errors[t] = "warm-up like " + u.name + " " + targets_[k].Label() + ": " +
                        std::to_string(lr.status) + " " + lr.body;
            return;
          }
          model_[i][k] = Pair{true, false, log_->Now(), 'W', 'P', -1};
        }
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  for (const auto& e : errors) {
    ASSERT_TRUE(e.empty()) << e;
  }
}

void FaultTest::ClientThread(int index) {
  std::mt19937_64 rng(settings_.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(index) + 1);
  Conn primary(primary_port_);
  Conn second(0);
  try {
    while (!stop_clients_.load()) {
      gate_.Checkpoint();
      if (stop_clients_.load()) {
        break;
      }
      OneClientOp(index, rng, primary, second, stats_[index]);
    }
  } catch (const std::exception& e) {
    findings_.Add("harness", "client thread " + std::to_string(index) + " threw: " + e.what());
  }
  gate_.Leave();
}

void FaultTest::OneClientOp(int index, std::mt19937_64& rng, Conn& primary, Conn& second,
                            ThreadStats& stats) {
  // A user of this thread: its pairs are touched by no other thread.
  const int per_thread = (kUsers - index + kThreads - 1) / kThreads;
  const int ui = index + kThreads * static_cast<int>(rng() % per_thread);
  User& u = users_[ui];

  const int sp = second_port_.load();
  const bool use_second = sp != 0 && index % 2 == 1;
  Conn* conn = &primary;
  if (use_second) {
    second.Retarget(sp);
    conn = &second;
    ++stats.via_second;
  }
  const char via = use_second ? 'S' : 'P';

  auto backoff = [&] { std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 15)); };

  if (u.token.empty()) {
    ++stats.logins;
    if (!Login(*conn, u)) {
      backoff();
    }
    return;
  }

  const size_t ti = rng() % targets_.size();
  const Target& t = targets_[ti];
  Pair& pair = model_[ui][ti];
  const int op = static_cast<int>(rng() % 100);
  std::uniform_real_distribution<double> unit(0.0, 1.0);

  // How a failed request changes the model; true when it got a usable (2xx) answer.
  auto handle_failure = [&](const Reply& r, bool is_write, int view_article) -> bool {
    if (r.kind == Reply::kNotSent) {  // could not connect: nothing happened
      ++stats.not_sent;
      backoff();
      return false;
    }
    if (r.uncertain()) {  // no answer, or a 5xx: it may or may not have happened
      if (r.kind == Reply::kLost) {
        ++stats.lost;
      } else {
        ++stats.server_errors;
      }
      if (is_write && !pair.uncertain) {
        pair.uncertain = true;
        pair.uncertain_since_ms = log_->Now();
      }
      if (view_article >= 0) {
        ++stats.views_unacked[view_article];
      }
      backoff();
      return false;
    }
    if (r.status == 401) {  // the session is gone (FLUSHALL, rollback): nothing happened
      ++stats.unauthenticated;
      u.token.clear();
      return false;
    }
    if (r.status >= 200 && r.status < 300) {
      ++acked_ops_;
    }
    if (r.status < 200 || r.status >= 300) {
      findings_.Add("unexpected-status", Where(ui, ti) + ": HTTP " + std::to_string(r.status) +
                                             " " + r.body.substr(0, 200) + " " +
                                             Context("during the run"));
      return false;
    }
    return true;
  };

  auto check_read = [&](bool api_liked, const std::string& what, size_t k) {
    const Pair& p = model_[ui][k];
    if (p.uncertain || api_liked == p.liked) {
      return;
    }
    findings_.Add("read-during-run", Where(ui, k) + " " + what + " via " +
                                         (via == 'S' ? "second instance" : "primary") +
                                         ": API liked=" + (api_liked ? "true" : "false") +
                                         ", model " + PairText(p) + " " +
                                         Context("during the run"));
  };

  if (op < 55) {
    // Like or unlike.
    const bool like = unit(rng) < t.p_like;
    Reply r = conn->Send(like ? beast::http::verb::put : beast::http::verb::delete_, t.LikePath(),
                         u.token);
    if (!handle_failure(r, /*is_write=*/true, -1)) {
      return;
    }
    auto v = ParseJson(r.body);
    bool answered = like;
    try {
      answered = v->at("liked").as_bool();
      (void)v->at("likeCount").to_number<int64_t>();
    } catch (...) {
      findings_.Add("bad-body", Where(ui, ti) + ": " + r.body.substr(0, 200));
    }
    if (answered != like) {
      findings_.Add("write-answer", Where(ui, ti) + " " + (like ? "PUT" : "DELETE") +
                                        " answered liked=" + (answered ? "true" : "false") + " " +
                                        Context("during the run"));
    }
    pair = Pair{like, false, log_->Now(), like ? '+' : '-', via, -1};
    ++stats.writes_acked;
  } else if (op < 75) {
    // The like state of one target.
    Reply r = conn->Send(beast::http::verb::get, t.LikePath(), u.token);
    if (!handle_failure(r, false, -1)) {
      return;
    }
    ++stats.reads;
    auto v = ParseJson(r.body);
    try {
      check_read(v->at("liked").as_bool(), "GET " + t.LikePath(), ti);
    } catch (...) {
      findings_.Add("bad-body", Where(ui, ti) + ": " + r.body.substr(0, 200));
    }
  } else if (op < 85) {
    // Every target at once.
    Reply r = conn->Send(beast::http::verb::get, BatchQuery(), u.token);
    if (!handle_failure(r, false, -1)) {
      return;
    }
    ++stats.reads;
    std::vector<int> liked;
    std::vector<int64_t> count;
    if (!ParseBatch(r.body, liked, count)) {
      findings_.Add("bad-body", "batch for " + u.name + ": " + r.body.substr(0, 200));
      return;
    }
    for (size_t k = 0; k < targets_.size(); ++k) {
      check_read(liked[k] == 1, "GET /api/v1/likes", k);
    }
  } else {
    // View an article (counts a view; also answers the caller's like).
    const size_t ai = (rng() % kArticles) * (1 + kCommentsPerArticle);
    const Target& a = targets_[ai];
    Reply r =
        conn->Send(beast::http::verb::get, "/api/v1/articles/" + std::to_string(a.id), u.token);
    if (!handle_failure(r, false, a.article)) {
      return;
    }
    ++stats.views_acked[a.article];
    auto v = ParseJson(r.body);
    try {
      check_read(v->at("liked").as_bool(), "GET /api/v1/articles/" + std::to_string(a.id), ai);
    } catch (...) {
      findings_.Add("bad-body", "article view: " + r.body.substr(0, 200));
    }
  }
}

// Every user's like states (read by kThreads threads, each for its own users), the counts
// as an anonymous reader sees them, and the view counts from the article list.
FaultTest::ApiState FaultTest::ReadApi(const std::string& stage, const std::string& label) {
  ApiState api;
  Conn c(primary_port_);
  Reply anon = Reliable(c, beast::http::verb::get, BatchQuery(), nullptr);
  std::vector<int> unused;
  if (anon.status != 200 || !ParseBatch(anon.body, unused, api.count)) {
    findings_.Add(stage + ": api", "anonymous batch read failed: " + std::to_string(anon.status) +
                                       " " + anon.body.substr(0, 200) + " " + Context(label));
    return api;
  }
  api.liked.assign(kUsers, std::vector<int>(targets_.size(), -1));
  std::atomic<bool> ok{true};
  std::vector<std::thread> readers;
  for (int t = 0; t < kThreads; ++t) {
    readers.emplace_back([&, t] {
      Conn conn(primary_port_);
      for (int i = t; i < kUsers; i += kThreads) {
        Reply r = Reliable(conn, beast::http::verb::get, BatchQuery(), &users_[i]);
        std::vector<int64_t> counts;
        if (r.status != 200 || !ParseBatch(r.body, api.liked[i], counts)) {
          findings_.Add(stage + ": api", "batch read of " + users_[i].name +
                                             " failed: " + std::to_string(r.status) + " " +
                                             r.body.substr(0, 200) + " " + Context(label));
          ok = false;
          return;
        }
        for (size_t k = 0; k < targets_.size(); ++k) {
          if (counts[k] != api.count[k]) {
            findings_.Add(stage + ": count",
                          targets_[k].Label() + ": likeCount read by " + users_[i].name + " = " +
                              std::to_string(counts[k]) + ", read anonymously = " +
                              std::to_string(api.count[k]) + " " + Context(label));
          }
        }
      }
    });
  }
  for (auto& r : readers) {
    r.join();
  }
  Reply list = Reliable(c, beast::http::verb::get, "/api/v1/articles?size=100", nullptr);
  try {
    auto v = ParseJson(list.body);
    if (!v || list.status != 200) {
      throw std::runtime_error("status");
    }
    for (const auto& item : v->at("items").as_array()) {
      api.views[item.at("id").as_int64()] = item.at("viewCount").to_number<int64_t>();
    }
  } catch (...) {
    findings_.Add(stage + ": api", "article list failed: " + std::to_string(list.status) + " " +
                                       list.body.substr(0, 200) + " " + Context(label));
    return api;
  }
  api.ok = ok.load();
  return api;
}

FaultTest::SqlState FaultTest::ReadSql(const std::string& stage, const std::string& label) {
  SqlState sql;
  const size_t nt = targets_.size();
  std::map<std::pair<char, int64_t>, size_t> index;
  for (size_t k = 0; k < nt; ++k) {
    index[{targets_[k].type, targets_[k].id}] = k;
  }
  std::map<int64_t, int> user_index;
  for (int i = 0; i < kUsers; ++i) {
    user_index[users_[i].id] = i;
  }
  sql.count.assign(nt, -1);
  sql.rows.assign(nt, 0);
  sql.valid.assign(kUsers, std::vector<int>(nt, -1));
  sql.seq.assign(kUsers, std::vector<std::string>(nt));
  try {
    for (const auto& row : Sql("SELECT id, like_count, view_count FROM articles")) {
      const int64_t id = std::stoll(row.at(0));
      sql.views[id] = std::stoll(row.at(2));
      if (auto it = index.find({'a', id}); it != index.end()) {
        sql.count[it->second] = std::stoll(row.at(1));
      }
    }
    for (const auto& row : Sql("SELECT id, like_count FROM comments")) {
      if (auto it = index.find({'c', std::stoll(row.at(0))}); it != index.end()) {
        sql.count[it->second] = std::stoll(row.at(1));
      }
    }
    for (const auto& row : Sql("SELECT target_type, target_id, user_id, valid, seq FROM likes")) {
      auto it = index.find({row.at(0).at(0), std::stoll(row.at(1))});
      auto ut = user_index.find(std::stoll(row.at(2)));
      if (it == index.end() || ut == user_index.end()) {
        findings_.Add(stage + ": sql", "a likes row of an unknown target or user: " + row.at(0) +
                                           " " + row.at(1) + " user " + row.at(2) + " " +
                                           Context(label));
        continue;
      }
      const int valid = std::stoi(row.at(3));
      sql.valid[ut->second][it->second] = valid;
      sql.seq[ut->second][it->second] = row.at(4);
      if (valid == 1) {
        ++sql.rows[it->second];
      }
    }
  } catch (const std::exception& e) {
    findings_.Add("harness", std::string("reading SQL failed: ") + e.what());
    return sql;
  }
  sql.ok = true;
  return sql;
}

// The API (Redis) against the model: each certain pair's state, each target's count against
// the model's true states (+ uncertain ones) and against the users the API says like it.
void FaultTest::CompareApiModel(const std::string& stage, const std::string& label,
                                const ApiState& api) {
  if (!api.ok) {
    return;
  }
  for (size_t k = 0; k < targets_.size(); ++k) {
    int64_t api_users = 0, model_true = 0, uncertain = 0;
    for (int i = 0; i < kUsers; ++i) {
      api_users += api.liked[i][k] == 1;
      const Pair& p = model_[i][k];
      if (p.uncertain) {
        ++uncertain;
      } else {
        model_true += p.liked;
      }
    }
    const bool ok =
        api.count[k] == api_users && api_users >= model_true && api_users <= model_true + uncertain;
    if (!ok) {
      findings_.Add(stage + ": count (API vs model)",
                    targets_[k].Label() + " [" + Mode(k) +
                        "]: API likeCount=" + std::to_string(api.count[k]) +
                        ", users the API says like it: " + std::to_string(api_users) +
                        ", model: " + std::to_string(model_true) + " (+" +
                        std::to_string(uncertain) + " uncertain) " + Context(label));
    }
  }
  for (int i = 0; i < kUsers; ++i) {
    for (size_t k = 0; k < targets_.size(); ++k) {
      const Pair& p = model_[i][k];
      if (!p.uncertain && api.liked[i][k] != static_cast<int>(p.liked)) {
        findings_.Add(stage + ": pair (API vs model)",
                      Where(i, k) + ": API liked=" + (api.liked[i][k] ? "true" : "false") +
                          ", model " + PairText(p) + " " + Context(label));
      }
    }
  }
}

std::string SqlPairText(int valid, const std::string& seq) {
  return valid < 0 ? std::string("no row") : "valid=" + std::to_string(valid) + " seq=" + seq;
}

// SQL against the model: rows of certain pairs, like_count == rows == the model's count.
void FaultTest::CompareSqlModel(const std::string& stage, const std::string& label,
                                const SqlState& sql) {
  if (!sql.ok) {
    return;
  }
  for (size_t k = 0; k < targets_.size(); ++k) {
    int64_t model_true = 0, uncertain = 0;
    for (int i = 0; i < kUsers; ++i) {
      const Pair& p = model_[i][k];
      if (p.uncertain) {
        ++uncertain;
      } else {
        model_true += p.liked;
      }
    }
    const bool ok = sql.count[k] == sql.rows[k] && sql.rows[k] >= model_true &&
                    sql.rows[k] <= model_true + uncertain;
    if (!ok) {
      findings_.Add(stage + ": count (SQL vs model)",
                    targets_[k].Label() + " [" + Mode(k) +
                        "]: SQL like_count=" + std::to_string(sql.count[k]) +
                        ", SQL rows valid=1: " + std::to_string(sql.rows[k]) +
                        ", model: " + std::to_string(model_true) + " (+" +
                        std::to_string(uncertain) + " uncertain) " + Context(label));
    }
  }
  for (int i = 0; i < kUsers; ++i) {
    for (size_t k = 0; k < targets_.size(); ++k) {
      const Pair& p = model_[i][k];
      const int sv = sql.valid[i][k] == 1 ? 1 : 0;
      if (!p.uncertain && sv != static_cast<int>(p.liked)) {
        findings_.Add(stage + ": pair (SQL vs model)",
                      Where(i, k) + ": SQL " + SqlPairText(sql.valid[i][k], sql.seq[i][k]) +
                          ", model " + PairText(p) + " " + Context(label));
      }
    }
  }
}

// The API against SQL, uncertain pairs included: each pair, each count.
void FaultTest::CompareApiSql(const std::string& stage, const std::string& label,
                              const ApiState& api, const SqlState& sql) {
  if (!api.ok || !sql.ok) {
    return;
  }
  for (size_t k = 0; k < targets_.size(); ++k) {
    if (api.count[k] != sql.count[k]) {
      findings_.Add(
          stage + ": count (API vs SQL)",
          targets_[k].Label() + " [" + Mode(k) + "]: API likeCount=" +
              std::to_string(api.count[k]) + ", SQL like_count=" + std::to_string(sql.count[k]) +
              ", SQL rows valid=1: " + std::to_string(sql.rows[k]) + " " + Context(label));
    }
  }
  for (int i = 0; i < kUsers; ++i) {
    for (size_t k = 0; k < targets_.size(); ++k) {
      const int sv = sql.valid[i][k] == 1 ? 1 : 0;
      if (api.liked[i][k] != sv) {
        findings_.Add(stage + ": pair (API vs SQL)",
                      Where(i, k) + ": API liked=" + (api.liked[i][k] ? "true" : "false") +
                          ", SQL " + SqlPairText(sql.valid[i][k], sql.seq[i][k]) + ", model " +
                          PairText(model_[i][k]) + " " + Context(label));
      }
    }
  }
}

// Views: acknowledged <= SQL <= acknowledged + unanswered attempts, and API == SQL.
void FaultTest::CompareViews(const std::string& stage, const std::string& label,
                             const SqlState& sql, const ApiState* api) {
  if (!sql.ok) {
    return;
  }
  for (int a = 0; a < kArticles; ++a) {
    const int64_t id = targets_[a * (1 + kCommentsPerArticle)].id;
    int64_t acked = 0, unacked = 0;
    for (const auto& s : stats_) {
      acked += static_cast<int64_t>(s.views_acked[a]);
      unacked += static_cast<int64_t>(s.views_unacked[a]);
    }
    const int64_t sv = sql.views.count(id) ? sql.views.at(id) : -1;
    const int64_t av = api && api->views.count(id) ? api->views.at(id) : -1;
    const bool api_bad = api && api->ok && av != sv;
    if (api_bad || sv < acked || sv > acked + unacked) {
      findings_.Add(stage + ": views",
                    "article " + std::to_string(id) + ": SQL view_count=" + std::to_string(sv) +
                        (api ? ", API viewCount=" + std::to_string(av) : std::string()) +
                        ", acknowledged views=" + std::to_string(acked) + " (+" +
                        std::to_string(unacked) + " unanswered)" +
                        (sv >= 0 && sv < acked ? ", lost " + std::to_string(acked - sv) : "") +
                        " " + Context(label));
    }
  }
}

// With the clients paused: the API must match the model; after `plauditd flush` (nothing
// in flight, nothing arriving) SQL must too, with no count left to repair by reconcile.
// Leaves the clients paused; false when they could not be paused. *flushed: whether the
// flush succeeded (only then may a fault empty or roll back Redis without losing anything).
bool FaultTest::Checkpoint(const std::string& why, bool* flushed) {
  if (flushed) {
    *flushed = false;
  }
  if (!gate_.Pause(30s)) {
    findings_.Add("fault-step", "clients did not pause within 30 s " + Context(why));
    gate_.Resume();
    return false;
  }
  ++checkpoints_;
  const std::string label = "checkpoint " + why;
  const size_t before = findings_.Count();
  struct LogResult {
    FaultTest* self;
    std::string label;
    size_t before;
    ~LogResult() {
      const size_t n = self->findings_.Count() - before;
      self->log_->Add(label + (n == 0 ? ": ok" : ": " + std::to_string(n) + " finding(s)") +
                      " (modes " + self->ModesText() + ")");
    }
  } log_result{this, label, before};
  ApiState api = ReadApi("checkpoint", label);
  NoteModes();
  CompareApiModel("checkpoint", label, api);
  FlushRun f = RunFlush(label);
  if (!f.error.empty()) {
    findings_.Add("fault-step", f.error + " " + Context(label));
    return true;
  }
  if (flushed) {
    *flushed = true;
  }
  if (f.fixed > 0) {
    findings_.Add("checkpoint: reconcile repaired counts",
                  "plauditd flush with nothing in flight reconciled " + std::to_string(f.fixed) +
                      " like count(s): SQL counts disagreed with the rows after its flush pass " +
                      Context(label));
  }
  SqlState sql = ReadSql("checkpoint", label);
  CompareSqlModel("checkpoint", label, sql);
  ApiState views_only;  // the list's view counts after the flush
  {
    Conn c(primary_port_);
    Reply list = Reliable(c, beast::http::verb::get, "/api/v1/articles?size=100", nullptr);
    if (auto v = ParseJson(list.body); v && list.status == 200) {
      views_only.ok = true;
      for (const auto& item : v->at("items").as_array()) {
        views_only.views[item.at("id").as_int64()] = item.at("viewCount").to_number<int64_t>();
      }
    }
  }
  // Another flusher's pass (the servers' own) may hold view counts it took from Redis and
  // has not committed yet: give it a moment (polling SQL) before calling views lost.
  SettleViews(sql, views_only);
  CompareViews("checkpoint", label, sql, &views_only);
  return true;
}

bool FaultTest::ViewsMatch(const SqlState& sql, const ApiState& api) const {
  for (int a = 0; a < kArticles; ++a) {
    const int64_t id = targets_[a * (1 + kCommentsPerArticle)].id;
    auto s = sql.views.find(id);
    auto v = api.views.find(id);
    if (s == sql.views.end() || v == api.views.end() || s->second != v->second) {
      return false;
    }
  }
  return true;
}

void FaultTest::SettleViews(SqlState& sql, const ApiState& api) {
  if (!sql.ok || !api.ok || ViewsMatch(sql, api)) {
    return;
  }
  WaitFor(
      [&] {
        try {
          std::map<int64_t, int64_t> views;
          for (const auto& row : Sql("SELECT id, view_count FROM articles")) {
            views[std::stoll(row.at(0))] = std::stoll(row.at(1));
          }
          sql.views = std::move(views);
        } catch (...) {
        }
        return ViewsMatch(sql, api);
      },
      3s);
}

void FaultTest::FaultPhase() {
  std::mt19937_64 rng(settings_.seed);
  const auto deadline = Clock::now() + std::chrono::seconds(settings_.seconds);
  const bool rollback_on = std::find(settings_.faults.begin(), settings_.faults.end(),
                                     FaultKind::kRedisRollback) != settings_.faults.end();
  const fs::path snapshot = dir_.path() / "snapshot.rdb";
  bool have_snapshot = false;
  int second_steps_left = 0;
  int step = 0;

  auto note = [&](const std::string& kind, const std::string& what) {
    log_->Add(what);
    ++fault_counts_[kind];
  };
  auto problem = [&](const std::string& what) {
    findings_.Add("fault-step", what + " " + Context("fault step"));
    log_->Add("PROBLEM: " + what);
  };
  auto ms_since = [](Clock::time_point t) {
    return std::to_string(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count());
  };
  auto stop_second = [&](bool kill) {
    if (!second_) {
      return;
    }
    auto t = Clock::now();
    int code;
    if (kill) {
      second_->Signal(SIGKILL);
      code = second_->Wait(10s).value_or(-1);
    } else {
      second_->Signal(SIGTERM);
      auto st = second_->Wait(20s);
      if (!st) {
        problem("second instance did not exit within 20 s of SIGTERM (SIGKILLed)");
        second_->Signal(SIGKILL);
        st = second_->Wait(10s);
      }
      code = st.value_or(-1);
      if (code != 0) {
        problem("second instance exited " + std::to_string(code) + " after SIGTERM");
      }
    }
    second_port_.store(0);
    second_.reset();
    note("second-instance", std::string("second instance stopped by ") +
                                (kill ? "SIGKILL" : "SIGTERM") + " under traffic (exit " +
                                std::to_string(code) + ", " + ms_since(t) + " ms)");
  };

  if (settings_.faults.empty()) {
    std::this_thread::sleep_until(deadline);  // PLAUDIT_FAULTS=none: traffic only
    log_->Add("no faults (PLAUDIT_FAULTS=none)");
    if (Checkpoint("after traffic only")) {
      gate_.Resume();
    }
    return;
  }
  while (Clock::now() < deadline) {
    const auto delay = std::chrono::milliseconds(150 + rng() % 1100);
    std::this_thread::sleep_for(delay);  // the schedule itself, not a wait for background work
    ++step;
    const bool check_after = rng() % 2 == 0;

    if (second_ && --second_steps_left <= 0) {
      stop_second(rng() % 10 < 4);
    }

    if (rollback_on && (!have_snapshot || rng() % 100 < 15)) {
      auto t = Clock::now();
      if (redis_->Snapshot(snapshot)) {
        have_snapshot = true;
        note("snapshot", "snapshot of Redis taken (SAVE, " + ms_since(t) + " ms)");
      } else {
        problem("SAVE for a snapshot failed: " + redis_->Cli("SAVE"));
      }
      continue;
    }

    const FaultKind kind = settings_.faults[rng() % settings_.faults.size()];
    const auto t = Clock::now();
    bool checked = false;  // this fault ran a checkpoint itself
    switch (kind) {
      case FaultKind::kFlushAll: {
        // Paused: check, flush everything, empty Redis, resume: reloads race live traffic.
        bool flushed = false;
        if (!Checkpoint("before FLUSHALL", &flushed)) {
          break;
        }
        checked = true;
        if (!flushed) {  // emptying Redis now could lose acknowledged changes: skip it
          gate_.Resume();
          problem("FLUSHALL skipped: the flush before it failed");
          break;
        }
        std::string r = redis_->Cli("FLUSHALL");
        gate_.Resume();
        if (r != "OK") {
          problem("FLUSHALL answered " + r);
        }
        note(FaultName(kind), "flushall (clients paused, checkpoint + plauditd flush, FLUSHALL; " +
                                  ms_since(t) + " ms)");
        break;
      }
      case FaultKind::kRedisKill: {
        redis_->Kill();
        const bool up = redis_->Start();
        if (!up) {
          problem("redis-server did not restart from its AOF");
        }
        note(FaultName(kind), "redis SIGKILL + restart from AOF (" + ms_since(t) + " ms)");
        break;
      }
      case FaultKind::kRedisRollback: {
        // Paused: check, flush everything to SQL, then Redis comes back with older data.
        bool flushed = false;
        if (!Checkpoint("before the Redis rollback", &flushed)) {
          break;
        }
        checked = true;
        if (!flushed) {
          gate_.Resume();
          problem("rollback skipped: the flush before it failed");
          break;
        }
        std::string err = redis_->RestoreSnapshot(snapshot);
        gate_.Resume();
        if (!err.empty()) {
          problem("rollback: " + err);
        }
        note(FaultName(kind),
             "redis SIGKILL + restart from the older snapshot (clients paused, "
             "checkpoint + plauditd flush first; " +
                 ms_since(t) + " ms)");
        break;
      }
      case FaultKind::kServerKill: {
        primary_->Signal(SIGKILL);
        primary_->Wait(10s);
        primary_ =
            StartServe(primary_port_, "plauditd-primary-" + std::to_string(++serve_runs_) + ".log");
        if (!Ready(primary_port_, 30s)) {
          problem("primary plauditd not ready 30 s after restart");
        }
        note(FaultName(kind),
             "primary plauditd SIGKILL under traffic + restart (" + ms_since(t) + " ms)");
        break;
      }
      case FaultKind::kExtraFlush: {
        // 1-3 runners each running `plauditd flush` back to back for 0.5-2.5 s.
        const int n = 1 + static_cast<int>(rng() % 3);
        const auto burst = std::chrono::milliseconds(500 + rng() % 2000);
        const auto until = Clock::now() + burst;
        std::vector<std::thread> runs;
        std::vector<std::vector<std::string>> errs(n);
        std::atomic<int> total{0};
        for (int i = 0; i < n; ++i) {
          runs.emplace_back([&, i] {
            for (int j = 0; j < 50 && Clock::now() < until; ++j) {
              ++total;
              FlushRun f = RunFlush("concurrent, under traffic");
              if (!f.error.empty()) {
                errs[i].push_back(f.error);
              }
            }
          });
        }
        for (auto& r : runs) {
          r.join();
        }
        for (const auto& list : errs) {
          for (const auto& e : list) {
            problem(e);
          }
        }
        note(FaultName(kind), std::to_string(total.load()) + " plauditd flush runs by " +
                                  std::to_string(n) + " concurrent runner(s) under traffic (" +
                                  ms_since(t) + " ms)");
        break;
      }
      case FaultKind::kSecondInstance: {
        if (second_) {
          note(FaultName(kind), "(second instance already up)");
          break;
        }
        const int port = FreeTcpPort();
        second_ = StartServe(port, "plauditd-second-" + std::to_string(++serve_runs_) + ".log");
        if (!Ready(port, 30s)) {
          problem("second instance not ready within 30 s");
          second_->Signal(SIGKILL);
          second_->Wait(10s);
          second_.reset();
          break;
        }
        second_steps_left = 1 + static_cast<int>(rng() % 4);
        second_port_.store(port);
        note(FaultName(kind), "second instance started on port " + std::to_string(port) +
                                  ", odd client threads use it for " +
                                  std::to_string(second_steps_left) + " step(s)");
        break;
      }
      case FaultKind::kSqlRestart: {
        const FaultStep step = RestartSql(rng);
        if (!step.error.empty()) {
          problem(step.error);
        }
        note(FaultName(kind), step.note);
        break;
      }
      case FaultKind::kRebuildCache:  // not one of kFaults
        break;
    }
    if (check_after && !checked) {
      if (Checkpoint(std::string("after ") + FaultName(kind))) {
        gate_.Resume();
      }
    }
  }
  if (second_) {
    stop_second(false);
  }
  log_->Add("fault phase over after " + std::to_string(step) + " steps, " +
            std::to_string(checkpoints_) + " checkpoints");
}

void FaultTest::StopClients() {
  stop_clients_.store(true);
  gate_.Resume();
  for (auto& c : clients_) {
    if (c.joinable()) {
      c.join();
    }
  }
  clients_.clear();
}

void FaultTest::FinalChecks() {
  // Redis and the primary up.
  if (!redis_->running() || redis_->Cli("PING") != "PONG") {
    findings_.Add("harness", "Redis was down at the end; restarting it");
    redis_->Kill();
    ASSERT_TRUE(redis_->Start());
  }
  if (!primary_->Running() || !Ready(primary_port_, 30s)) {
    findings_.Add("fault-step", "primary plauditd not ready at the end; restarting it");
    primary_->Signal(SIGKILL);
    primary_->Wait(10s);
    primary_ = StartServe(primary_port_, "plauditd-primary-final.log");
    ASSERT_TRUE(Ready(primary_port_, 30s));
  }

  if (!settings_.final_sigterm) {
    StopClients();
    log_->Add("final: clients stopped (PLAUDIT_FAULT_FINAL_SIGTERM=0: no SIGTERM stage)");
  } else {
    FinalSigterm();
    if (HasFatalFailure()) {
      return;
    }
  }

  // 2. Before any flush: Redis must still agree with the model.
  {
    const std::string label = settings_.final_sigterm
                                  ? "after the restart, before any flush"
                                  : "with the clients stopped, before any flush";
    ApiState api = ReadApi("final: before flush", label);
    CompareApiModel("final: before flush", label, api);
  }
  FinalFlushAndReload();
}

void FaultTest::FinalSigterm() {
  // 1. SIGTERM of the only instance while the clients still run (the last fault step may
  // have just resumed them: wait until traffic flows again): it finishes the requests in
  // flight and runs a last flush, so SQL alone must then hold every acknowledged change.
  const uint64_t before = acked_ops_.load();
  if (!WaitFor([&] { return acked_ops_.load() >= before + 300; }, 20s)) {
    findings_.Add("harness", "client traffic did not resume before the final SIGTERM");
  }
  log_->Add("final: SIGTERM of the primary (the only instance) under traffic");
  primary_->Signal(SIGTERM);
  auto st = primary_->Wait(30s);
  if (!st || *st != 0) {
    findings_.Add("final: SIGTERM", "primary plauditd after SIGTERM: " +
                                        (st ? "exit " + std::to_string(*st)
                                            : std::string("no exit in 30 s (SIGKILLed)")) +
                                        " " + Context("final SIGTERM"));
    if (!st) {
      primary_->Signal(SIGKILL);
      primary_->Wait(10s);
    }
  }
  StopClients();
  log_->Add("final: clients stopped");
  {
    const std::string label =
        "after SIGTERM of the only instance (its last flush), before any "
        "other flush";
    SqlState sql = ReadSql("final: after SIGTERM", label);
    CompareSqlModel("final: after SIGTERM", label, sql);
    CompareViews("final: after SIGTERM", label, sql, nullptr);
  }

  primary_ = StartServe(primary_port_, "plauditd-primary-final.log");
  ASSERT_TRUE(Ready(primary_port_, 30s)) << TailOf(dir_.path() / "plauditd-primary-final.log", 30);
  log_->Add("final: primary restarted");
}

void FaultTest::FinalFlushAndReload() {
  // 3. One `plauditd flush` to completion: API == SQL == model.
  FlushRun f = RunFlush("final");
  if (!f.error.empty()) {
    findings_.Add("final", f.error);
  }
  if (f.fixed > 0) {
    findings_.Add("final: reconcile repaired counts",
                  "the final plauditd flush (nothing in flight) reconciled " +
                      std::to_string(f.fixed) + " like count(s)");
  }
  log_->Add("final: plauditd flush done");
  {
    const std::string label = "after the final plauditd flush";
    ApiState api = ReadApi("final: after flush", label);
    NoteModes();
    SqlState sql = ReadSql("final: after flush", label);
    CompareApiModel("final: after flush", label, api);
    CompareSqlModel("final: after flush", label, sql);
    CompareApiSql("final: after flush", label, api, sql);
    SettleViews(sql, api);
    CompareViews("final: after flush", label, sql, &api);
    int64_t most = 0;
    for (auto n : sql.rows) {
      most = std::max(most, n);
    }
    if (sql.ok && most <= 256) {
      findings_.Add("harness", "no target ended with more than 256 likers: big mode not covered");
    }
  }

  // 4. Redis emptied: everything must reload from SQL the same.
  std::string r = redis_->Cli("FLUSHALL");
  if (r != "OK") {
    findings_.Add("harness", "final FLUSHALL answered " + r);
  }
  log_->Add("final: FLUSHALL");
  {
    const std::string label = "after the final FLUSHALL (reloaded from SQL)";
    ApiState api = ReadApi("final: after FLUSHALL", label);
    SqlState sql = ReadSql("final: after FLUSHALL", label);
    CompareApiModel("final: after FLUSHALL", label, api);
    CompareApiSql("final: after FLUSHALL", label, api, sql);
    CompareViews("final: after FLUSHALL", label, sql, &api);
  }

  // 5. A graceful stop with nothing to do still ends with 0.
  primary_->Signal(SIGTERM);
  auto last = primary_->Wait(20s);
  if (!last || *last != 0) {
    findings_.Add("final: SIGTERM",
                  "idle primary plauditd after SIGTERM: " +
                      (last ? "exit " + std::to_string(*last) : std::string("no exit in 20 s")));
  }
}

TEST_P(FaultTest, AcknowledgedLikesAndViewsSurviveFaults) {
  ASSERT_TRUE(settings_.error.empty()) << settings_.error;
  const auto started = Clock::now();
  log_ = std::make_unique<FaultLog>(started);
  std::printf("[fault] %s: seed %llu, %d s of faults, kinds %s, flush interval %d ms\n",
              GetParam().c_str(), static_cast<unsigned long long>(settings_.seed),
              settings_.seconds, settings_.faults_text.c_str(), settings_.flush_ms);
  std::fflush(stdout);

  Prepare();
  if (HasFatalFailure()) {
    return;
  }
  log_->Add("setup done: " + std::to_string(kUsers) + " users, " + std::to_string(targets_.size()) +
            " targets");

  NoteModes();
  for (int t = 0; t < kThreads; ++t) {
    gate_.Join();  // before any fault can ask for a pause
  }
  for (int t = 0; t < kThreads; ++t) {
    clients_.emplace_back([this, t] { ClientThread(t); });
  }
  FaultPhase();
  FinalChecks();
  StopClients();  // when FinalChecks stopped early

  ThreadStats total;
  for (const auto& s : stats_) {
    total.writes_acked += s.writes_acked;
    total.reads += s.reads;
    total.lost += s.lost;
    total.server_errors += s.server_errors;
    total.unauthenticated += s.unauthenticated;
    total.not_sent += s.not_sent;
    total.logins += s.logins;
    total.via_second += s.via_second;
    for (int a = 0; a < kArticles; ++a) {
      total.views_acked[a] += s.views_acked[a];
    }
  }
  std::string kinds;
  for (const auto& [k, n] : fault_counts_) {
    kinds += k + "=" + std::to_string(n) + " ";
  }
  uint64_t views = 0;
  for (auto v : total.views_acked) {
    views += v;
  }
  const auto secs = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started);
  std::printf(
      "[fault] %s: seed %llu, %.1f s; faults: %s(%d checkpoints, %d splits seen)\n"
      "[fault]   acked writes %llu, "
      "reads %llu, views %llu, lost %llu, 5xx %llu, 401 %llu, not sent %llu, via second %llu\n"
      "[fault]   findings: %s\n",
      GetParam().c_str(), static_cast<unsigned long long>(settings_.seed), secs.count() / 1000.0,
      kinds.c_str(), checkpoints_, splits_seen_, (unsigned long long)total.writes_acked,
      (unsigned long long)total.reads, (unsigned long long)views, (unsigned long long)total.lost,
      (unsigned long long)total.server_errors, (unsigned long long)total.unauthenticated,
      (unsigned long long)total.not_sent, (unsigned long long)total.via_second,
      findings_.empty() ? "none" : findings_.Summary().c_str());
  std::fflush(stdout);

  // What the servers and flush runs logged as warnings or errors, by message.
  const std::string logged_text = LoggedProblems(dir_.path());
  if (!logged_text.empty()) {
    std::printf("[fault]   logged by plauditd:\n%s", logged_text.c_str());
  }
  if (findings_.empty()) {
    std::printf("[fault]   fault sequence:\n%s", log_->All().c_str());
  }
  std::fflush(stdout);

  EXPECT_TRUE(findings_.empty())
      << "Fault test on " << GetParam()
      << " failed.\n  Replay: PLAUDIT_FAULT_SEED=" << settings_.seed
      << " PLAUDIT_FAULT_SECONDS=" << settings_.seconds
      << " PLAUDIT_FAULTS=" << settings_.faults_text
      << " build/tests/app_tests --gtest_filter='*FaultTest*/" << GetParam()
      << "'\n  (the fault schedule follows from the seed; thread timing does not)\n"
      << "Findings (the first of each kind; stage: what):\n"
      << findings_.Text() << "Fault sequence (t = since the test started):\n"
      << log_->All() << "Warnings and errors logged by plauditd (serve and flush):\n"
      << (logged_text.empty() ? "    none\n" : logged_text);
}

INSTANTIATE_TEST_SUITE_P(Databases, FaultTest, ::testing::Values("sqlite", "postgresql", "mariadb"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace plaudit::testing
