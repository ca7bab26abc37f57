#include "app/commands.hpp"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>

#include "app/app.hpp"
#include "common/unix_socket.hpp"
#include "common/web_origin.hpp"
#include "redis/dataset.hpp"
#include "transfer/dump.hpp"
#include "transfer/foreign_import.hpp"
#include "transfer/foreign_plan.hpp"

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

// The password of `user add` and `user password`: the first line of stdin, never argv, where
// `ps` would show it.
std::optional<std::string> PasswordFromStdin(const char* what) {
  std::string password;
  if (!std::getline(std::cin, password)) {
    spdlog::error("{}: expected the password on standard input", what);
    return std::nullopt;
  }
  if (!password.empty() && password.back() == '\r') {
    password.pop_back();
  }
  return password;
}

// The store, opened and migrated, for the user commands; nullptr (logged) when it cannot be.
std::unique_ptr<sql::Store> MigratedStore(const config::Config& config) {
  auto store = OpenStore(config);
  if (!store) {
    spdlog::error("cannot open database: {}", store.error().message);
    return nullptr;
  }
  auto migrated = (*store)->Migrate();
  if (!migrated) {
    spdlog::error("migration failed: {}", migrated.error().message);
    return nullptr;
  }
  return std::move(*store);
}

int UserAdd(const config::Invocation& inv) {
  const auto password = PasswordFromStdin("user add");
  if (!password) {
    return 1;
  }
  auto role = domain::ParseRole(inv.user_role);
  auto store = MigratedStore(inv.config);
  if (!store) {
    return 1;
  }
  auto created = domain::EnsureUser(*store, inv.user_name, *password,
                                    role.value_or(domain::Role::kUser), HashOptions(inv.config));
  store->Close();
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

// `plauditd user password NAME`: a new password for an account (one moved by an export without
// --with-secrets has none, and signs in no other way until it is given one). Signing in reads
// the hash from SQL, so a running server takes it at once. Then the account's open sessions
// end, on every instance at once (an operator resets a password because another may know the
// old one; a sign-in with the old password still in flight is closed by UserService::
// OpenSession). Redis is reached first: when it cannot be, nothing changes.
int UserPassword(const config::Invocation& inv) {
  const auto password = PasswordFromStdin("user password");
  if (!password) {
    return 1;
  }
  return RunOneShot(
      inv.config, "user password",
      [name = inv.user_name, password = *password,
       hash = HashOptions(inv.config)](App& app) -> Awaitable<Status> {
        // Synchronous, the hash (~0.15 s) in the store's job: a command's, nothing else waits.
        PL_CO_TRY(const auto id, domain::SetUserPassword(app.store(), name, password, hash));
        if (!id) {
          co_return Fail(ErrorCode::kNotFound, "no user '" + name + "'");
        }
        spdlog::info("set the password of user '{}'", name);
        auto ended = co_await app.sessions().DeleteUser(*id);
        if (!ended) {
          co_return Fail(ended.error().code,
                         "the password is set, but the account's open sessions could not be "
                         "ended (" +
                             ended.error().message + "); run the command again");
        }
        spdlog::info("ended the open sessions of user '{}'", name);
        co_return Status{};
      });
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

std::string CountsLine(const transfer::Counts& counts) {
  std::string line;
  for (const auto& c : counts) {
    if (c.records > 0) {
      line += (line.empty() ? "" : ", ") + std::to_string(c.records) + " " + c.type;
    }
  }
  return line.empty() ? "no records" : line;
}

// `plauditd export`: the write-behind flushed first, so every like and view acknowledged before
// it is in the snapshot; the file is written as FILE.partial and renamed when complete.
int Export(const config::Invocation& inv) {
  const std::string out = inv.export_out;
  const bool secrets = inv.export_secrets;
  return RunOneShot(inv.config, "export", [out, secrets](App& app) -> Awaitable<Status> {
    PL_CO_TRY(auto flushed, co_await app.flusher().FlushNow());
    spdlog::info("flushed: {} view counts, {} like states", flushed.views, flushed.like_changes);
    std::function<Result<transfer::Counts>(sql::Connection&)> job =
        [out, secrets](sql::Connection& c) -> Result<transfer::Counts> {
      if (out.empty()) {
        return transfer::WriteExport(c, std::cout, secrets);
      }
      struct stat st{};
      if (::stat(out.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        // A pipe, a terminal, /dev/stdout: written as it is.
        std::ofstream file(out, std::ios::binary);
        return transfer::WriteExport(c, file, secrets);
      }
      // FILE.partial made new (O_EXCL: never one already there, another user's in a shared
      // directory; O_NOFOLLOW: never through a link), for its owner only, renamed to FILE
      // once complete and removed if the export fails.
      const std::string partial = out + ".partial";
      const int fd =
          ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0) {
        const int err = errno;
        return Fail(ErrorCode::kUnavailable,
                    "cannot make " + partial + ": " +
                        std::error_code(err, std::generic_category()).message() +
                        (err == EEXIST ? " (an export cut short? remove it)" : ""));
      }
      ::close(fd);
      std::ofstream file(partial, std::ios::binary | std::ios::trunc);
      auto counts = transfer::WriteExport(c, file, secrets);
      file.close();
      std::error_code ec;
      if (counts && file) {
        std::filesystem::rename(partial, out, ec);
      }
      if (!counts || !file || ec) {
        std::filesystem::remove(partial, ec);
        return counts ? Fail(ErrorCode::kUnavailable, "cannot write " + out) : counts;
      }
      return counts;
    };
    PL_CO_TRY(auto counts, co_await app.store().Run(std::move(job)));
    spdlog::info("exported {}", CountsLine(counts));
    co_return Status{};
  });
}

// An import reads its file more than once (its digest first): a pipe would be empty the second
// time.
bool RegularFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    spdlog::error("import: {} is not a file that can be read twice (save a pipe's output first)",
                  path);
    return false;
  }
  if (!std::ifstream(path, std::ios::binary)) {
    spdlog::error("import: cannot read {}", path);
    return false;
  }
  return true;
}

