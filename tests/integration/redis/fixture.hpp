#pragma once
// Shared set-up for the redis_tests suite: one private redis-server for the whole binary, and
// a per-test io_context that the test drives until the awaited work is done.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/net.hpp"
#include "redis/client/client.hpp"
#include "support/redis_server.hpp"

namespace plaudit::redis::test {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Started on first use, stopped (and its temp dir removed) at exit.
inline plaudit::testing::RedisServer& Server() {
  static plaudit::testing::RedisServer server;
  return server;
}

// Freezes the redis-server (SIGSTOP) for the scope: a hung Redis that keeps its socket open.
class Frozen {
 public:
  explicit Frozen(pid_t pid) : pid_(pid) { ::kill(pid_, SIGSTOP); }
  ~Frozen() { Thaw(); }
  Frozen(const Frozen&) = delete;
  Frozen& operator=(const Frozen&) = delete;
  void Thaw() {
    if (pid_ > 0) {
      ::kill(pid_, SIGCONT);
      pid_ = -1;
    }
  }

 private:
  pid_t pid_;
};

class RedisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Server().Start();  // a previous test may have stopped it
    Server().Cli("FLUSHALL");
  }

  void TearDown() override {
    for (auto& c : clients_) {
      c->Stop();
    }
    Drain();
    clients_.clear();
    Drain();
  }

  // Creates a started client on ctx_ and waits until it is connected.
  std::shared_ptr<Client> Connect(const std::string& url, ClientOptions options = {}) {
    options.endpoint = ParseRedisUrl(url).value();
    auto client = Client::Create(ctx_.get_executor(), options);
    client->Start();
    EXPECT_TRUE(Run(client->WaitConnected(10s))) << "no connection to " << url;
    clients_.push_back(client);
    return client;
  }

  // Runs the io_context until `aw` has finished and returns its result. The context never
  // runs out of work while a client is connected, so it is driven in slices.
  template <class T>
  T Run(Awaitable<T> aw, std::chrono::milliseconds limit = 30s) {
    auto future = net::co_spawn(ctx_, std::move(aw), net::use_future);
    auto deadline = Clock::now() + limit;
    while (future.wait_for(0s) != std::future_status::ready) {
      if (Clock::now() > deadline) {
        throw std::runtime_error("awaitable did not finish in time");
      }
      Slice();
    }
    return future.get();
  }

  // Runs the io_context for about `d`.
  void RunFor(std::chrono::milliseconds d) {
    auto deadline = Clock::now() + d;
    while (Clock::now() < deadline) {
      Slice();
    }
  }

  // Runs whatever is ready (posted completions) without waiting for I/O.
  void Drain() {
    ctx_.restart();
    ctx_.poll();
  }

  Result<Reply> Do(Client& client, std::vector<std::string> argv) {
    return Run(client.Command(std::move(argv)));
  }

  net::io_context ctx_;
  std::vector<std::shared_ptr<Client>> clients_;

 private:
  void Slice() {
    if (ctx_.stopped()) {
      ctx_.restart();
    }
    ctx_.run_for(5ms);
  }
};

// Spawns one coroutine per command and collects every result, in spawn order, into `out`.
inline void SpawnCommands(net::io_context& ctx, Client& client,
                          std::vector<std::vector<std::string>> commands,
                          std::vector<std::optional<Result<Reply>>>& out) {
  out.assign(commands.size(), std::nullopt);
  for (size_t i = 0; i < commands.size(); ++i) {
    net::co_spawn(
        ctx,
        [&client, &out, i, argv = std::move(commands[i])]() -> Awaitable<void> {
          out[i] = co_await client.Command(argv);
        },
        net::detached);
  }
}

inline size_t CountDone(const std::vector<std::optional<Result<Reply>>>& results) {
  size_t n = 0;
  for (const auto& r : results) {
    n += r.has_value() ? 1 : 0;
  }
  return n;
}

}  // namespace plaudit::redis::test
