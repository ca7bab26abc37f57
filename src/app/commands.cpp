#include "app/commands.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <functional>
#include <iostream>
#include <string>

#include "app/app.hpp"
#include "common/unix_socket.hpp"

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
  if (!applied) {
    (*store)->Close();
    spdlog::error("migration failed: {}", applied.error().message);
    return 1;
  }
  spdlog::info("migrations applied: {}", *applied);
  auto rendered = RenderStoredComments(**store, config);
  (*store)->Close();
  if (!rendered) {
    spdlog::error("rendering stored comments failed: {}", rendered.error().message);
    return 1;
  }
  return 0;
}

int UserAdd(const config::Invocation& inv) {
  // The password comes from stdin (first line), never from argv where `ps` would show it.
  std::string password;
  if (!std::getline(std::cin, password)) {
    spdlog::error("user add: expected the password on standard input");
    return 1;
  }
  if (!password.empty() && password.back() == '\r') {
    password.pop_back();
  }
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

// Runs `job` once against Redis and SQL, without HTTP. In embedded mode it uses the running
// server's Redis when there is one (never a second server on the same data), else starts
// Redis from its AOF.
int RunOneShot(config::Config config, const char* what,
               std::function<Awaitable<Status>(App&)> job) {
  if (!config.redis) {
    auto sock =
        (std::filesystem::absolute(config.data_dir) / "redis" / "redis.sock").lexically_normal();
    if (UnixSocketAccepts(sock)) {
      config.redis = RedisEndpoint::Unix(sock.string());
    }
  }
  App app(config);
  if (auto st = app.StartBackend(); !st) {
    spdlog::error("{}: {}", what, st.error().message);
    return 1;
  }
  int code = 1;
  net::co_spawn(
      app.io(),
      [&]() -> Awaitable<void> {
        if (!co_await app.redis().WaitConnected(std::chrono::seconds(5))) {
          spdlog::error("{}: redis unavailable", what);
        } else if (auto st = co_await job(app); !st) {
          spdlog::error("{}: {}", what, st.error().message);
        } else {
          code = 0;
        }
        app.redis().Stop();
        app.io().stop();
      },
      net::detached);
  app.io().run();
  return code;
}

int Flush(const config::Config& config) {
  return RunOneShot(config, "flush", [](App& app) -> Awaitable<Status> {
    PL_CO_TRY(auto r, co_await app.flusher().FlushNow());
    spdlog::info("flushed: {} view counts, {} like states", r.views, r.like_changes);
    // Then reconcile: recompute SQL like counts from the rows and repair drift.
    auto fixed = co_await app.like_flush().Reconcile();
    PL_CO_CHECK(fixed);
    spdlog::info("reconciled like counts: {} fixed", *fixed);
    co_return Status{};
  });
}

// One delivery run (`plauditd notify`): passes until nothing more is due now, then exit. The
// same worker as `serve` runs, under the same leases, so it may run beside live instances.
int Notify(const config::Config& config) {
  return RunOneShot(config, "notify", [](App& app) -> Awaitable<Status> {
    PL_CO_TRY(auto r, co_await app.notifier().DeliverNow());
    spdlog::info(
        "notices: {} mailed, {} webhooks, {} events fanned out; {} to retry, {} given up; "
        "{} waiting",
        r.mail.delivered, r.webhook.delivered, r.event.delivered,
        r.mail.retried + r.webhook.retried + r.event.retried,
        r.mail.given_up + r.webhook.given_up + r.event.given_up, r.depth);
    co_return Status{};
  });
}

int RebuildCache(const config::Config& config) {
  return RunOneShot(config, "rebuild-cache", [](App& app) -> Awaitable<Status> {
    // Article hashes and bodies are dropped (their unflushed views go to SQL first, under the
    // views recovery's lease) and refill from SQL on first use; the list indexes are the part
    // worth building ahead of traffic. Comment caches are dropped: each thread rebuilds from
    // SQL (versioned, under its lease) on its next read, which also repairs any a double
    // fault left stale.
    auto reloaded = co_await app.redis_check().ReloadArticles();
    if (!reloaded) {
      co_return reloaded;
    }
    spdlog::info("dropped the article caches; they refill from SQL on their next read");
    auto st = co_await app.articles().RebuildIndexes();
    if (!st) {
      co_return st;
    }
    spdlog::info("rebuilt the published list indexes");
    auto dropped = co_await app.comments().InvalidateAll();
    PL_CO_CHECK(dropped);
    spdlog::info("dropped {} comment caches; they rebuild from SQL on their next read", *dropped);
    co_return Status{};
  });
}

// `plauditd rebuild-search`: the index dropped and built again from SQL, here, step by step
// (running instances' indexers may take steps of it too: each step locks the cursor). For
// an index an operator no longer trusts; it serves what it has built so far meanwhile.
int RebuildSearch(const config::Config& config) {
  return RunOneShot(config, "rebuild-search", [](App& app) -> Awaitable<Status> {
    PL_CO_CHECK(co_await app.search().Rebuild());
    int64_t steps = 0;
    for (;;) {
      PL_CO_TRY(auto n, co_await app.search().Index());
      if (n == 0) {
        break;
      }
      steps += n;
      spdlog::info("search index: {} steps taken", steps);
    }
    spdlog::info("search index rebuilt");
    co_return Status{};
  });
}

}  // namespace

int RunCommand(const config::Invocation& inv) {
  if (auto st = CheckInvocation(inv); !st) {
    return config::ReportBadValue(st.error().message);
  }
  switch (inv.command) {
    case config::Command::kServe:
      return Serve(inv.config);
    case config::Command::kMigrate:
      return Migrate(inv.config);
    case config::Command::kFlush:
      return Flush(inv.config);
    case config::Command::kNotify:
      return Notify(inv.config);
    case config::Command::kRebuildCache:
      return RebuildCache(inv.config);
    case config::Command::kRebuildSearch:
      return RebuildSearch(inv.config);
    case config::Command::kUserAdd:
      return UserAdd(inv);
  }
  return 2;
}

}  // namespace plaudit::app
