#include "app/commands.hpp"

#include <spdlog/spdlog.h>

#include "app/app.hpp"

namespace plaudit::app {
namespace {

int Serve(const config::Config& config) {
  App app(config);
  if (auto st = app.Start(); !st) {
    spdlog::error("start-up failed: {}", st.error().message);
    return 1;
  }
  return app.Run();
}

int Migrate(const config::Config& config) {
  auto store = OpenStore(config);
  if (!store) {
    spdlog::error("cannot open database: {}", store.error().message);
    return 1;
  }
  auto applied = (*store)->Migrate();
  (*store)->Close();
  if (!applied) {
    spdlog::error("migration failed: {}", applied.error().message);
    return 1;
  }
  spdlog::info("migrations applied: {}", *applied);
  return 0;
}

int NotImplemented(const char* what) {
  spdlog::error("'{}' is not implemented yet", what);
  return 2;
}

}  // namespace

int RunCommand(const config::Invocation& inv) {
  switch (inv.command) {
    case config::Command::kServe: return Serve(inv.config);
    case config::Command::kMigrate: return Migrate(inv.config);
    case config::Command::kFlush: return NotImplemented("flush");
    case config::Command::kRebuildCache: return NotImplemented("rebuild-cache");
    case config::Command::kUserAdd: return NotImplemented("user add");
  }
  return 2;
}

}  // namespace plaudit::app
