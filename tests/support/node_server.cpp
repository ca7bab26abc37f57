#include "node_server.hpp"

#include <stdexcept>

namespace plaudit::testing {

std::string SourceDir() {
#ifdef PLAUDIT_SOURCE_DIR
  return PLAUDIT_SOURCE_DIR;
#else
  return ".";
#endif
}

ScriptServer::ScriptServer(const std::string& interpreter, const std::string& script,
                           std::vector<std::string> args, int port)
    : dir_("plaudit-script"), port_(port > 0 ? port : FreeTcpPort()) {
  const std::string exe = interpreter.starts_with("/") ? interpreter : FindExecutable(interpreter);
  if (exe.empty()) {
    throw std::runtime_error(interpreter + " is not installed");
  }
  const std::string log = (dir_.path() / "server.log").string();
  std::vector<std::string> argv{exe, SourceDir() + "/" + script, "--port", std::to_string(port_)};
  argv.insert(argv.end(), args.begin(), args.end());
  process_ = std::make_unique<Process>(argv, log);
  const bool up = WaitFor(
      [&] {
        const std::string text = ReadFile(log);
        const size_t at = text.find("listening ");
        if (at == std::string::npos) {
          return false;
        }
        const size_t end = text.find('\n', at);
        if (end == std::string::npos) {
          return false;
        }
        url_ = text.substr(at + 10, end - at - 10);
        return true;
      },
      std::chrono::seconds(20));
  if (!up) {
    throw std::runtime_error(script + " did not start:\n" + ReadFile(log));
  }
}

ScriptServer::~ScriptServer() {
  if (process_) {
    process_->Stop(std::chrono::seconds(2));
  }
}

}  // namespace plaudit::testing
