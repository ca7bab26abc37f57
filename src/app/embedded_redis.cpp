#include "app/embedded_redis.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <system_error>

#include "app/private_files.hpp"
#include "common/unix_socket.hpp"

namespace plaudit::app {
namespace {

constexpr std::chrono::milliseconds kProbeTimeout{200};

using Clock = std::chrono::steady_clock;

bool IsRedisProcess(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return cmdline.find("redis-server") != std::string::npos;
}

bool Alive(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

int64_t SteadyMs(Clock::time_point t) {
  // +1: 0 means "up" in down_since_ms_.
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count() + 1;
}

pid_t WaitPid(pid_t pid, int* status, int flags) {
  pid_t r = 0;
  do {
    r = ::waitpid(pid, status, flags);
  } while (r < 0 && errno == EINTR);
  return r;
}

std::string DescribeExit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    // plauditd's only strsignal caller, one thread at a time (Start's caller before the
    // watcher exists, then the watcher).
    // NOLINTNEXTLINE(concurrency-mt-unsafe)
    return "was killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) + ")";
  }
  if (WIFEXITED(status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return "ended";
}

}  // namespace

EmbeddedRedis::EmbeddedRedis(const std::filesystem::path& data_dir, std::string redis_server_bin,
                             RespawnPolicy policy)
    : dir_((std::filesystem::absolute(data_dir) / "redis").lexically_normal()),
      bin_(std::move(redis_server_bin)),
      policy_(policy) {
  socket_path_ = dir_ / "redis.sock";
  pid_path_ = dir_ / "redis.pid";
  // The same for every start: a restart loads the AOF the dead child wrote, on its socket.
  args_ = {
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
}

EmbeddedRedis::~EmbeddedRedis() {
  Stop();
  if (owner_fd_ >= 0) {
    ::close(owner_fd_);  // releases the data dir
  }
}

Status EmbeddedRedis::TakeOwnership() {
  // flock, not a pid file: the kernel drops it when this process dies, however it dies, so a
  // crash never leaves the data dir locked. CLOEXEC keeps it out of the redis-server child,
  // which would otherwise hold it past our death.
  const std::filesystem::path path = dir_ / "owner.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Fail(ErrorCode::kUnavailable,
                "cannot open " + path.string() + ": " + std::generic_category().message(errno));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::string holder;
    std::ifstream in(path);
    std::getline(in, holder);
    ::close(fd);
    if (err != EWOULDBLOCK) {
      return Fail(ErrorCode::kUnavailable,
                  "cannot lock " + path.string() + ": " + std::generic_category().message(err));
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
  if (watcher_.joinable()) {
    return Fail(ErrorCode::kInternal, "embedded redis started twice");
  }
  // The data dir holds password hashes and the AOF every session: 0700 (item 13).
  if (auto st = EnsurePrivateDir(dir_.parent_path()); !st) {
    return st;
  }
  if (auto st = EnsurePrivateDir(dir_); !st) {
    return st;
  }
  if (socket_path_.string().size() >= sizeof(sockaddr_un::sun_path)) {
    return Fail(ErrorCode::kInvalidArgument,
                "data dir path too long for a Unix socket: " + socket_path_.string());
  }
  // A second process on this data dir would find our redis-server "stale" and stop it.
  if (owner_fd_ < 0) {
    if (auto st = TakeOwnership(); !st) {
      return st;
    }
  }
  // Whatever child is left now is stale: its owner, which held the lock, is gone.
  StopStale();
  // The AOF, log and pidfile an older version left 0644 (the child's umask keeps new ones
  // 0600).
  TightenTree(dir_);
  std::error_code ec;
  std::filesystem::remove(socket_path_, ec);
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      return Fail(ErrorCode::kUnavailable, "embedded redis stopped");
    }
    if (auto st = Spawn(); !st) {
      return st;
    }
  }
  if (auto st = AwaitServing(timeout); !st) {
    return st;
  }
  spdlog::info("embedded redis-server (pid {}) on {}", pid_.load(), socket_path_.string());
  watcher_ = std::thread([this] {
    Watch();
    std::lock_guard lock(mu_);
    watcher_done_ = true;
    cv_.notify_all();
  });
  return {};
}

Status EmbeddedRedis::Spawn() {
  std::vector<std::string> args = args_;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    return Fail(ErrorCode::kUnavailable, "fork failed: " + std::generic_category().message(errno));
  }
  if (pid == 0) {
    // Only async-signal-safe calls until exec: the parent has other threads. The death
    // signal follows the forking thread (Linux): the caller's, or the watcher's, and both
    // live as long as this object.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) {
      ::_exit(1);  // the parent died between fork and prctl
    }
    ::setpgid(0, 0);
    ::umask(077);  // the AOF, its dir, the log and pidfile: for this user only (item 13)
    ::signal(SIGPIPE, SIG_DFL);  // the Redis client's SIG_IGN would be inherited by a restart
    sigset_t none;
    sigemptyset(&none);
    // NOLINTNEXTLINE(concurrency-mt-unsafe): the forked child has one thread until it execs
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  return {};
}

