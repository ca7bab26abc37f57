#pragma once
#include <spdlog/common.h>

namespace plaudit::app {
// Structured one-line logs on stderr: `2026-11-29T21:30:00.123Z info <message>` in UTC,
// messages written as `event key=value ...`.
void SetUpLogging(spdlog::level::level_enum level);
}  // namespace plaudit::app
