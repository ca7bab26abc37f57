// RESP framing of a command: plauditd's FormatCommand (redis/client/resp.hpp) against hiredis's
// redisFormatCommandArgv, which redisAsyncCommandArgv used to run for every command. The
// argvs are a warm like's EVALSHA (like_set.lua: 2 keys, 6 arguments) and an article list's
// HMGET of 17 fields (the list now sends HGETALL; kept here as the wide case).
//   build/bench_resp --benchmark_min_time=0.5
#include <benchmark/benchmark.h>
#include <hiredis/hiredis.h>

#include <string>
#include <vector>

#include "redis/client/resp.hpp"

namespace {

std::vector<std::string> LikeArgv() {
  return {"EVALSHA",
          "2f3b6a1c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a",
          "2",
          "pl:lk:{l42}:a1042:s",
          "pl:art:{l42}:1042",
          "1796000000000",
          "big",
          "pub",
          "812",
          "1",
          "3"};
}

std::vector<std::string> HmgetArgv() {
  return {"HMGET",
          "pl:art:{l42}:1042",
          "id",
          "kind",
          "author_id",
          "author_username",
          "author_display",
          "title",
          "summary",
          "status",
          "pinned",
          "allow_comments",
          "created_at",
          "updated_at",
          "published_at",
          "views",
          "likes",
          "comments",
          "comments_ver"};
}

void Hiredis(benchmark::State& state, const std::vector<std::string>& argv) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (auto _ : state) {
    // As redisAsyncCommandArgv's caller did: pointer and length arrays, then the sds format.
    ptrs.clear();
    lens.clear();
    for (const auto& a : argv) {
      ptrs.push_back(a.data());
      lens.push_back(a.size());
    }
    sds cmd = nullptr;
    long long n =
        redisFormatSdsCommandArgv(&cmd, static_cast<int>(argv.size()), ptrs.data(), lens.data());
    benchmark::DoNotOptimize(n);
    redisFreeSdsCommand(cmd);
  }
}

void Plaudit(benchmark::State& state, const std::vector<std::string>& argv) {
  std::string out;
  for (auto _ : state) {
    plaudit::redis::FormatCommand(argv, out);
    benchmark::DoNotOptimize(out.data());
  }
}

BENCHMARK_CAPTURE(Hiredis, like_evalsha, LikeArgv());
BENCHMARK_CAPTURE(Plaudit, like_evalsha, LikeArgv());
BENCHMARK_CAPTURE(Hiredis, hmget_17, HmgetArgv());
BENCHMARK_CAPTURE(Plaudit, hmget_17, HmgetArgv());

}  // namespace

BENCHMARK_MAIN();
