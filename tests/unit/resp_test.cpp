// plauditd frames its Redis commands itself (redis/client/resp.hpp); the bytes must be exactly what
// hiredis's own formatter produces, for ordinary, empty, binary and large arguments.
#include "redis/client/resp.hpp"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

namespace plaudit::redis {
namespace {

std::string HiredisFormat(const std::vector<std::string>& argv) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (const auto& a : argv) {
    ptrs.push_back(a.data());
    lens.push_back(a.size());
  }
  char* cmd = nullptr;
  int n = redisFormatCommandArgv(&cmd, static_cast<int>(argv.size()), ptrs.data(), lens.data());
  EXPECT_GT(n, 0);
  std::string out(cmd, static_cast<size_t>(n));
  redisFreeCommand(cmd);
  return out;
}

TEST(Resp, FramesCommandsExactlyAsHiredisDoes) {
  std::string out = "left over from the last command";
  FormatCommand({"PING"}, out);
  EXPECT_EQ(out, "*1\r\n$4\r\nPING\r\n");
  const std::vector<std::vector<std::string>> cases = {
      {"SET", "k", "v"},
      {"SET", "", ""},
      {"HSET", "pl:lp:{l7}:a7:s", "42", "1:1795987800123456"},
      {"SET", "bin", std::string("a\0b\r\n\xff", 6)},
      {"SET", "big", std::string(100000, 'x')},
      std::vector<std::string>(300, "arg"),
  };
  for (const auto& argv : cases) {
    FormatCommand(argv, out);
    EXPECT_EQ(out, HiredisFormat(argv)) << argv.size() << " arguments, first " << argv[0];
  }
}

TEST(Resp, FramesEvalShaFromItsPartsAsHiredisDoes) {
  const std::string sha(40, 'f');
  struct Case {
    std::vector<std::string> keys, args;
  };
  const std::vector<Case> cases = {
      {{}, {}},
      {{"pl:lk:{l7}:a7:s"}, {"1795987800123", "big", "pub", "42", "1", "0"}},
      {{"k1", "k2"}, {"", std::string("a\0b\r\n", 5)}},
      {std::vector<std::string>(12, "key"), {std::string(70000, 'x')}},
  };
  std::string out = "left over";
  for (const auto& c : cases) {
    FormatEvalSha(sha, c.keys, c.args, out);
    std::vector<std::string> argv = {"EVALSHA", sha, std::to_string(c.keys.size())};
    argv.insert(argv.end(), c.keys.begin(), c.keys.end());
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    EXPECT_EQ(out, HiredisFormat(argv)) << c.keys.size() << " keys, " << c.args.size() << " args";
  }
}

TEST(Resp, FramesCommandsWithSharedArgumentsAsHiredisDoes) {
  const std::vector<std::string> tail{"id", "", std::string("a\0b\r\n", 5), std::string(300, 'f')};
  const std::string framed = FrameArgs(tail);
  FramedCommands cmds;
  std::vector<std::string> expected;
  for (const std::string& key : {std::string("k"), std::string(), std::string(70000, 'k')}) {
    cmds.Begin("HMGET", 2 + tail.size());
    cmds.Arg(key);
    cmds.Framed(framed);
    cmds.End();
    std::vector<std::string> argv{"HMGET", key};
    argv.insert(argv.end(), tail.begin(), tail.end());
    expected.push_back(HiredisFormat(argv));
  }
  cmds.Begin("PING", 1);
  cmds.End();
  expected.push_back(HiredisFormat({"PING"}));
  ASSERT_EQ(cmds.size(), expected.size());
  for (size_t i = 0; i < cmds.size(); ++i) {
    EXPECT_EQ(cmds.Command(i), expected[i]) << i;
    EXPECT_EQ(cmds.Name(i), i + 1 < cmds.size() ? "HMGET" : "PING");
  }
}

}  // namespace
}  // namespace plaudit::redis
