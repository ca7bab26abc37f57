// FreshFlight: a caller is answered by a load that started after it called, never by one
// already under way; callers that arrive during a load share one next load.
#include "common/fresh_flight.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace plaudit::domain {
namespace {

using namespace std::chrono_literals;

// A store whose value moves while a load is under way: a load returns what it saw when it
// started (like a Redis read sent then), after `delay`.
struct Store {
  int value = 0;
  int started = 0;
};

Awaitable<Result<int>> SlowRead(Store* s, std::chrono::milliseconds delay) {
  const int seen = s->value;  // the moment the read is "sent"
  ++s->started;
  net::steady_timer t(co_await net::this_coro::executor, delay);
  co_await t.async_wait(net::use_awaitable);
  co_return seen;
}

Awaitable<void> After(std::chrono::milliseconds delay) {
  net::steady_timer t(co_await net::this_coro::executor, delay);
  co_await t.async_wait(net::use_awaitable);
}

// Calls Do at `at`, after setting the store's value to `write` (the write the caller saw
// acknowledged before it called), and records what it got.
Awaitable<void> Reader(FreshFlight<int, int>* flight, Store* s, std::chrono::milliseconds at,
                       int write, int* got) {
  co_await After(at);
  s->value = write;
  std::function<Awaitable<Result<int>>()> load = [s]() { return SlowRead(s, 20ms); };
  Result<int> r = co_await flight->Do(1, std::move(load));
  *got = r ? *r : -1;
}

TEST(FreshFlight, ACallerNeverGetsALoadThatStartedBeforeIt) {
  net::io_context io;
  FreshFlight<int, int> flight;
  Store store;
  // Reader 0 starts a load at 0 ms seeing 10; readers 1..3 arrive during it, each after a
  // newer write: they must see 13 (the last write before the next load started), not 10.
  std::vector<int> got(5, 0);
  net::co_spawn(io, Reader(&flight, &store, 0ms, 10, &got[0]), net::detached);
  net::co_spawn(io, Reader(&flight, &store, 5ms, 11, &got[1]), net::detached);
  net::co_spawn(io, Reader(&flight, &store, 8ms, 12, &got[2]), net::detached);
  net::co_spawn(io, Reader(&flight, &store, 12ms, 13, &got[3]), net::detached);
  // Arrives during the second load: a third one, seeing 14.
  net::co_spawn(io, Reader(&flight, &store, 30ms, 14, &got[4]), net::detached);
  io.run();
  EXPECT_EQ(got, (std::vector<int>{10, 13, 13, 13, 14}));
  EXPECT_EQ(store.started, 3);
  EXPECT_EQ(flight.loads(), 3);
  EXPECT_EQ(flight.waiters(), 4);
}

TEST(FreshFlight, KeysDoNotWaitForEachOther) {
  net::io_context io;
  FreshFlight<int, int> flight;
  Store a, b;
  int got_a = 0, got_b = 0;
  auto read = [&](int key, Store* s, int* got) -> Awaitable<void> {
    std::function<Awaitable<Result<int>>()> load = [s]() { return SlowRead(s, 20ms); };
    Result<int> r = co_await flight.Do(key, std::move(load));
    *got = r ? *r : -1;
  };
  a.value = 1;
  b.value = 2;
  net::co_spawn(io, read(1, &a, &got_a), net::detached);
  net::co_spawn(io, read(2, &b, &got_b), net::detached);
  io.run();
  EXPECT_EQ(got_a, 1);
  EXPECT_EQ(got_b, 2);
  EXPECT_EQ(flight.loads(), 2);
  EXPECT_EQ(flight.waiters(), 0);
}

TEST(FreshFlight, AFailedOrThrowingLoadFailsItsCallersAndTheNextLoadStillRuns) {
  net::io_context io;
  FreshFlight<int, int> flight;
  int calls = 0;
  std::vector<std::string> got;
  auto read = [&](std::chrono::milliseconds at) -> Awaitable<void> {
    co_await After(at);
    std::function<Awaitable<Result<int>>()> load = [&calls]() -> Awaitable<Result<int>> {
      const int n = ++calls;
      co_await After(10ms);
      if (n == 1) {
        throw std::runtime_error("boom");
      }
      if (n == 2) {
        co_return Fail(ErrorCode::kUnavailable, "down");
      }
      co_return 7;
    };
    Result<int> r = co_await flight.Do(1, std::move(load));
    got.push_back(r ? std::to_string(*r) : r.error().message);
  };
  net::co_spawn(io, read(0ms), net::detached);   // load 1: throws
  net::co_spawn(io, read(5ms), net::detached);   // load 2: fails
  net::co_spawn(io, read(15ms), net::detached);  // load 3: 7
  io.run();
  EXPECT_EQ(got, (std::vector<std::string>{"boom", "down", "7"}));
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace plaudit::domain