struct Seen {
  std::string digest;
  transfer::Standing standing = transfer::Standing::kEmpty;
};

// `plauditd import --from SYSTEM FILE`: the file read once into the plan of what becomes what
// (transfer/foreign_plan.hpp), which --dry-run prints; nothing is written before the whole file
// has been read.
int ImportForeign(const config::Invocation& inv) {
  const auto source = transfer::ParseSource(inv.import_from);
  transfer::PlanOptions options;
  options.sites = inv.config.sites.origins();
  if (!inv.import_site.empty()) {
    auto site = NormaliseOrigin(inv.import_site);
    if (!site) {
      return config::ReportBadValue("--site: " + site.error().message);
    }
    options.site = *site;
  }
  const std::string path = inv.import_file;
  if (!RegularFile(path)) {
    return 1;
  }
  std::ifstream file(path, std::ios::binary);
  auto digest = transfer::Digest(file);
  if (!file.eof() || !digest) {
    spdlog::error("import: cannot read {}", path);
    return 1;
  }
  file.clear();
  file.seekg(0);
  transfer::ForeignPlan plan(options);
  if (auto st = transfer::ReadForeign(*source, file, plan); !st) {
    spdlog::error("import: {}: {} (nothing was imported)", path, st.error().message);
    return 1;
  }
  plan.Resolve();
  std::cout << transfer::DescribePlan(plan, inv.import_dry_run, 1000) << std::flush;
  if (inv.import_dry_run) {
    return 0;
  }
  config::Config config = inv.config;
  config.bootstrap_admin.reset();
  config.rate_limits = false;  // an import makes every page thread at once
  return RunOneShot(config, "import", [&](App& app) -> Awaitable<Status> {
    transfer::ForeignWrite w{
        app.pages(),           app.comments(),           *source, path, *digest,
        config.comment_images, inv.import_users_by_email};
    PL_CO_TRY(const auto counts, co_await transfer::WriteForeign(std::move(w), plan));
    spdlog::info(
        "imported: {} pages; {} comments written now, {} by an earlier run; {} written other "
        "than the file has them (logged above)",
        counts.pages, counts.written, counts.earlier, counts.altered);
    co_return Status{};
  });
}

// `plauditd import FILE`: into a new database beside an empty Redis (redis/dataset.hpp), or,
// when the database holds this very file's import already, nothing.
int Import(const config::Invocation& inv) {
  if (!inv.import_from.empty()) {
    return ImportForeign(inv);
  }
  config::Config config = inv.config;
  config.bootstrap_admin.reset();  // the file's accounts, and only them
  const std::string path = inv.import_file;
  if (!RegularFile(path)) {
    return 1;
  }
  return RunOneShot(config, "import", [path](App& app) -> Awaitable<Status> {
    std::function<Result<Seen>(sql::Connection&)> look =
        [path](sql::Connection& c) -> Result<Seen> {
      std::ifstream file(path, std::ios::binary);
      PL_TRY(auto digest, transfer::Digest(file));
      PL_TRY(auto standing, transfer::StandingFor(c, digest));
      return Seen{std::move(digest), standing};
    };
    PL_CO_TRY(auto seen, co_await app.store().Run(std::move(look)));
    if (seen.standing == transfer::Standing::kImported) {
      spdlog::info("import: the database holds this file's import already; nothing changed");
      co_return Status{};
    }
    if (seen.standing == transfer::Standing::kOccupied) {
      co_return Fail(ErrorCode::kAlreadyExists,
                     "the database is not new: an export is imported into a new database");
    }
    PL_CO_TRY(const bool busy, co_await redis::HoldsPlauditKeys(app.redis()));
    if (busy) {
      co_return Fail(ErrorCode::kAlreadyExists,
                     "Redis holds Plaudit's keys (a server running on this data, or another "
                     "database's caches): import beside an empty Redis (a new --data-dir, or a "
                     "Redis of its own)");
    }
    std::function<Result<transfer::Counts>(sql::Connection&)> load =
        [path, digest = seen.digest](sql::Connection& c) -> Result<transfer::Counts> {
      std::ifstream file(path, std::ios::binary);
      return transfer::ReadImport(c, file, digest);
    };
    PL_CO_TRY(auto counts, co_await app.store().Run(std::move(load)));
    spdlog::info("imported {}", CountsLine(counts));
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
    case config::Command::kUserPassword:
      return UserPassword(inv);
    case config::Command::kExport:
      return Export(inv);
    case config::Command::kImport:
      return Import(inv);
  }
  return 2;
}

}  // namespace plaudit::app
