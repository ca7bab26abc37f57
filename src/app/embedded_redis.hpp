#pragma once
// The embedded mode's own redis-server child: Unix socket under <data-dir>/redis/, AOF with
// appendfsync everysec and automatic rewrite, no TCP port.
//
// Crash safety: the child gets PR_SET_PDEATHSIG(SIGTERM), so when plauditd dies, even by
// SIGKILL, the kernel asks Redis to shut down, which fsyncs its AOF and removes the socket.
// It runs in its own process group so a terminal's Ctrl-C reaches plauditd only: plauditd
// then drains, runs its final flush, and only then stops Redis. Should an old child still
// hold the data dir at start-up (pidfile names a live redis-server), it is stopped cleanly
// (SIGTERM, which persists its data) and replaced, so there is never a stale server.
//
// Supervision (issue 41, item 7): a watcher thread waits on the child. When it dies (OOM
// killer, kill -9, a crash) the watcher reaps it at once (no zombie) and starts it again
// from its AOF on the same socket, after 100 ms, doubling to at most 5 s while starts fail
// or the new child dies within 30 s of its start. The Redis client reconnects by itself
// (redis/client/client.hpp); requests meanwhile answer 503. Health() fails once a restart has
// failed, or the child has been down for 10 s, so /healthz tells a supervisor to act.
// Nothing is restarted once the owner began to stop (BeginShutdown or Stop).
//
// Files: the child runs under umask 077, so its AOF, log and pidfile are 0600 and its dirs
// 0700 whatever plauditd's umask; files an older version left looser are tightened at start
// (issue 41, item 13; app/private_files.hpp).
//
// One process per data dir: Start takes an exclusive flock on <data-dir>/redis/owner.lock,
// held for this object's life, and fails while another process holds it. Without it a
// second `plauditd serve` on the same data dir took the first's live child for a stale one
// and stopped it. (One-shot commands use a running server's socket instead of starting a
// child: app/commands.cpp.)
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/redis_endpoint.hpp"
#include "common/result.hpp"

namespace plaudit::app {

struct RespawnPolicy {
  std::chrono::milliseconds backoff_min{100};
  std::chrono::milliseconds backoff_max{5000};
  // A child that ran this long before it died restarts after backoff_min again.
  std::chrono::milliseconds stable_after{30000};
  // Health() fails when the child has been down this long, even while restarts go on.
  std::chrono::milliseconds unhealthy_after{10000};
  // How long one restart may take to accept connections.
  std::chrono::milliseconds start_timeout{15000};
};

class EmbeddedRedis {
 public:
  EmbeddedRedis(const std::filesystem::path& data_dir, std::string redis_server_bin,
                RespawnPolicy policy = {});
  ~EmbeddedRedis();
  EmbeddedRedis(const EmbeddedRedis&) = delete;
  EmbeddedRedis& operator=(const EmbeddedRedis&) = delete;

  // Starts the child, waits until it answers PING (its data loaded), then supervises it.
  Status Start(std::chrono::milliseconds timeout = std::chrono::seconds(15));
  // From now on a child that dies stays dead (plauditd is draining to stop).
  void BeginShutdown();
  // SIGTERM (Redis persists and exits), then SIGKILL after `grace`; no restart after this.
  void Stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  // OK while the child runs or is being restarted; kUnavailable once a restart failed or it
  // has been down for RespawnPolicy::unhealthy_after. Any thread.
  Status Health() const;

  RedisEndpoint endpoint() const { return RedisEndpoint::Unix(socket_path_.string()); }
  const std::filesystem::path& socket_path() const { return socket_path_; }
  pid_t pid() const { return pid_.load(); }
  int restarts() const { return restarts_.load(); }

 private:
  void StopStale();
  // The data dir's owner lock (see above).
  Status TakeOwnership();
  // Forks and execs the child (pid_); under mu_, and not once stopping_.
  Status Spawn();
  // Waits until the child answers PING (its data loaded); reaps it and fails if it exits first
  // or nothing answers within `timeout` (a child still loading is given more).
  Status AwaitServing(std::chrono::milliseconds timeout);
  // The watcher thread: reaps the child when it dies and starts it again.
  void Watch();
  // Sleeps `d` unless a stop comes first (then true).
  bool SleepUnlessStopping(std::chrono::milliseconds d);
  bool stopping() const;

  std::filesystem::path dir_;
  std::filesystem::path socket_path_;
  std::filesystem::path pid_path_;
  std::string bin_;
  RespawnPolicy policy_;
  std::vector<std::string> args_;
  int owner_fd_ = -1;

  std::atomic<pid_t> pid_{-1};
  std::atomic<int> restarts_{0};
  // Steady-clock ms since the child died (0: it runs), and whether a restart failed since.
  std::atomic<int64_t> down_since_ms_{0};
  std::atomic<bool> restart_failed_{false};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;      // under mu_
  bool watcher_done_ = false;  // under mu_: the watcher thread has returned
  std::thread watcher_;
};

}  // namespace plaudit::app
