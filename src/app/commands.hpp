#pragma once
// The subcommands of plauditd (API.md "Running plauditd").
#include "config/config.hpp"

namespace plaudit::app {
// Runs the command and returns the process exit code.
int RunCommand(const config::Invocation& invocation);
}  // namespace plaudit::app
