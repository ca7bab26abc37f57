// Embedded Lua scripts: a `--! include` line is replaced by the shared file, so what Redis
// runs has the helper and no directive.
#include "redis/script.hpp"

#include <gtest/gtest.h>

#include "common/embedded.hpp"
#include "redis/client/client.hpp"

namespace plaudit::redis {
namespace {

// A directive is a line of its own (the helpers' own comments may name one).
bool HasDirective(std::string_view source) {
  return source.starts_with("--! include") ||
         source.find("\n--! include") != std::string_view::npos;
}

TEST(ScriptTest, IncludesAreSpliced) {
  const Script& stamp = GetScript("view_stamp.lua");
  EXPECT_NE(stamp.source.find("local function next_seq(key)"), std::string::npos);
  EXPECT_NE(stamp.source.find("return next_seq(KEYS[1])"), std::string::npos);
  EXPECT_FALSE(HasDirective(stamp.source));
}

TEST(ScriptTest, NoScriptKeepsADirective) {
  // Every script that Redis can be sent: a directive left in one would be a Lua comment, and
  // the helpers it needs undefined at run time, not at load.
  for (const auto& f : lua::Files()) {
    const Script& s = GetScript(f.name);
    EXPECT_FALSE(HasDirective(s.source)) << f.name;
    if (f.content.find("\n--! include lib_clock.lua") != std::string_view::npos) {
      EXPECT_NE(s.source.find("local function bump_epoch(key)"), std::string::npos) << f.name;
    }
  }
}

}  // namespace
}  // namespace plaudit::redis