Status EmbeddedRedis::AwaitServing(std::chrono::milliseconds timeout) {
  const pid_t pid = pid_.load();
  auto deadline = Clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = WaitPid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) {
      pid_ = -1;
      return Fail(ErrorCode::kUnavailable,
                  "redis-server " + (r == pid ? DescribeExit(status) : std::string("ended")) +
                      " at start-up; see " + (dir_ / "redis.log").string() +
                      " (is redis-server installed? run scripts/install-deps.sh)");
    }
    // Serving, not only accepting: Redis listens before it loads its AOF, and answers LOADING
    // meanwhile; a manifest it cannot read makes it exit after that (seen: a restart taken
    // for good 5 ms before its child exited, over and over, and /healthz never failed).
    const std::string answer = UnixSocketAsk(socket_path_, "PING\r\n", kProbeTimeout);
    if (answer.starts_with("+PONG")) {
      return {};
    }
    // Loading a large AOF can take longer than the timeout: that is progress, not a hang.
    if (answer.starts_with("-LOADING")) {
      deadline = Clock::now() + timeout;
    }
    if (Clock::now() >= deadline || stopping()) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Hung, or a stop came while it loads: it has taken no write yet, so SIGKILL loses nothing.
  ::kill(pid, SIGKILL);
  WaitPid(pid, nullptr, 0);
  pid_ = -1;
  return Fail(ErrorCode::kUnavailable, stopping()
                                           ? "stopped while redis-server was starting"
                                           : "redis-server did not start within the timeout");
}

void EmbeddedRedis::Watch() {
  auto backoff = policy_.backoff_min;
  auto started = Clock::now();
  for (;;) {
    const pid_t child = pid_.load();
    if (child <= 0) {
      return;  // waitpid(-1) would reap any child of this process
    }
    int status = 0;
    const pid_t r = WaitPid(child, &status, 0);  // reaps it: no zombie
    const auto died = Clock::now();
    {
      std::lock_guard lock(mu_);
      pid_ = -1;
      if (stopping_) {
        return;
      }
    }
    down_since_ms_ = SteadyMs(died);
    spdlog::error("embedded redis-server (pid {}) {}; restarting it from its AOF", child,
                  r == child ? DescribeExit(status) : std::string("is gone"));
    if (died - started >= policy_.stable_after) {
      backoff = policy_.backoff_min;
    }
    for (int attempt = 1;; ++attempt) {
      if (SleepUnlessStopping(backoff)) {
        return;
      }
      const auto waited = backoff;
      backoff = std::min(backoff * 2, policy_.backoff_max);
      Status st;
      {
        std::lock_guard lock(mu_);
        if (stopping_) {
          return;
        }
        std::error_code ec;
        std::filesystem::remove(socket_path_, ec);
        st = Spawn();
      }
      if (st) {
        st = AwaitServing(policy_.start_timeout);
      }
      if (st) {
        started = Clock::now();
        const auto down_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(started - died).count();
        ++restarts_;
        restart_failed_ = false;
        down_since_ms_ = 0;
        spdlog::warn(
            "embedded redis-server restarted (pid {}, restart {}) {} ms after it died, "
            "attempt {} (waited {} ms)",
            pid_.load(), restarts_.load(), down_ms, attempt, waited.count());
        break;
      }
      if (stopping()) {
        return;
      }
      restart_failed_ = true;
      spdlog::error(
          "embedded redis-server could not be restarted (attempt {}): {}; next "
          "attempt in {} ms",
          attempt, st.error().message, backoff.count());
    }
  }
}

bool EmbeddedRedis::SleepUnlessStopping(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, d, [this] { return stopping_; });
}

bool EmbeddedRedis::stopping() const {
  std::lock_guard lock(mu_);
  return stopping_;
}

Status EmbeddedRedis::Health() const {
  const int64_t since = down_since_ms_.load();
  if (since == 0) {
    return {};
  }
  if (restart_failed_.load()) {
    return Fail(ErrorCode::kUnavailable,
                "the embedded Redis is down and could not be restarted (see the log)");
  }
  const int64_t down_ms = SteadyMs(Clock::now()) - since;
  if (down_ms >= policy_.unhealthy_after.count()) {
    return Fail(ErrorCode::kUnavailable,
                "the embedded Redis has been down for " + std::to_string(down_ms / 1000) + " s");
  }
  return {};
}

void EmbeddedRedis::BeginShutdown() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
}

void EmbeddedRedis::Stop(std::chrono::milliseconds grace) {
  pid_t pid = -1;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    pid = pid_.load();
    if (pid > 0) {
      ::kill(pid, SIGTERM);  // Redis persists its AOF and exits
    }
  }
  cv_.notify_all();
  if (!watcher_.joinable()) {
    return;  // never supervised: Start reaped what it started
  }
  bool done = false;
  {
    std::unique_lock lock(mu_);
    done = cv_.wait_for(lock, grace, [this] { return watcher_done_; });
    if (!done && pid_.load() > 0) {
      spdlog::warn("embedded redis-server did not stop in time; killing it");
      ::kill(pid_.load(), SIGKILL);
    }
  }
  watcher_.join();  // it reaps the child
  if (pid > 0) {
    spdlog::info("embedded redis-server stopped");
  }
}

}  // namespace plaudit::app
