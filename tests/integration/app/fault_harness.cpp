#include "fault_harness.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "support/mariadb_server.hpp"
#include "support/postgres_server.hpp"
#include "support/process.hpp"

namespace plaudit::testing {

// Runs a shell command and returns its stdout (trailing newlines removed) and exit status.
std::pair<std::string, int> Shell(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) {
    return {"popen failed", -1};
  }
  std::array<char, 8192> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) {
    out.append(buf.data(), n);
  }
  int st = ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
    out.pop_back();
  }
  return {out, st};
}

constexpr std::array<std::pair<FaultKind, const char*>, 8> kFaultNames = {{
    {FaultKind::kFlushAll, "flushall"},
    {FaultKind::kRedisKill, "redis-kill"},
    {FaultKind::kRedisRollback, "redis-rollback"},
    {FaultKind::kRebuildCache, "rebuild-cache"},
    {FaultKind::kServerKill, "server-kill"},
    {FaultKind::kExtraFlush, "extra-flush"},
    {FaultKind::kSecondInstance, "second-instance"},
    {FaultKind::kSqlRestart, "sql-restart"},
}};

const char* FaultName(FaultKind kind) {
  for (const auto& [k, name] : kFaultNames) {
    if (k == kind) {
      return name;
    }
  }
  return "?";
}

namespace {

struct FaultKinds {
  std::vector<FaultKind> kinds;
  std::string text;
  std::string error;
};

// The kinds of `known` that `env` names (see ReadFaultSettings); `error` says what was wrong
// (unknown names, or none named), with the known names.
FaultKinds ReadFaultKinds(const char* env, std::span<const FaultKind> known) {
  FaultKinds out;
  std::string list;
  if (const char* v = std::getenv(env); v && *v) {
    list = v;
  }
  if (list == "none") {
    out.text = "none";
    return out;
  }
  if (list.empty() || list == "all") {
    out.kinds.assign(known.begin(), known.end());
    out.text = "all";
    return out;
  }
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) {
      continue;
    }
    bool found = false;
    for (FaultKind kind : known) {
      if (item != FaultName(kind)) {
        continue;
      }
      found = true;
      if (std::find(out.kinds.begin(), out.kinds.end(), kind) == out.kinds.end()) {
        out.kinds.push_back(kind);
      }
    }
    if (!found) {
      out.error += "unknown fault kind '" + item + "'; ";
    }
  }
  if (out.kinds.empty() && out.error.empty()) {
    out.error = std::string(env) + " names no fault kind; ";
  }
  if (!out.error.empty()) {
    out.error += "known kinds:";
    for (FaultKind kind : known) {
      out.error += std::string(" ") + FaultName(kind);
    }
    out.error += ", none";
  }
  out.text = list;
  return out;
}

}  // namespace

FaultSettings ReadFaultSettings(const std::string& prefix, const char* faults_env,
                                int default_seconds, std::span<const FaultKind> known) {
  FaultSettings s;
  if (const char* v = std::getenv((prefix + "_SEED").c_str()); v && *v) {
    s.seed = std::strtoull(v, nullptr, 10);
  } else {
    s.seed = static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) %
             1000000007ULL;
  }
  s.seconds = default_seconds;
  if (const char* v = std::getenv((prefix + "_SECONDS").c_str()); v && *v) {
    s.seconds = std::max(1, std::atoi(v));
  }
  auto kinds = ReadFaultKinds(faults_env, known);
  s.faults = std::move(kinds.kinds);
  s.faults_text = std::move(kinds.text);
  s.error = std::move(kinds.error);
  if (const char* v = std::getenv((prefix + "_KEEP_LOGS").c_str()); v && *v && *v != '0') {
    s.keep_logs = true;
  }
  return s;
}

std::string TailOf(const fs::path& p, size_t lines) {
  std::ifstream in(p);
  std::vector<std::string> all;
  std::string line;
  while (std::getline(in, line)) {
    all.push_back(line);
  }
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    out += "    | " + all[i] + "\n";
  }
  return out;
}

