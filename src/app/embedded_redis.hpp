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
// One process per data dir: Start takes an exclusive flock on <data-dir>/redis/owner.lock,
// held for this object's life, and fails while another process holds it. Without it a
// second `plauditd serve` on the same data dir took the first's live child for a stale one
// and stopped it. (One-shot commands use a running server's socket instead of starting a
// child: app/commands.cpp.)
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "common/redis_endpoint.hpp"
#include "common/result.hpp"

namespace plaudit::app {

class EmbeddedRedis {
 public:
  EmbeddedRedis(std::filesystem::path data_dir, std::string redis_server_bin);
  ~EmbeddedRedis();
  EmbeddedRedis(const EmbeddedRedis&) = delete;
  EmbeddedRedis& operator=(const EmbeddedRedis&) = delete;

  // Starts the child and waits until its socket accepts connections.
  Status Start(std::chrono::milliseconds timeout = std::chrono::seconds(15));
  // SIGTERM (Redis persists and exits), then SIGKILL after `grace`.
  void Stop(std::chrono::milliseconds grace = std::chrono::seconds(10));
  // True when the child has exited (reaps it).
  bool Exited();

  RedisEndpoint endpoint() const { return RedisEndpoint::Unix(socket_path_.string()); }
  const std::filesystem::path& socket_path() const { return socket_path_; }
  pid_t pid() const { return pid_; }

 private:
  void StopStale();
  // The data dir's owner lock (see above).
  Status TakeOwnership();

  std::filesystem::path dir_;
  std::filesystem::path socket_path_;
  std::filesystem::path pid_path_;
  std::string bin_;
  pid_t pid_ = -1;
  int owner_fd_ = -1;
};

}  // namespace plaudit::app
