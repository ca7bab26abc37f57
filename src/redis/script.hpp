#pragma once
// The stores' Lua scripts (src/redis/lua/, embedded at build time), for Client::Eval.
#include <string_view>

#include "redis/client/client.hpp"

namespace plaudit::redis {

// The script of that file name ("like.lua"), its `--! include` lines expanded; throws if
// missing (a build error: every name is a literal in a store).
const Script& GetScript(std::string_view file_name);

}  // namespace plaudit::redis
