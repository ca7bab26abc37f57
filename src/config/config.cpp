// config::Parse (the settings are in config.hpp): the command line, --config and the
// environment read into one Config, option group by option group (config_detail.hpp lists
// them), then the checks between settings and the subcommand.
#include "config/config.hpp"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

#include "config/config_detail.hpp"
#include "plaudit_version.hpp"

namespace plaudit::config {
namespace {

// Checks between settings, once all are known.
Status CheckTogether(const Config& c) {
  if (!c.smtp.empty() && (c.mail_from.empty() || c.public_url.empty())) {
    return Fail(ErrorCode::kInvalidArgument,
                "--smtp: needs --mail-from and --public-url (a mail's links are absolute)");
  }
  if (!c.webhooks.empty() && c.webhook_secret.size() < 16) {
    return Fail(ErrorCode::kInvalidArgument,
                "--webhook: needs --webhook-secret of 16 bytes or more");
  }
  for (const auto& p : c.oidc) {
    for (const auto& other : c.oidc) {
      if (&other != &p && other.name == p.name) {
        return Fail(ErrorCode::kInvalidArgument, "--oidc: " + p.name + " given twice");
      }
    }
  }
  for (const auto& site : c.sso) {
    if (!c.sites.Allows(site.origin)) {
      return Fail(ErrorCode::kInvalidArgument, "--sso: " + site.origin + " is not one of --sites");
    }
    for (const auto& other : c.sso) {
      if (&other != &site && other.origin == site.origin) {
        return Fail(ErrorCode::kInvalidArgument, "--sso: " + site.origin + " given twice");
      }
    }
  }
  if (c.database && c.database->in_memory() && c.sql_pool_size > 1) {
    return Fail(ErrorCode::kInvalidArgument,
                "--database: an in-memory SQLite database needs --sql-pool-size 1");
  }
  return {};
}

// The TOML file of every long flag (/etc/plaudit/plaudit.toml in the Debian package): CLI11's
// own writing of the options with their defaults and descriptions, every setting commented
// out, so that the file changes nothing until a line is uncommented. Subcommands' sections
// and --config itself are left out.
std::string ConfigExample(const CLI::App& app) {
  std::string out =
      "# plauditd's settings (API.md \"Running plauditd\"): the long flags' names as keys.\n"
      "# Every line is commented out and shows the default; flags and PLAUDIT_* variables\n"
      "# win over this file. Unknown keys fail start-up.\n";
  std::istringstream in(app.config_to_str(/*default_also=*/true, /*write_description=*/true));
  std::string line;
  bool section = false;
  while (std::getline(in, line)) {
    if (line.starts_with("[")) {
      section = true;  // a subcommand's options
    }
    if (section || line.empty()) {
      continue;
    }
    if (line.starts_with("#")) {
      out += "\n" + line + "\n";
    } else {
      out += "# " + line + "\n";
    }
  }
  // CLI11 writes only the options that have a default: the others too, empty.
  for (const CLI::Option* opt : app.get_options()) {
    const std::string name = opt->get_single_name();
    if (opt->get_lnames().empty() || name == "help" || name == "config" || name == "version" ||
        out.find("\n# " + name + "=") != std::string::npos) {
      continue;
    }
    const std::string empty =
        opt->get_expected_max() > 1 ? "[]" : (opt->get_type_size() == 0 ? "false" : "\"\"");
    out.append("\n# ").append(opt->get_description()).append("\n# ").append(name);
    out.append("=").append(empty).append("\n");
  }
  return out;
}

}  // namespace

std::optional<Invocation> Parse(int argc, const char* const* argv, int& exit_code) {
  Invocation inv;
  Config& c = inv.config;
  // ASCII: help2man writes the man page from --help, and turned the dash into "???".
  CLI::App app{"plauditd: comments, likes and view counts for blogs and forums"};
  app.set_config("--config", "", "TOML file with the same keys as the long flags");
  app.set_version_flag("--version", std::string("plauditd ") + PLAUDIT_VERSION);
  app.allow_config_extras(CLI::config_extras_mode::error);
  app.fallthrough();
  app.require_subcommand(0, 1);

  // In this order (config_detail.hpp).
  detail::AddServerOptions(app, c);
  detail::AddAccountOptions(app, c);
  detail::AddCommentOptions(app, c);
  detail::AddRateLimitOptions(app, c);
  detail::AddMetricsOptions(app, c);
  detail::AddSignInOptions(app, c);
  detail::AddNotifyOptions(app, c);
  detail::AddProxyOptions(app, c);
  detail::AddCacheOptions(app, c);

  auto* serve = app.add_subcommand("serve", "run the server (the default)");
  auto* migrate = app.add_subcommand("migrate", "apply database migrations and exit");
  auto* flush = app.add_subcommand("flush", "run one write-behind pass and exit");
  auto* notify = app.add_subcommand("notify", "deliver the notices that are due and exit");
  auto* rebuild = app.add_subcommand("rebuild-cache", "reload Redis from SQL and exit");
  auto* rebuild_search =
      app.add_subcommand("rebuild-search", "build the search index again from SQL and exit");
  auto* config_example = app.add_subcommand(
      "config-example", "print every key --config's file takes, commented, with its default");
  auto* export_cmd = app.add_subcommand(
      "export", "flush, then write everything as JSON Lines (API.md \"Moving data in and out\")");
  export_cmd->add_option("--out", inv.export_out, "the file to write (default: standard output)");
  export_cmd->add_flag("--with-secrets", inv.export_secrets,
                       "also password hashes, token hashes and unsubscribe keys");
  auto* import_cmd =
      app.add_subcommand("import", "load an export into a new database (with an empty Redis)");
  import_cmd->add_option("file", inv.import_file, "the export to load")->required();
  import_cmd
      ->add_option("--from", inv.import_from,
                   "another system's export: disqus, wordpress, waline, twikoo")
      ->check(CLI::IsMember({"disqus", "wordpress", "waline", "twikoo"}));
  import_cmd->add_option("--site", inv.import_site,
                         "--from: the origin of the pages (joined to paths, replaces others')");
  import_cmd->add_flag("--users-by-email", inv.import_users_by_email,
                       "--from: a comment whose e-mail address is a user's verified one is "
                       "that user's (else a guest's)");
  import_cmd->add_flag("--dry-run", inv.import_dry_run,
                       "--from: print what would be imported, and the problems; write nothing");
  auto* user = app.add_subcommand("user", "manage users");
  user->require_subcommand(1);
  auto* user_add = user->add_subcommand("add", "create a user; the password is read from stdin");
  user_add->add_option("name", inv.user_name, "username")->required();
  user_add->add_option("--role", inv.user_role, "user, author, moderator or admin")
      ->check(CLI::IsMember({"user", "author", "moderator", "admin"}))
      ->capture_default_str();
  auto* user_password = user->add_subcommand(
      "password",
      "set a user's password (an account moved without its secrets has none); the "
      "password is read from stdin");
  user_password->add_option("name", inv.user_name, "username")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help (and --help-all) come here too, with exit code 0.
    const bool help = e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success);
    exit_code = help ? app.exit(e) : ReportBadValue(e.what());
    return std::nullopt;
  }
  if (config_example->parsed()) {
    std::cout << ConfigExample(app);
    exit_code = 0;
    return std::nullopt;
  }
  if (auto st = CheckTogether(c); !st) {
    exit_code = ReportBadValue(st.error().message);
    return std::nullopt;
  }
  if (migrate->parsed()) {
    inv.command = Command::kMigrate;
  }
  if (flush->parsed()) {
    inv.command = Command::kFlush;
  }
  if (notify->parsed()) {
    inv.command = Command::kNotify;
  }
  if (rebuild->parsed()) {
    inv.command = Command::kRebuildCache;
  }
  if (rebuild_search->parsed()) {
    inv.command = Command::kRebuildSearch;
  }
  if (user_add->parsed()) {
    inv.command = Command::kUserAdd;
  }
  if (user_password->parsed()) {
    inv.command = Command::kUserPassword;
  }
  if (export_cmd->parsed()) {
    inv.command = Command::kExport;
  }
  if (import_cmd->parsed()) {
    inv.command = Command::kImport;
  }
  (void)serve;
  exit_code = 0;
  return inv;
}

int ReportBadValue(std::string_view message) {
  // One line whatever the value held (a newline in a TOML string, say).
  std::string line(message);
  for (char& ch : line) {
    if (ch == '\n' || ch == '\r') {
      ch = ' ';
    }
  }
  std::cerr << "plauditd: " << line << '\n';
  return kBadValueExitCode;
}

DatabaseUrl DefaultDatabaseUrl(const Config& config) {
  std::filesystem::path p = std::filesystem::absolute(config.data_dir) / "plaudit.db";
  return DatabaseUrl{Dialect::kSqlite, p.lexically_normal().string()};
}

}  // namespace plaudit::config
