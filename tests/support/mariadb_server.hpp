#pragma once
// A private MariaDB server for one test binary: mariadb-install-db into a temp dir, a Unix
// socket and a TCP port on 127.0.0.1, no binary log, InnoDB's log flushed lazily (tests
// need no durability against power loss). Start-up takes about three seconds, so a binary
// shares one server (Shared()) and gives each test its own database (CreateDatabase()).
// Tests may Stop() and Start() it to simulate an outage; it comes back on the same socket
// and port with the same data.
//
// Clients connect as `plaudit`, a user with a password and the grants docs/mysql.md asks
// for (everything on the plaudit_* databases, nothing else). When run as root (CI), the
// server drops to the `mysql` user itself (--user=mysql).
#include <memory>
#include <string>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace plaudit::testing {

class MariadbServer {
 public:
  // Installs the data directory and Start()s. Throws when MariaDB is not installed or does
  // not start.
  MariadbServer();
  ~MariadbServer();
  MariadbServer(const MariadbServer&) = delete;
  MariadbServer& operator=(const MariadbServer&) = delete;

  // The server shared by every test in this binary, started on first use.
  static MariadbServer& Shared();

  void Start();  // (re)starts on the same socket and port; waits until it accepts
  void Stop();   // shutdown (SIGTERM): open sessions are closed
  bool running() const { return proc_ != nullptr; }

  const std::string& socket() const { return socket_; }
  int port() const { return port_; }
  // A mariadb:// URL for Store::Open as `plaudit`, over TCP (tcp = true) or the socket.
  std::string url(const std::string& database, bool tcp = false) const;

  // Creates a fresh empty database (server defaults: no character set chosen) with a unique
  // name and returns the name.
  std::string CreateDatabase();
  // Runs SQL with the mariadb client as root against `database` ("" for none) and returns its
  // tab-separated output without headers, values unescaped, NULL as "NULL" (trailing newline
  // removed). Throws when it fails.
  std::string Sql(const std::string& database, const std::string& sql) const;

 private:
  std::string LogTail() const;

  TempDir dir_{"plaudit-mariadb"};
  std::string data_dir_;
  std::string socket_;
  std::string tmp_dir_;  // the server's --tmpdir
  std::string log_path_;
  std::string pid_path_;
  int port_ = 0;
  bool as_root_ = false;
  std::unique_ptr<Process> proc_;
};

}  // namespace plaudit::testing
