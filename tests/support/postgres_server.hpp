#pragma once
// A private PostgreSQL server for one test binary: initdb in a temp dir, Unix socket only
// (no TCP listener; the port only names the socket), fsync off. Start-up takes about two
// seconds, so a binary shares one server (Shared()) and gives each test its own database
// (CreateDatabase()). Tests may Stop() and Start() a server of their own to simulate an
// outage; it comes back on the same socket with the same data.
//
// When run as root (CI containers), initdb and postgres run as the `postgres` user through
// runuser, because both refuse to run as root.
#include <memory>
#include <string>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::testing {

class PostgresServer {
 public:
  // Runs initdb and Start(). Throws when PostgreSQL is not installed or does not start.
  PostgresServer();
  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  // The server shared by every test in this binary, started on first use.
  static PostgresServer& Shared();

  void Start();  // (re)starts on the same socket dir and port; waits until it accepts
  void Stop();   // fast shutdown (SIGINT): open sessions are terminated, like a crash-free outage
  bool running() const { return proc_ != nullptr; }

  const std::string& socket_dir() const { return socket_dir_; }
  int port() const { return port_; }
  // A URL for Store::Open / libpq, connecting as the `postgres` superuser.
  std::string url(const std::string& database = "postgres") const;

  // Creates a fresh empty database with a unique name and returns the name.
  std::string CreateDatabase();
  // Runs one SQL command with psql against `database` and returns its unaligned output
  // (trailing newline removed). Throws when psql fails.
  std::string Psql(const std::string& database, const std::string& sql) const;

 private:
  std::vector<std::string> AsServerUser(std::vector<std::string> argv) const;
  std::string LogTail() const;

  TempDir dir_{"plaudit-pg"};
  std::string bin_dir_;
  std::string data_dir_;
  std::string socket_dir_;
  std::string log_path_;
  int port_ = 0;
  bool as_root_ = false;
  std::unique_ptr<Process> proc_;
};

}  // namespace plaudit::testing
