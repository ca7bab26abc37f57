#pragma once
// The harness shared by the fault tests (fault_test.cpp: likes and views; content_fault_test.cpp:
// articles and comments): shell helpers, a blocking HTTP client that tells unanswered from
// refused requests, a redis-server whose persistence the test controls, the findings and
// fault logs, the gate that pauses clients, and a fixture base that owns the temp dir, Redis,
// the database and runs `plauditd` processes against them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/json.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/net.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::testing {

class PostgresServer;
class MariadbServer;

namespace fs = std::filesystem;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------
// Small helpers

// Runs a shell command and returns its stdout (trailing newlines removed) and exit status.
std::pair<std::string, int> Shell(const std::string& cmd);

// Every kind of fault the fault tests inject; each test injects its own subset of them.
enum class FaultKind {
  kFlushAll,
  kRedisKill,
  kRedisRollback,
  kRebuildCache,
  kServerKill,
  kExtraFlush,
  kSecondInstance,
  kSqlRestart,
};
// The name of `kind` in the environment and in the fault log: "flushall", "redis-kill", ...
const char* FaultName(FaultKind kind);

// What each fault test reads from the environment, `<prefix>` being its own: the seed
// (`<prefix>_SEED`, else one from the clock), the length of the fault phase (`<prefix>_SECONDS`),
// the fault kinds and `<prefix>_KEEP_LOGS`. A test adds its own settings in a struct derived
// from this one.
struct FaultSettings {
  uint64_t seed = 0;
  int seconds = 0;
  std::vector<FaultKind> faults;
  std::string faults_text;  // what to print about `faults`
  bool keep_logs = false;
  std::string error;  // a bad setting
};
// The fault kinds come from `faults_env`, a comma list of the names of `known` (the test's
// kinds); unset, empty or "all": every kind of `known`; "none": none (traffic only).
FaultSettings ReadFaultSettings(const std::string& prefix, const char* faults_env,
                                int default_seconds, std::span<const FaultKind> known);

std::string TailOf(const fs::path& p, size_t lines);
// Rows of `a|b|c` lines (sqlite3 -separator '|', psql -A).
std::vector<std::vector<std::string>> SplitRows(const std::string& text);
// Warnings, errors and criticals the plauditd logs under `dir` (serve, flush, ...) logged,
// by message with a count and the first file: "" when none.
std::string LoggedProblems(const fs::path& dir);

// ---------------------------------------------------------------------------------------
// A blocking HTTP client that never retries by itself, and says whether a request that got
// no answer may have reached the server: kNotSent (could not connect: nothing happened),
// kLost (sent, or partly sent, but no response: it may or may not have been applied),
// kAnswered.

struct Reply {
  enum Kind { kNotSent, kLost, kAnswered } kind = kNotSent;
  int status = 0;
  std::string body;
  std::string error;
  bool ok() const { return kind == kAnswered && status >= 200 && status < 300; }
  bool uncertain() const { return kind == kLost || (kind == kAnswered && status >= 500); }
};

class Conn {
 public:
  explicit Conn(int port = 0) : port_(port) {}
  int port() const { return port_; }
  void Retarget(int port) {
    if (port != port_) {
      Close();
      port_ = port;
    }
  }

