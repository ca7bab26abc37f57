// WhenAll: results in the order of the operations, whatever order they finish in, and an
// exception thrown by one is rethrown to the caller once every operation has finished
// (a result slot left empty must never be read).
#include "common/when_all.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace plaudit {
namespace {

using namespace std::chrono_literals;

Awaitable<int> After(std::chrono::milliseconds delay, int value, int* finished) {
  net::steady_timer t(co_await net::this_coro::executor, delay);
  co_await t.async_wait(net::use_awaitable);
  ++*finished;
  if (value < 0) {
    throw std::runtime_error("op failed");
  }
  co_return value;
}

template <class T>
T RunOn(net::io_context& io, Awaitable<T> op) {
  auto f = net::co_spawn(io, std::move(op), net::use_future);
  io.run();
  return f.get();
}

TEST(WhenAll, ResultsFollowTheOperationsOrderNotTheirFinishingOrder) {
  net::io_context io;
  int finished = 0;
  std::vector<Awaitable<int>> ops;
  ops.push_back(After(30ms, 1, &finished));
  ops.push_back(After(1ms, 2, &finished));
  ops.push_back(After(10ms, 3, &finished));
  EXPECT_EQ(RunOn(io, WhenAll(std::move(ops))), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(finished, 3);
}

TEST(WhenAll, NoOperationsIsAnEmptyResult) {
  net::io_context io;
  EXPECT_TRUE(RunOn(io, WhenAll(std::vector<Awaitable<int>>{})).empty());
}

TEST(WhenAll, AThrowingOperationIsRethrownAfterTheOthersFinish) {
  net::io_context io;
  int finished = 0;
  std::vector<Awaitable<int>> ops;
  ops.push_back(After(1ms, -1, &finished));  // throws first
  ops.push_back(After(20ms, 2, &finished));
  EXPECT_THROW(RunOn(io, WhenAll(std::move(ops))), std::runtime_error);
  EXPECT_EQ(finished, 2);
}

}  // namespace
}  // namespace plaudit
