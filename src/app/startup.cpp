// The start-up steps that need no App, shared by serve (wiring.cpp) and the one-shot
// subcommands (commands.cpp): checking an invocation, opening the store, the options and
// headers derived from the config, and creating the --bootstrap-admin user.
#include <spdlog/spdlog.h>

#include <filesystem>

#include "app/app.hpp"
#include "app/private_files.hpp"
#include "domain/comment_text_backfill.hpp"
#include "domain/user.hpp"

namespace plaudit::app {

Status RenderStoredComments(sql::Store& store, const config::Config& config) {
  text::MarkdownOptions options;
  options.images = config.comment_images;
  PL_TRY(const int64_t rendered, domain::RenderUnrenderedComments(store, options));
  if (rendered > 0) {
    spdlog::info("rendered the text of {} comment(s) stored before comments kept their html",
                 rendered);
  }
  return {};
}

Result<std::unique_ptr<sql::Store>> OpenStore(const config::Config& config) {
  sql::StoreOptions opts;
  if (config.database) {
    opts.url = *config.database;
  } else {
    // 0700 whatever the umask: plaudit.db holds password hashes (issue 41, item 13).
    if (auto st = EnsurePrivateDir(config.data_dir); !st) {
      return Fail(ErrorCode::kUnavailable, "cannot create data dir: " + st.error().message);
    }
    opts.url = config::DefaultDatabaseUrl(config);
  }
  opts.pool_size = config.sql_pool_size;
  return sql::Store::Open(opts);
}

domain::PasswordHashOptions HashOptions(const config::Config& config) {
  auto o = config.password_hash == config::PasswordCost::kMinimal
               ? domain::PasswordHashOptions::Minimal()
               : domain::PasswordHashOptions::Interactive();
  o.threads = config.password_hash_threads;
  o.max_pending = config.password_hash_queue;
  return o;
}

// Public pages: browsers always revalidate (max-age=0; a 304 costs no render), a shared cache
// may answer from its copy for s-maxage. stale-while-revalidate goes to CDNs only
// (CdnCacheControl): browsers honour it too, and would show a page that old after a change.
std::string PublicCacheControl(const config::Config& config) {
  if (config.shared_max_age_s == 0) {
    return "public, no-cache";
  }
  return "public, max-age=0, s-maxage=" + std::to_string(config.shared_max_age_s);
}

// CDN-Cache-Control (RFC 9213), which browsers ignore; empty: none.
std::string CdnCacheControl(const config::Config& config) {
  if (config.stale_while_revalidate_s == 0) {
    return {};
  }
  return "max-age=" + std::to_string(config.shared_max_age_s) +
         ", stale-while-revalidate=" + std::to_string(config.stale_while_revalidate_s);
}

Status CheckInvocation(const config::Invocation& inv) {
  if (const auto& admin = inv.config.bootstrap_admin) {
    for (Status st :
         {domain::ValidateUsername(admin->name), domain::ValidatePassword(admin->password)}) {
      if (!st) {
        return Fail(st.error().code, "--bootstrap-admin: " + st.error().message);
      }
    }
  }
  if (inv.config.redis_wait_replicas > 0 && !inv.config.redis) {
    return Fail(ErrorCode::kInvalidArgument,
                "--redis-wait-replicas: the embedded Redis has no replicas; give --redis");
  }
  if (inv.import_from.empty() &&
      (!inv.import_site.empty() || inv.import_dry_run || inv.import_users_by_email)) {
    return Fail(ErrorCode::kInvalidArgument,
                "import: --site, --users-by-email and --dry-run go with --from");
  }
  if (inv.command == config::Command::kUserAdd || inv.command == config::Command::kUserPassword) {
    if (auto st = domain::ValidateUsername(inv.user_name); !st) {
      const char* what = inv.command == config::Command::kUserAdd ? "user add" : "user password";
      return Fail(st.error().code, std::string(what) + " NAME: " + st.error().message);
    }
  }
  return {};
}

Status BootstrapAdmin(sql::Store& store, const config::Config& config) {
  if (!config.bootstrap_admin) {
    return {};
  }
  const std::string& name = config.bootstrap_admin->name;
  auto created = domain::EnsureUser(store, name, config.bootstrap_admin->password,
                                    domain::Role::kAdmin, HashOptions(config));
  if (!created) {
    return Fail(created.error().code, "--bootstrap-admin: " + created.error().message);
  }
  if (*created) {
    spdlog::info("created admin user '{}'", name);
  }
  return {};
}

}  // namespace plaudit::app