  Reply Send(beast::http::verb method, const std::string& target, const std::string& token = "",
             const std::string& body = "") {
    Reply r;
    if (sock_ && !StillOpen()) {
      Close();
    }
    if (!sock_) {
      boost::system::error_code ec;
      sock_.emplace(ioc_);
      sock_->connect(tcp::endpoint(net::ip::address_v4::loopback(), static_cast<uint16_t>(port_)),
                     ec);
      if (ec) {
        Close();
        r.kind = Reply::kNotSent;
        r.error = "connect: " + ec.message();
        return r;
      }
      timeval tv{15, 0};
      ::setsockopt(sock_->native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      ::setsockopt(sock_->native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
      buffer_.clear();
    }
    beast::http::request<beast::http::string_body> req{method, target, 11};
    req.set(beast::http::field::host, "127.0.0.1");
    req.keep_alive(true);
    if (!token.empty()) {
      req.set(beast::http::field::authorization, "Bearer " + token);
    }
    if (!body.empty()) {
      req.set(beast::http::field::content_type, "application/json");
    }
    req.body() = body;
    req.prepare_payload();
    boost::system::error_code ec;
    beast::http::write(*sock_, req, ec);
    beast::http::response_parser<beast::http::string_body> parser;
    parser.body_limit(16 << 20);
    if (!ec) {
      beast::http::read(*sock_, buffer_, parser, ec);
    }
    if (ec) {
      Close();
      r.kind = Reply::kLost;
      r.error = ec.message();
      return r;
    }
    auto& res = parser.get();
    r.kind = Reply::kAnswered;
    r.status = static_cast<int>(res.result_int());
    r.body = res.body();
    if (!res.keep_alive()) {
      Close();
    }
    return r;
  }

  void Close() {
    if (sock_) {
      boost::system::error_code ec;
      sock_->close(ec);
      sock_.reset();
    }
    buffer_.clear();
  }

 private:
  // A kept-alive connection whose server went away (killed, restarted) reads as EOF or an
  // error before anything is sent: reconnect instead of losing the request on it.
  bool StillOpen() {
    char c;
    ssize_t n = ::recv(sock_->native_handle(), &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0) {
      return false;
    }
    if (n < 0) {
      return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    return true;  // unexpected bytes: keep them for the parser
  }

  int port_;
  net::io_context ioc_;
  std::optional<tcp::socket> sock_;
  beast::flat_buffer buffer_;
};

std::optional<json::value> ParseJson(const std::string& body);
bool Ready(int port, std::chrono::milliseconds timeout);

// ---------------------------------------------------------------------------------------
// A redis-server whose persistence the test controls: AOF with fsync always in its own dir,
// SIGKILL, restart from the AOF, and restart from an older RDB snapshot.

class FaultRedis {
 public:
  explicit FaultRedis(fs::path dir) : dir_(std::move(dir)) {
    fs::create_directories(dir_);
    socket_ = (dir_ / "redis.sock").string();
  }
  ~FaultRedis() {
    if (proc_) {
      proc_->Signal(SIGKILL);
    }
  }

  std::string url() const { return "unix://" + socket_; }
  bool running() { return proc_ && proc_->Running(); }

  // Starts redis-server and waits until it answers PING (data loaded). appendonly = false is
  // only for loading an RDB snapshot (RestoreSnapshot then switches the AOF on).
  bool Start(bool appendonly = true) {
    std::string bin = FindExecutable("redis-server", {"/usr/bin", "/usr/local/bin"});
    if (bin.empty()) {
      throw std::runtime_error("redis-server not found");
    }
    std::vector<std::string> argv{bin,
                                  "--port",
                                  "0",
                                  "--unixsocket",
                                  socket_,
                                  "--unixsocketperm",
                                  "700",
                                  "--dir",
                                  dir_.string(),
                                  "--dbfilename",
                                  "dump.rdb",
                                  "--appenddirname",
                                  "appendonlydir",
                                  "--appendonly",
                                  appendonly ? "yes" : "no",
                                  "--appendfsync",
                                  "always",
                                  "--save",
                                  "",
                                  "--daemonize",
                                  "no",
                                  "--loglevel",
                                  "notice"};
    proc_ = std::make_unique<Process>(argv, (dir_ / "redis.log").string());
    return WaitFor([&] { return Cli("PING") == "PONG"; }, 20s);
  }

  void Kill() {
    if (!proc_) {
      return;
    }
    proc_->Signal(SIGKILL);
    proc_->Wait(10s);
    proc_.reset();
  }

  // SAVE (synchronous: the snapshot is the state at this instant) and keep a copy aside.
  bool Snapshot(const fs::path& dest) {
    if (Cli("SAVE") != "OK") {
      return false;
    }
    std::error_code ec;
    fs::copy_file(dir_ / "dump.rdb", dest, fs::copy_options::overwrite_existing, ec);
    return !ec;
  }

  // SIGKILL, then start from `snapshot` alone: the AOF is removed, the RDB loaded with
  // appendonly off, and the AOF switched back on (a rewrite from the loaded data), so that
  // later restarts load the restored state plus what follows.
  std::string RestoreSnapshot(const fs::path& snapshot) {
    Kill();
    std::error_code ec;
    fs::remove_all(dir_ / "appendonlydir", ec);
    fs::copy_file(snapshot, dir_ / "dump.rdb", fs::copy_options::overwrite_existing, ec);
    if (ec) {
      return "copying the snapshot failed: " + ec.message();
    }
    if (!Start(/*appendonly=*/false)) {
      return "redis-server did not start from the snapshot";
    }
    if (Cli("CONFIG SET appendonly yes") != "OK") {
      return "CONFIG SET appendonly yes failed";
    }
    const bool rewritten = WaitFor(
        [&] {
          std::string info = Cli("INFO persistence");
          return info.find("aof_rewrite_in_progress:0") != std::string::npos &&
                 info.find("aof_rewrite_scheduled:0") != std::string::npos &&
                 info.find("aof_last_bgrewrite_status:ok") != std::string::npos &&
                 fs::exists(dir_ / "appendonlydir" / "appendonly.aof.manifest");
        },
        20s);
    return rewritten ? "" : "the AOF rewrite after the restore did not finish";
  }

  std::string Cli(const std::string& args) const {
    return Shell("redis-cli -s " + ShellQuote(socket_) + " " + args + " 2>&1").first;
  }
  // Commands one per line on redis-cli's stdin; one answer per line.
  std::string CliStdin(const std::string& commands) const {
    return Shell("printf %s " + ShellQuote(commands) + " | redis-cli -s " + ShellQuote(socket_) +
                 " 2>&1")
        .first;
  }

 private:
  fs::path dir_;
  std::string socket_;
  std::unique_ptr<Process> proc_;
};

struct User {
  std::string name;
  std::string password;
  int64_t id = 0;
  std::string token;
};

class Findings {
 public:
  void Add(const std::string& kind, const std::string& text) {
    std::lock_guard lock(m_);
    auto& list = by_kind_[kind];
    ++count_[kind];
    if (list.size() < 25) {
      list.push_back(text);
    }
  }
  bool empty() const {
    std::lock_guard lock(m_);
    return count_.empty();
  }
  size_t Count() const {
    std::lock_guard lock(m_);
    size_t n = 0;
    for (const auto& [kind, c] : count_) {
      n += c;
    }
    return n;
  }
  // The findings kept (at most `per_kind` of each kind, up to 25), by kind.
  std::string Text(size_t per_kind = 25) const {
    std::lock_guard lock(m_);
    std::string out;
    for (const auto& [kind, n] : count_) {
      out += "  [" + kind + "] " + std::to_string(n) + " finding(s)\n";
      const auto& list = by_kind_.at(kind);
      const size_t shown = std::min(per_kind, list.size());
      for (size_t i = 0; i < shown; ++i) {
        out += "    " + list[i] + "\n";
      }
      if (n > shown) {
        out += "    ... and " + std::to_string(n - shown) + " more\n";
      }
    }
    return out;
  }
  std::string Summary() const {
    std::lock_guard lock(m_);
    std::string out;
    for (const auto& [kind, n] : count_) {
      out += kind + "=" + std::to_string(n) + " ";
    }
    return out;
  }

 private:
  mutable std::mutex m_;
  std::map<std::string, std::vector<std::string>> by_kind_;
  std::map<std::string, size_t> count_;
};

class FaultLog {
 public:
  explicit FaultLog(Clock::time_point t0) : t0_(t0) {}
  int64_t Now() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0_).count();
  }
  void Add(const std::string& what) {
    std::lock_guard lock(m_);
    events_.emplace_back(Now(), what);
  }
  // The last `n` events at or before `ms`.
  std::string Before(int64_t ms, size_t n) const {
    std::lock_guard lock(m_);
    std::vector<std::string> picked;
    for (const auto& [t, what] : events_) {
      if (t <= ms) {
        picked.push_back(Stamp(t) + " " + what);
      }
    }
    std::string out;
    for (size_t i = picked.size() > n ? picked.size() - n : 0; i < picked.size(); ++i) {
      out += (out.empty() ? "" : "; ") + picked[i];
    }
    return out.empty() ? "none" : out;
  }
  std::string All() const {
    std::lock_guard lock(m_);
    std::string out;
    for (const auto& [t, what] : events_) {
      out += "    " + Stamp(t) + " " + what + "\n";
    }
    return out;
  }
  static std::string Stamp(int64_t ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "t=%lld.%03llds", static_cast<long long>(ms / 1000),
                  static_cast<long long>(ms % 1000));
    return buf;
  }

