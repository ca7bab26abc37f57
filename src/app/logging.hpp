#pragma once
#include <string>

namespace plaudit::app {
// Structured one-line logs on stderr: `2026-11-29T21:30:00.123Z info <message>` in UTC,
// messages written as `event key=value ...`.
void SetUpLogging(const std::string& level);
}  // namespace plaudit::app
