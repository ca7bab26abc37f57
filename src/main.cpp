// plauditd: config → command → run. Everything else lives in src/app/.
#include "app/commands.hpp"
#include "app/logging.hpp"
#include "config/config.hpp"

int main(int argc, char** argv) {
  int exit_code = 0;
  auto invocation = plaudit::config::Parse(argc, argv, exit_code);
  if (!invocation) {
    return exit_code;
  }
  plaudit::app::SetUpLogging(invocation->config.log_level);
  return plaudit::app::RunCommand(*invocation);
}
