#include "app/embedded_redis.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "common/unix_socket.hpp"

namespace plaudit::app {
namespace {

bool IsRedisProcess(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cmdline.find("redis-server") != std::string::npos;
}

bool Alive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

}  // namespace

EmbeddedRedis::EmbeddedRedis(std::filesystem::path data_dir, std::string redis_server_bin)
    : dir_((std::filesystem::absolute(data_dir) / "redis").lexically_normal()),
      bin_(std::move(redis_server_bin)) {
  socket_path_ = dir_ / "redis.sock";
  pid_path_ = dir_ / "redis.pid";
}

EmbeddedRedis::~EmbeddedRedis() {
  Stop();
  if (owner_fd_ >= 0) ::close(owner_fd_);  // releases the data dir
}

Status EmbeddedRedis::TakeOwnership() {
  // flock, not a pid file: the kernel drops it when this process dies, however it dies, so a
  // crash never leaves the data dir locked. CLOEXEC keeps it out of the redis-server child,
  // which would otherwise hold it past our death.
  const std::filesystem::path path = dir_ / "owner.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Fail(ErrorCode::kUnavailable,
                "cannot open " + path.string() + ": " + std::strerror(errno));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder;
    std::ifstream in(path);
    std::getline(in, holder);
    ::close(fd);
    if (err != EWOULDBLOCK) {
      return Fail(ErrorCode::kUnavailable,
                  "cannot lock " + path.string() + ": " + std::strerror(err));
    }
    return Fail(ErrorCode::kUnavailable,
                "another plauditd" + (holder.empty() ? std::string() : " (pid " + holder + ")") +
                    " runs the embedded Redis of " + dir_.parent_path().string() +
                    "; one data dir serves one process (several instances need --redis and a "
                    "shared database: docs/operations.md)");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    spdlog::debug("cannot write the owner's pid into {}", path.string());
  }
  owner_fd_ = fd;
  return {};
}

void EmbeddedRedis::StopStale() {
  std::ifstream in(pid_path_);
  pid_t old = -1;
  if (!(in >> old) || old <= 0 || old == ::getpid()) {
    return;
  }
  if (!Alive(old) || !IsRedisProcess(old)) {
    return;
  }
  spdlog::warn("a redis-server (pid {}) from an earlier run still holds {}; stopping it", old,
               dir_.string());
  ::kill(old, SIGTERM);
  for (int i = 0; i < 1000 && Alive(old); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (Alive(old)) {
    ::kill(old, SIGKILL);
    for (int i = 0; i < 200 && Alive(old); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
}

Status EmbeddedRedis::Start(std::chrono::milliseconds timeout) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) {
    return Fail(ErrorCode::kUnavailable, "cannot create " + dir_.string() + ": " + ec.message());
  }
  if (socket_path_.string().size() >= sizeof(sockaddr_un::sun_path)) {
    return Fail(ErrorCode::kInvalidArgument,
                "data dir path too long for a Unix socket: " + socket_path_.string());
  }
  // A second process on this data dir would find our redis-server "stale" and stop it.
  if (owner_fd_ < 0) {
    if (auto st = TakeOwnership(); !st) return st;
  }
  // Whatever child is left now is stale: its owner, which held the lock, is gone.
  StopStale();
  std::filesystem::remove(socket_path_, ec);

  std::vector<std::string> args = {
      bin_,
      "--port",
      "0",
      "--unixsocket",
      socket_path_.string(),
      "--unixsocketperm",
      "700",
      "--dir",
      dir_.string(),
      "--pidfile",
      pid_path_.string(),
      "--logfile",
      (dir_ / "redis.log").string(),
      "--daemonize",
      "no",
      "--save",
      "",
      "--appendonly",
      "yes",
      "--appendfsync",
      "everysec",
      "--auto-aof-rewrite-percentage",
      "100",
      "--auto-aof-rewrite-min-size",
      "64mb",
      // Pending like changes are small hashes (see docs/architecture.md); keep them compact.
      "--hash-max-listpack-entries",
      "512",
      // No per-command latency histograms (INFO latencystats): nobody reads them from the
      // embedded child, and recording them was ~1.3% of its CPU under likes (perf).
      "--latency-tracking",
      "no",
  };
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    return Fail(ErrorCode::kUnavailable, "fork failed");
  }
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) {
      ::_exit(1);  // the parent died between fork and prctl
    }
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Exited()) {
      return Fail(ErrorCode::kUnavailable,
                  "redis-server exited at start-up; see " + (dir_ / "redis.log").string() +
                      " (is redis-server installed? run scripts/install-deps.sh)");
    }
    if (UnixSocketAccepts(socket_path_)) {
      spdlog::info("embedded redis-server (pid {}) on {}", pid_, socket_path_.string());
      return {};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Stop();
  return Fail(ErrorCode::kUnavailable, "redis-server did not start within the timeout");
}

bool EmbeddedRedis::Exited() {
  if (pid_ <= 0) return true;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) {
    pid_ = -1;
    return true;
  }
  return false;
}

void EmbeddedRedis::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Exited()) {
      spdlog::info("embedded redis-server stopped");
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  spdlog::warn("embedded redis-server did not stop in time; killing it");
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

}  // namespace plaudit::app
