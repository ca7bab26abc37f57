#include "app/commands.hpp"

#include <iostream>
#include <string>

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

int UserAdd(const config::Invocation& inv) {
  // The password comes from stdin (first line), never from argv where `ps` would show it.
  std::string password;
  if (!std::getline(std::cin, password)) {
    spdlog::error("user add: expected the password on standard input");
    return 1;
  }
  if (!password.empty() && password.back() == '\r') password.pop_back();
  auto role = domain::ParseRole(inv.user_role);
  auto store = OpenStore(inv.config);
  if (!store) {
    spdlog::error("cannot open database: {}", store.error().message);
    return 1;
  }
  auto migrated = (*store)->Migrate();
  if (!migrated) {
    spdlog::error("migration failed: {}", migrated.error().message);
    return 1;
  }
  auto created = domain::EnsureUser(**store, inv.user_name, password,
                                    role.value_or(domain::Role::kUser), HashOptions(inv.config));
  (*store)->Close();
  if (!created) {
    spdlog::error("user add: {}", created.error().message);
    return 1;
  }
  if (!*created) {
    spdlog::error("user add: user '{}' already exists", inv.user_name);
    return 1;
  }
  spdlog::info("created user '{}' with role {}", inv.user_name, inv.user_role);
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
    case config::Command::kUserAdd: return UserAdd(inv);
  }
  return 2;
}

}  // namespace plaudit::app