 private:
  Clock::time_point t0_;
  mutable std::mutex m_;
  std::vector<std::pair<int64_t, std::string>> events_;
};

// Clients park here while a fault needs them quiet (a flush that must see everything).
class Gate {
 public:
  void Join() {
    std::lock_guard lock(m_);
    ++active_;
  }
  void Leave() {
    std::lock_guard lock(m_);
    --active_;
    cv_.notify_all();
  }
  void Checkpoint() {
    std::unique_lock lock(m_);
    if (!pause_) {
      return;
    }
    ++parked_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !pause_; });
    --parked_;
  }
  bool Pause(std::chrono::milliseconds timeout) {
    std::unique_lock lock(m_);
    pause_ = true;
    return cv_.wait_for(lock, timeout, [&] { return parked_ >= active_; });
  }
  void Resume() {
    std::lock_guard lock(m_);
    pause_ = false;
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool pause_ = false;
  int parked_ = 0;
  int active_ = 0;
};

// ---------------------------------------------------------------------------------------
// The fixture base: a temp dir, a redis-server (FaultRedis) and a database (GetParam():
// "sqlite", "postgresql" or "mariadb"), and plauditd processes run against them.

class FaultFixture : public ::testing::TestWithParam<std::string> {
 protected:
  explicit FaultFixture(const std::string& prefix);
  ~FaultFixture() override;