std::vector<std::vector<std::string>> SplitRows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) {
      continue;
    }
    std::vector<std::string> cols;
    size_t start = 0;
    while (true) {
      size_t bar = line.find('|', start);
      cols.push_back(
          line.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
      if (bar == std::string::npos) {
        break;
      }
      start = bar + 1;
    }
    rows.push_back(std::move(cols));
  }
  return rows;
}

std::optional<json::value> ParseJson(const std::string& body) {
  boost::system::error_code ec;
  auto v = json::parse(body, ec);
  if (ec) {
    return std::nullopt;
  }
  return v;
}

bool Ready(int port, std::chrono::milliseconds timeout) {
  Conn c(port);
  return WaitFor([&] { return c.Send(beast::http::verb::get, "/readyz").status == 200; }, timeout);
}

std::string LoggedProblems(const fs::path& dir) {
  std::map<std::string, std::pair<int, std::string>> logged;  // message -> count, first file
  std::error_code ec;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (!e.is_regular_file() || e.path().extension() != ".log" ||
        e.path().filename() == "redis.log") {
      continue;
    }
    std::ifstream in(e.path());
    std::string line;
    while (std::getline(in, line)) {
      for (const char* level : {" warning ", " error ", " critical "}) {
        if (auto at = line.find(level); at != std::string::npos && at < 32) {
          auto& [n, file] = logged[line.substr(at + 1)];
          if (n++ == 0) {
            file = e.path().filename().string() + " " + line.substr(0, at);
          }
        }
      }
    }
  }
  std::string text;
  for (const auto& [msg, v] : logged) {
    text += "    " + std::to_string(v.first) + "x " + msg.substr(0, 300) + " (first: " + v.second +
            ")\n";
  }
  return text;
}

// ---------------------------------------------------------------------------------------
// FaultFixture

FaultFixture::FaultFixture(const std::string& prefix) : dir_(prefix) {
  if (const char* path = std::getenv("PLAUDIT_SOAK_RSS"); path && *path) {
    rss_ = std::make_unique<RssSampler>(Plauditd(), dir_.path().string());
  }
}

FaultFixture::~FaultFixture() = default;

FaultFixture::RssSampler::RssSampler(std::string plauditd, std::string marker)
    : plauditd_(std::move(plauditd)), marker_(std::move(marker)) {
  thread_ = std::thread([this, path = std::string(std::getenv("PLAUDIT_SOAK_RSS"))] { Run(path); });
}

FaultFixture::RssSampler::~RssSampler() {
  stop_.store(true);
  thread_.join();
}

namespace {

// The NUL-separated arguments of process `pid` ("" once it is gone).
std::vector<std::string> CommandLine(const fs::path& proc) {
  std::ifstream in(proc / "cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) {
    args.push_back(arg);
  }
  return args;
}

// VmRSS of a process in KiB (0 when it is gone).
int64_t RssKib(const fs::path& proc) {
  std::ifstream in(proc / "status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      return std::strtoll(line.c_str() + 6, nullptr, 10);
    }
  }
  return 0;
}

}  // namespace

void FaultFixture::RssSampler::Run(const std::string& path) {
  std::ofstream out(path, std::ios::app);
  const auto t0 = Clock::now();
  while (!stop_.load()) {
    const double at = std::chrono::duration<double>(Clock::now() - t0).count();
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
      const std::string pid = e.path().filename().string();
      if (pid.find_first_not_of("0123456789") != std::string::npos) {
        continue;
      }
      const auto args = CommandLine(e.path());
      const bool ours = args.size() > 2 && args[0] == plauditd_ && args[1] == "serve" &&
                        std::any_of(args.begin(), args.end(), [&](const std::string& a) {
                          return a.find(marker_) != std::string::npos;
                        });
      if (!ours) {
        continue;
      }
      if (const int64_t kib = RssKib(e.path()); kib > 0) {
        out << std::fixed << std::setprecision(1) << at << "," << pid << "," << kib << "\n";
      }
    }
    out.flush();
    // A sampling period, not a wait for background work.
    for (int i = 0; i < 10 && !stop_.load(); ++i) {
      std::this_thread::sleep_for(100ms);
    }
  }
}

