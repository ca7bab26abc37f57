#pragma once
// RESP framing of one command (an array of bulk strings), for hiredis's
// redisAsyncFormattedCommand. hiredis's own redisAsyncCommandArgv formats through sds and a
// printf-like sdscatfmt per argument; that showed at 3-9% of plauditd's CPU in the like and
// article-list profiles. The framing is the protocol's simplest form, and a unit test holds
// it byte for byte to hiredis's redisFormatCommandArgv.
#include <string>
#include <string_view>
#include <vector>

namespace plaudit::redis {

// Replaces `out` with the command's RESP bytes (keeps its capacity).
void FormatCommand(const std::vector<std::string>& argv, std::string& out);
// The same for EVALSHA sha numkeys keys... args..., straight from its parts (no argv built).
void FormatEvalSha(std::string_view sha, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args, std::string& out);

}  // namespace plaudit::redis
