#include "support/postgres_server.hpp"

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "support/process.hpp"

namespace plaudit::testing {

namespace {

namespace fs = std::filesystem;

// The newest /usr/lib/postgresql/<major>/bin (Debian keeps the server binaries off PATH),
// else wherever initdb is on PATH.
std::string FindPostgresBinDir() {
  int best = -1;
  std::string best_dir;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    fs::path bin = entry.path() / "bin";
    if (::access((bin / "postgres").c_str(), X_OK) == 0 &&
        ::access((bin / "initdb").c_str(), X_OK) == 0 && std::stoi(name) > best) {
      best = std::stoi(name);
      best_dir = bin.string();
    }
  }
  if (!best_dir.empty()) {
    return best_dir;
  }
  std::string initdb = FindExecutable("initdb");
  if (!initdb.empty() && !FindExecutable("postgres").empty()) {
    return fs::path(initdb).parent_path().string();
  }
  throw std::runtime_error(
      "PostgreSQL server binaries (initdb, postgres) not found: install postgresql "
      "(scripts/install-deps.sh)");
}

// postmaster.pid: line 1 is the postmaster's pid, line 8 its status ("ready" once it
// accepts connections).
std::vector<std::string> PidFileLines(const std::string& path) {
  std::vector<std::string> lines;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

// Servers left by test processes that died without stopping them: as root the postmaster
// runs under runuser, which drops the parent-death signal, so a crashed test binary leaves
// it running. Each server's directory names its owning test process (owner.pid); any whose
// owner is gone is stopped (SIGINT: fast shutdown) and removed.
void StopStaleServers() {
  const char* base = std::getenv("TMPDIR");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(base && *base ? base : "/tmp", ec)) {
    if (entry.path().filename().string().rfind("plaudit-pg-", 0) != 0) {
      continue;
    }
    const fs::path owner_file = entry.path() / "owner.pid";
    if (!fs::exists(owner_file)) {
      continue;
    }
    const pid_t owner = static_cast<pid_t>(std::atol(ReadFile(owner_file.string()).c_str()));
    if (owner <= 0 || ::kill(owner, 0) == 0 || errno != ESRCH) {
      continue;
    }
    const std::string pidfile = (entry.path() / "data" / "postmaster.pid").string();
    const auto lines = PidFileLines(pidfile);
    if (!lines.empty() && std::atol(lines[0].c_str()) > 0) {
      ::kill(static_cast<pid_t>(std::atol(lines[0].c_str())), SIGINT);
      for (int i = 0; i < 100 && fs::exists(pidfile); ++i) {
        ::usleep(50 * 1000);
      }
    }
    fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

PostgresServer::PostgresServer() {
  StopStaleServers();
  bin_dir_ = FindPostgresBinDir();
  as_root_ = ::geteuid() == 0;
  const fs::path root = dir_.path();
  std::ofstream(root / "owner.pid") << ::getpid() << "\n";
  data_dir_ = (root / "data").string();
  socket_dir_ = (root / "sock").string();
  log_path_ = (root / "postgres.log").string();
  fs::create_directory(socket_dir_);
  fs::permissions(root, fs::perms(0755));
  if (as_root_) {
    const passwd* pw = ::getpwnam("postgres");
    if (pw == nullptr) {
      throw std::runtime_error("running as root but there is no `postgres` user to run initdb");
    }
    if (::chown(root.c_str(), pw->pw_uid, pw->pw_gid) != 0 ||
        ::chown(socket_dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      throw std::runtime_error("chown of " + root.string() + " to postgres failed");
    }
    Process probe(AsServerUser({"test", "-w", root.string()}));
    if (probe.Wait(std::chrono::seconds(30)).value_or(-1) != 0) {
      throw std::runtime_error("user postgres cannot write to " + root.string() +
                               ": point TMPDIR at a world-traversable directory");
    }
  }
  port_ = FreeTcpPort();

  const std::string initdb_log = (root / "initdb.log").string();
  Process initdb(AsServerUser({bin_dir_ + "/initdb", "-D", data_dir_, "-U", "postgres", "-A",
                               "trust", "-E", "UTF8", "--locale=C", "--no-sync"}),
                 initdb_log);
  if (initdb.Wait(std::chrono::seconds(120)).value_or(-1) != 0) {
    throw std::runtime_error("initdb failed:\n" + ReadFile(initdb_log));
  }
  Start();
}

PostgresServer::~PostgresServer() { Stop(); }

PostgresServer& PostgresServer::Shared() {
  static PostgresServer server;
  return server;
}

std::vector<std::string> PostgresServer::AsServerUser(std::vector<std::string> argv) const {
  if (!as_root_) {
    return argv;
  }
  std::string runuser = FindExecutable("runuser", {"/usr/sbin", "/sbin", "/usr/bin", "/bin"});
  if (runuser.empty()) {
    throw std::runtime_error("running as root but runuser is not installed");
  }
  std::vector<std::string> out = {runuser, "-u", "postgres", "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

void PostgresServer::Start() {
  if (proc_) {
    return;
  }
  proc_ = std::make_unique<Process>(
      AsServerUser({bin_dir_ + "/postgres", "-D", data_dir_, "-k", socket_dir_, "-p",
                    std::to_string(port_), "-c", "listen_addresses=", "-c", "fsync=off", "-c",
                    "synchronous_commit=off", "-c", "full_page_writes=off"}),
      log_path_);
  const std::string pid_file = data_dir_ + "/postmaster.pid";
  const std::string socket = socket_dir_ + "/.s.PGSQL." + std::to_string(port_);
  bool ready = WaitFor(
      [&] {
        if (!proc_->Running()) {
          return true;
        }
        auto lines = PidFileLines(pid_file);
        return lines.size() >= 8 && lines[7].rfind("ready", 0) == 0 && UnixSocketAccepts(socket);
      },
      std::chrono::seconds(60));
  if (!ready || !proc_->Running()) {
    Stop();
    throw std::runtime_error("postgres did not start:\n" + LogTail());
  }
}

void PostgresServer::Stop() {
  if (!proc_) {
    return;
  }
  // Signal the postmaster itself: under runuser, proc_ is runuser, which would turn any
  // signal into SIGTERM (a "smart" shutdown that waits for every client to disconnect).
  pid_t postmaster = -1;
  if (auto lines = PidFileLines(data_dir_ + "/postmaster.pid"); !lines.empty()) {
    try {
      postmaster = std::stoi(lines[0]);
    } catch (const std::exception&) {
    }
  }
  if (postmaster > 0) {
    ::kill(postmaster, SIGINT);
  } else {
    proc_->Signal(SIGINT);
  }
  if (!proc_->Wait(std::chrono::seconds(30))) {
    if (postmaster > 0) {
      ::kill(postmaster, SIGQUIT);
    }
    proc_->Stop();
  }
  proc_.reset();
}

std::string PostgresServer::url(const std::string& database) const {
  return "postgresql://postgres@/" + database + "?host=" + socket_dir_ +
         "&port=" + std::to_string(port_);
}

std::string PostgresServer::CreateDatabase() {
  static std::atomic<int> counter{0};
  std::string name = "plaudit_test_" + std::to_string(++counter);
  Psql("postgres", "CREATE DATABASE " + name);
  return name;
}

std::string PostgresServer::Psql(const std::string& database, const std::string& sql) const {
  std::string psql = bin_dir_ + "/psql";
  if (::access(psql.c_str(), X_OK) != 0) {
    psql = FindExecutable("psql");
  }
  std::string cmd = ShellQuote(psql) + " -X -q -A -t -v ON_ERROR_STOP=1 -h " +
                    ShellQuote(socket_dir_) + " -p " + std::to_string(port_) + " -U postgres -d " +
                    ShellQuote(database) + " -c " + ShellQuote(sql) + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) {
    throw std::runtime_error("popen psql failed");
  }
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) {
    out.append(buf.data(), n);
  }
  int status = ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
    out.pop_back();
  }
  if (status != 0) {
    throw std::runtime_error("psql failed (" + sql + "): " + out);
  }
  return out;
}

std::string PostgresServer::LogTail() const {
  std::string log = ReadFile(log_path_);
  constexpr size_t kTail = 4000;
  return log.size() > kTail ? log.substr(log.size() - kTail) : log;
}

}  // namespace plaudit::testing