std::string FaultFixture::Plauditd() {
  const char* v = std::getenv("PLAUDIT_FAULT_PLAUDITD");
  return v && *v ? std::string(v) : std::string(PLAUDITD_PATH);
}

std::vector<std::string> FaultFixture::BackendFlags() const {
  return {"--redis", redis_->url(), "--database", db_url_};
}

void FaultFixture::StartBackends(bool own_sql_server) {
  redis_ = std::make_unique<FaultRedis>(dir_.path() / "redis");
  ASSERT_TRUE(redis_->Start()) << TailOf(dir_.path() / "redis" / "redis.log", 20);
  if (GetParam() == "sqlite") {
    sqlite_path_ = dir_.path() / "plaudit.db";
    db_url_ = "sqlite://" + sqlite_path_.string();
  } else if (GetParam() == "mariadb") {
    if (own_sql_server) {
      own_mariadb_ = std::make_unique<MariadbServer>();
    }
    auto& mariadb = own_mariadb_ ? *own_mariadb_ : MariadbServer::Shared();
    server_db_ = mariadb.CreateDatabase();
    db_url_ = mariadb.url(server_db_);
  } else {
    if (own_sql_server) {
      own_pg_ = std::make_unique<PostgresServer>();
    }
    auto& pg = own_pg_ ? *own_pg_ : PostgresServer::Shared();
    server_db_ = pg.CreateDatabase();
    db_url_ = pg.url(server_db_);
  }
}

FaultFixture::FaultStep FaultFixture::RestartSql(std::mt19937_64& rng) {
  const auto down = std::chrono::milliseconds(200 + rng() % 1800);
  if (!own_pg_ && !own_mariadb_) {
    return {"(no database server to restart)", ""};
  }
  const auto started = Clock::now();
  try {
    if (own_pg_) {
      own_pg_->Stop();
    } else {
      own_mariadb_->Stop();
    }
    std::this_thread::sleep_for(down);  // the outage itself, under traffic
    if (own_pg_) {
      own_pg_->Start();
    } else {
      own_mariadb_->Start();
    }
  } catch (const std::exception& e) {
    return {"database server restart failed",
            std::string("restarting the database server: ") + e.what()};
  }
  const auto took =
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  return {"database server stopped under traffic for " + std::to_string(down.count()) +
              " ms, then started (" + std::to_string(took) + " ms)",
          ""};
}

