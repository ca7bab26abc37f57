#include "app/logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace plaudit::app {

void SetUpLogging(spdlog::level::level_enum level) {
  auto logger = spdlog::stderr_logger_mt("plaudit");
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %l %v", spdlog::pattern_time_type::utc);
  spdlog::set_default_logger(logger);
  spdlog::set_level(level);
  spdlog::flush_on(spdlog::level::info);
}

}  // namespace plaudit::app