  // The binary to run: $PLAUDIT_FAULT_PLAUDITD, else the one built with the tests.
  static std::string Plauditd();
  std::vector<std::string> BackendFlags() const;
  // Redis started and the database created (ASSERTs). With `own_sql_server`, PostgreSQL and
  // MariaDB run a server for this test alone (RestartSql stops it; the shared one serves the
  // API tests beside this one), else a database on the shared server.
  void StartBackends(bool own_sql_server = false);
  // The sql-restart fault: the test's own PostgreSQL or MariaDB stopped under traffic for
  // 0.2-2 s (drawn from `rng`) and started again. `note` says what was done (nothing for
  // SQLite or a shared server); `error` what went wrong, if anything.
  struct FaultStep {
    std::string note;
    std::string error;
  };
  FaultStep RestartSql(std::mt19937_64& rng);
  // `plauditd serve` on `port`, logging into `log_name`, with the test flags.
  std::unique_ptr<Process> StartServe(int port, const std::string& log_name, int flush_ms);
  struct ToolRun {
    std::string error;  // "" when it exited 0
    fs::path log;
  };
  // Runs `plauditd <subcommand>` against the backends to completion (at most `timeout`); its
  // log is `<subcommand>-<n>.log`.
  ToolRun RunTool(const std::string& subcommand, const std::string& why,
                  std::chrono::seconds timeout = std::chrono::seconds(90));
  std::vector<std::vector<std::string>> Sql(const std::string& query);
  // Retries a request that got no answer, a 5xx or (with `user`) a 401 after logging in again.
  Reply Reliable(Conn& c, beast::http::verb method, const std::string& target, User* user,
                 const std::string& body = "");
  bool Login(Conn& c, User& u);
  // Copies every *.log under the temp dir to $TMPDIR/<name> and says so.
  void KeepLogs(const std::string& name);

  // While it lives, and $PLAUDIT_SOAK_RSS names a file, appends `<seconds>,<pid>,<rss KiB>`
  // once a second for every `plauditd serve` running on this test's Redis (make soak-all
  // plots them).
  class RssSampler {
   public:
    RssSampler(std::string plauditd, std::string marker);
    ~RssSampler();
    RssSampler(const RssSampler&) = delete;
    RssSampler& operator=(const RssSampler&) = delete;

   private:
    void Run(const std::string& path);
    std::string plauditd_;
    std::string marker_;
    std::atomic<bool> stop_{false};
    std::thread thread_;
  };

  TempDir dir_;
  std::unique_ptr<FaultRedis> redis_;
  std::unique_ptr<PostgresServer> own_pg_;
  std::unique_ptr<MariadbServer> own_mariadb_;
  std::unique_ptr<RssSampler> rss_;
  std::string db_url_;
  std::string server_db_;  // the PostgreSQL or MariaDB database
  fs::path sqlite_path_;
  std::mutex tool_runs_m_;
  std::map<std::string, int> tool_runs_;  // runs per subcommand, for log names
};

}  // namespace plaudit::testing