std::unique_ptr<Process> FaultFixture::StartServe(int port, const std::string& log_name,
                                                  int flush_ms) {
  std::vector<std::string> argv = {Plauditd(), "serve"};
  for (auto& f : BackendFlags()) {
    argv.push_back(f);
  }
  const std::vector<std::string> flags = {
      "--port", std::to_string(port), "--rate-limits", "off", "--password-hash", "minimal",
      "--flush-interval-ms", std::to_string(flush_ms), "--bootstrap-admin", "admin:admin-password",
      "--log-level", "info",
      // The checks read view counts from the article list and compare them exactly: kept
      // list pages must then be current in views too (still kept, under their versions).
      "--list-views-max-age-ms", "0",
      // Rendered pages are kept up to this bound (default 64 MiB), least recently used out:
      // the clients' cursors and short-lived articles name new pages all the time, so a
      // 64 MiB cache fills for hours and a soak's RSS rises with it; at 4 MiB it is full
      // within minutes, evictions run, and a flat RSS after that says no leak.
      "--page-cache-mb", "4",
      // The content test's held client writes on page threads of this site.
      "--sites", "https://blog.example", "--report-threshold", "3"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  return std::make_unique<Process>(argv, (dir_.path() / log_name).string());
}

FaultFixture::ToolRun FaultFixture::RunTool(const std::string& subcommand, const std::string& why,
                                            std::chrono::seconds timeout) {
  ToolRun out;
  int n;
  {
    std::lock_guard lock(tool_runs_m_);
    n = ++tool_runs_[subcommand];
  }
  out.log = dir_.path() / (subcommand + "-" + std::to_string(n) + ".log");
  std::vector<std::string> argv = {Plauditd(), subcommand};
  for (auto& f : BackendFlags()) {
    argv.push_back(f);
  }
  Process p(argv, out.log.string());
  auto st = p.Wait(timeout);
  const std::string name = "plauditd " + subcommand + " #" + std::to_string(n) + " (" + why + ")";
  if (!st) {
    p.Signal(SIGKILL);
    out.error = name + " did not finish in " + std::to_string(timeout.count()) + " s:\n" +
                TailOf(out.log, 8);
  } else if (*st != 0) {
    out.error = name + " exited " + std::to_string(*st) + ":\n" + TailOf(out.log, 8);
  }
  return out;
}

std::vector<std::vector<std::string>> FaultFixture::Sql(const std::string& query) {
  std::string out;
  if (GetParam() == "sqlite") {
    auto [text, st] = Shell("sqlite3 -batch -noheader -separator '|' -cmd '.timeout 10000' " +
                            ShellQuote(sqlite_path_.string()) + " " + ShellQuote(query) + " 2>&1");
    if (st != 0) {
      throw std::runtime_error("sqlite3 failed (" + query + "): " + text);
    }
    out = text;
  } else if (GetParam() == "mariadb") {
    // As psql -A and sqlite3 print them: '|' between values, NULL as "".
    auto& mariadb = own_mariadb_ ? *own_mariadb_ : MariadbServer::Shared();
    std::string text = mariadb.Sql(server_db_, query);
    std::string line;
    std::stringstream in(text);
    while (std::getline(in, line)) {
      std::string row;
      size_t start = 0;
      while (true) {
        const size_t tab = line.find('\t', start);
        std::string value = line.substr(start, tab == std::string::npos ? tab : tab - start);
        row += (start > 0 ? "|" : "") + (value == "NULL" ? std::string() : value);
        if (tab == std::string::npos) {
          break;
        }
        start = tab + 1;
      }
      out += row + "\n";
    }
  } else {
    auto& pg = own_pg_ ? *own_pg_ : PostgresServer::Shared();
    out = pg.Psql(server_db_, query);
  }
  return SplitRows(out);
}

Reply FaultFixture::Reliable(Conn& c, beast::http::verb method, const std::string& target,
                             User* user, const std::string& body) {
  Reply r;
  for (int attempt = 0; attempt < 300; ++attempt) {
    if (user && user->token.empty() && !Login(c, *user)) {
      std::this_thread::sleep_for(20ms);
      continue;
    }
    r = c.Send(method, target, user ? user->token : "", body);
    if (r.kind == Reply::kAnswered && r.status == 401 && user) {
      user->token.clear();
      continue;
    }
    if (r.kind == Reply::kAnswered && r.status < 500) {
      return r;
    }
    std::this_thread::sleep_for(20ms);
  }
  return r;
}

bool FaultFixture::Login(Conn& c, User& u) {
  json::object body{{"username", u.name}, {"password", u.password}};
  Reply r = c.Send(beast::http::verb::post, "/api/v1/sessions", "", json::serialize(body));
  if (r.kind != Reply::kAnswered || r.status != 201) {
    return false;
  }
  auto v = ParseJson(r.body);
  if (!v) {
    return false;
  }
  u.token = std::string(v->at("token").as_string());
  return true;
}

void FaultFixture::KeepLogs(const std::string& name) {
  fs::path dest = fs::temp_directory_path() / name;
  std::error_code ec;
  fs::remove_all(dest, ec);
  fs::create_directories(dest, ec);
  for (const auto& e : fs::recursive_directory_iterator(dir_.path(), ec)) {
    if (e.is_regular_file() && e.path().extension() == ".log") {
      fs::copy_file(e.path(), dest / e.path().filename(), fs::copy_options::overwrite_existing, ec);
    }
  }
  std::printf("[fault] logs kept in %s\n", dest.c_str());
}

}  // namespace plaudit::testing
