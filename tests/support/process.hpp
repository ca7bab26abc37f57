#pragma once
// A child process started with fork/exec for tests (redis-server, postgres, plauditd).
// The destructor kills it (SIGTERM, then SIGKILL after a grace period) and reaps it.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/unix_socket.hpp"

namespace plaudit::testing {

class Process {
 public:
  // Starts argv[0] (looked up in PATH) with the given arguments. stdout/stderr go to
  // log_path when set, else are inherited. Throws on failure to fork/exec.
  Process(std::vector<std::string> argv, std::string log_path = {});
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  bool Running();
  void Signal(int sig);
  // Waits for exit up to `timeout`; returns the exit status (WEXITSTATUS or 128+signal),
  // or nullopt when still running.
  std::optional<int> Wait(std::chrono::milliseconds timeout);
  // SIGTERM, wait up to `grace`, then SIGKILL. Returns the exit status.
  int Stop(std::chrono::milliseconds grace = std::chrono::seconds(5));

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
};

// Polls `pred` every 10 ms until it returns true or `timeout` passes.
template <class Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds timeout);

using plaudit::UnixSocketAccepts;

// `s` as one single-quoted sh word.
std::string ShellQuote(const std::string& s);
// The non-empty lines of a command's output (redis-cli's), without their '\r'.
std::vector<std::string> Lines(const std::string& text);
// Returns a TCP port on 127.0.0.1 that was free a moment ago.
int FreeTcpPort();
// The same for a cluster-mode redis-server: the port and port + 10000 (its cluster bus).
int FreeClusterTcpPort();
// The whole of a file ("" when it cannot be read).
std::string ReadFile(const std::string& path);
// Whether `pid` is a live process or an unreaped zombie (kill(pid, 0) succeeds on both): false
// means it was reaped.
bool Alive(pid_t pid);
// Whether an executable is found in PATH or at the absolute path.
std::string FindExecutable(const std::string& name,
                           const std::vector<std::string>& extra_dirs = {});

}  // namespace plaudit::testing

#include <thread>
namespace plaudit::testing {
template <class Pred>
bool WaitFor(Pred pred, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return pred();
}
}  // namespace plaudit::testing
