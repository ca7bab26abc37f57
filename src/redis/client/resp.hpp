#pragma once
// RESP framing of one command (an array of bulk strings), for hiredis's
// redisAsyncFormattedCommand. hiredis's own redisAsyncCommandArgv formats through sds and a
// printf-like sdscatfmt per argument; that showed at 3-9% of plauditd's CPU in the like and
// article-list profiles. The framing is the protocol's simplest form, and a unit test holds
// it byte for byte to hiredis's redisFormatCommandArgv.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace plaudit::redis {

// Replaces `out` with the command's RESP bytes (keeps its capacity).
void FormatCommand(const std::vector<std::string>& argv, std::string& out);
// The same for EVALSHA sha numkeys keys... args..., straight from its parts (no argv built).
void FormatEvalSha(std::string_view sha, const std::vector<std::string>& keys,
                   const std::vector<std::string>& args, std::string& out);

// Arguments framed as bulk strings back to back: the common tail of many commands, framed
// once and written into each with FramedCommands::Framed.
std::string FrameArgs(std::span<const std::string> args);

// Several commands framed into one buffer, for Client::PipelineFramed: a comment
// page's 80 HMGETs name the same 16 fields, and building and framing an argv of 18 strings
// for each was ~9% of a page render's instructions (callgrind, 2026-12-02).
//   FramedCommands c;
//   c.Begin("HMGET", 2 + fields.size()); c.Arg(key); c.Framed(framed_fields); c.End();
class FramedCommands {
 public:
  // Starts a command of `argc` arguments in all, `name` (argv[0]) the first of them.
  void Begin(std::string_view name, size_t argc);
  void Arg(std::string_view arg);
  // Arguments framed by FrameArgs (counted in Begin's argc).
  void Framed(std::string_view framed) { resp_.append(framed); }
  void End() { ends_.push_back(resp_.size()); }
  // Command `i` of `from`, as it is (a cluster client splitting a batch between nodes).
  void Append(const FramedCommands& from, size_t i) {
    names_.push_back(from.Name(i));
    resp_.append(from.Command(i));
    End();
  }
  void Reserve(size_t bytes, size_t commands) {
    resp_.reserve(bytes);
    ends_.reserve(commands);
    names_.reserve(commands);
  }

  size_t size() const { return ends_.size(); }
  std::string_view Command(size_t i) const {
    const size_t from = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(resp_).substr(from, ends_[i] - from);
  }
  const std::string& Name(size_t i) const { return names_[i]; }

 private:
  std::string resp_;
  std::vector<size_t> ends_;  // one past each command's last byte
  std::vector<std::string> names_;
};

}  // namespace plaudit::redis
