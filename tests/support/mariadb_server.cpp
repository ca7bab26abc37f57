#include "support/mariadb_server.hpp"

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
#include <stdexcept>

namespace plaudit::testing {

namespace {

namespace fs = std::filesystem;

constexpr const char* kUser = "plaudit";
constexpr const char* kPassword = "plaudit-test-pw";

// Servers left by test processes that died without stopping them (a crashed test binary
// cannot run its destructors): each server's directory names its owning test process
// (owner.pid); any whose owner is gone is stopped and removed.
void StopStaleServers() {
  const char* base = std::getenv("TMPDIR");
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(base && *base ? base : "/tmp", ec)) {
    if (entry.path().filename().string().rfind("plaudit-mariadb-", 0) != 0) {
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
    const pid_t server =
        static_cast<pid_t>(std::atol(ReadFile((entry.path() / "mariadbd.pid").string()).c_str()));
    if (server > 0) {
      ::kill(server, SIGKILL);
      for (int i = 0; i < 100 && ::kill(server, 0) == 0; ++i) {
        ::usleep(50 * 1000);
      }
    }
    fs::remove_all(entry.path(), ec);
  }
}

std::string Server() {
  std::string path = FindExecutable("mariadbd", {"/usr/sbin", "/usr/bin"});
  if (path.empty()) {
    throw std::runtime_error(
        "mariadbd not found: install mariadb-server (scripts/install-deps.sh)");
  }
  return path;
}

}  // namespace

MariadbServer::MariadbServer() {
  StopStaleServers();
  as_root_ = ::geteuid() == 0;
  const fs::path root = dir_.path();
  std::ofstream(root / "owner.pid") << ::getpid() << "\n";
  data_dir_ = (root / "data").string();
  socket_ = (root / "mariadbd.sock").string();
  tmp_dir_ = (root / "tmp").string();
  fs::create_directories(tmp_dir_);
  log_path_ = (root / "mariadbd.log").string();
  pid_path_ = (root / "mariadbd.pid").string();
  fs::permissions(root, fs::perms(0755));
  if (as_root_) {
    const passwd* pw = ::getpwnam("mysql");
    if (pw == nullptr) {
      throw std::runtime_error("running as root but there is no `mysql` user for mariadbd");
    }
    for (const std::string& d : {root.string(), tmp_dir_}) {
      if (::chown(d.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
        throw std::runtime_error("chown of " + d + " to mysql failed");
      }
    }
  }
  port_ = FreeTcpPort();
  std::string install = FindExecutable("mariadb-install-db", {"/usr/bin", "/usr/sbin"});
  if (install.empty()) {
    throw std::runtime_error("mariadb-install-db not found: install mariadb-server");
  }
  std::vector<std::string> argv{install,
                                "--no-defaults",
                                "--datadir=" + data_dir_,
                                "--auth-root-authentication-method=normal",
                                "--skip-test-db",
                                "--skip-name-resolve"};
  if (as_root_) {
    argv.push_back("--user=mysql");
  }
  const std::string install_log = (root / "install.log").string();
  Process installer(argv, install_log);
  if (installer.Wait(std::chrono::seconds(120)).value_or(-1) != 0) {
    throw std::runtime_error("mariadb-install-db failed:\n" + ReadFile(install_log));
  }
  Start();
  Sql("", std::string("CREATE USER '") + kUser + "'@'%' IDENTIFIED BY '" + kPassword +
              "'; GRANT ALL PRIVILEGES ON `plaudit\\_%`.* TO '" + kUser + "'@'%'");
}

MariadbServer::~MariadbServer() { Stop(); }

MariadbServer& MariadbServer::Shared() {
  static MariadbServer server;
  return server;
}

void MariadbServer::Start() {
  if (proc_) {
    return;
  }
  std::vector<std::string> argv{
      Server(), "--no-defaults", "--datadir=" + data_dir_, "--socket=" + socket_,
      // Its internal temporary tables in a directory of its own, not
      // /tmp: one vanished from /tmp under a CI run ("Error on delete
      // of '/tmp/#sql-temptable-…MAI'", a 500 in a comments test).
      "--tmpdir=" + tmp_dir_, "--port=" + std::to_string(port_), "--bind-address=127.0.0.1",
      "--pid-file=" + pid_path_, "--skip-name-resolve", "--skip-log-bin",
      "--innodb-flush-log-at-trx-commit=0", "--innodb-doublewrite=0",
      "--innodb-buffer-pool-size=128M", "--innodb-log-file-size=64M", "--max-connections=1000",
      "--character-set-server=utf8mb4", "--collation-server=utf8mb4_general_ci",
      "--log-error=" + log_path_};
  if (as_root_) {
    argv.push_back("--user=mysql");
  }
  proc_ = std::make_unique<Process>(argv, log_path_ + ".out");
  const bool ready = WaitFor([&] { return !proc_->Running() || UnixSocketAccepts(socket_); },
                             std::chrono::seconds(60));
  if (!ready || !proc_->Running()) {
    Stop();
    throw std::runtime_error("mariadbd did not start:\n" + LogTail());
  }
}

void MariadbServer::Stop() {
  if (!proc_) {
    return;
  }
  proc_->Signal(SIGTERM);
  if (!proc_->Wait(std::chrono::seconds(60))) {
    proc_->Stop();
  }
  proc_.reset();
  std::error_code ec;
  fs::remove(socket_, ec);
}

std::string MariadbServer::url(const std::string& database, bool tcp) const {
  const std::string who = std::string("mariadb://") + kUser + ":" + kPassword + "@";
  if (tcp) {
    return who + "127.0.0.1:" + std::to_string(port_) + "/" + database;
  }
  return who + "localhost/" + database + "?socket=" + socket_;
}

std::string MariadbServer::CreateDatabase() {
  static std::atomic<int> counter{0};
  std::string name = "plaudit_test_" + std::to_string(++counter);
  Sql("", "CREATE DATABASE " + name);
  return name;
}

std::string MariadbServer::Sql(const std::string& database, const std::string& sql) const {
  std::string client = FindExecutable("mariadb", {"/usr/bin"});
  if (client.empty()) {
    throw std::runtime_error("the mariadb client is not installed");
  }
  std::string cmd = ShellQuote(client) + " --no-defaults -N -B -r -u root -S " +
                    ShellQuote(socket_) + (database.empty() ? "" : " -D " + ShellQuote(database)) +
                    " -e " + ShellQuote(sql) + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) {
    throw std::runtime_error("popen mariadb failed");
  }
  std::string out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) {
    out.append(buf.data(), n);
  }
  const int status = ::pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
    out.pop_back();
  }
  if (status != 0) {
    throw std::runtime_error("mariadb failed (" + sql + "): " + out);
  }
  return out;
}

std::string MariadbServer::LogTail() const {
  std::string log = ReadFile(log_path_);
  constexpr size_t kTail = 4000;
  return log.size() > kTail ? log.substr(log.size() - kTail) : log;
}

}  // namespace plaudit::testing
