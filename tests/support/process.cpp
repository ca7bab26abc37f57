#include "support/process.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace plaudit::testing {

Process::Process(std::vector<std::string> argv, std::string log_path) {
  std::vector<char*> cargv;
  for (auto& a : argv) {
    cargv.push_back(a.data());
  }
  cargv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) {
    throw std::runtime_error("fork failed");
  }
  if (pid_ == 0) {
    // A test binary that crashes must not leave servers behind.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::setpgid(0, 0);
    if (!log_path.empty()) {
      int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
        ::close(fd);
      }
    }
    ::execvp(cargv[0], cargv.data());
    ::_exit(127);
  }
}

Process::~Process() {
  if (pid_ > 0 && !status_) {
    Stop(std::chrono::seconds(5));
  }
}

bool Process::Running() { return !Wait(std::chrono::milliseconds(0)).has_value(); }

void Process::Signal(int sig) {
  if (pid_ > 0 && !status_) {
    ::kill(pid_, sig);
  }
}

std::optional<int> Process::Wait(std::chrono::milliseconds timeout) {
  if (status_) {
    return status_;
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      return status_;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int Process::Stop(std::chrono::milliseconds grace) {
  Signal(SIGTERM);
  if (auto st = Wait(grace)) {
    return *st;
  }
  Signal(SIGKILL);
  return Wait(std::chrono::seconds(10)).value_or(-1);
}

namespace {

bool TcpPortFree(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return free;
}

// A port in [lo, hi] that is free, and whose port + `also` is too when `also` > 0.
int PickFreePort(int lo, int hi, int also) {
  static std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> pick(lo, hi);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int port = pick(rng);
    if (TcpPortFree(port) && (also == 0 || TcpPortFree(port + also))) {
      return port;
    }
  }
  throw std::runtime_error("no free TCP port in " + std::to_string(lo) + "-" + std::to_string(hi));
}

}  // namespace

int FreeTcpPort() {
  // Below the kernel's ephemeral range (32768+ by default), which is where every server bound
  // to port 0 (the in-process apps of parallel test binaries) lands: a port picked here cannot
  // be taken by one of those between this check and the caller's bind.
  return PickFreePort(20000, 32000, 0);
}

int FreeClusterTcpPort() {
  // A cluster-mode redis-server also listens on port + 10000 (its cluster bus) and exits at
  // start-up when it cannot: both must be free, and both below the ephemeral range.
  return PickFreePort(20000, 22000, 10000);
}

std::string FindExecutable(const std::string& name, const std::vector<std::string>& extra_dirs) {
  namespace fs = std::filesystem;
  if (name.find('/') != std::string::npos) {
    return fs::exists(name) ? name : std::string{};
  }
  std::vector<std::string> dirs = extra_dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
      size_t end = p.find(':', start);
      if (end == std::string::npos) {
        end = p.size();
      }
      dirs.push_back(p.substr(start, end - start));
      start = end + 1;
    }
  }
  for (const auto& d : dirs) {
    fs::path candidate = fs::path(d) / name;
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
  }
  return {};
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (!line.empty()) {
      out.push_back(line);
    }
  }
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Alive(pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; }

}  // namespace plaudit::testing
