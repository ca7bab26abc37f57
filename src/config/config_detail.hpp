#pragma once
// Private to the config files (src/config/config*.cpp): how an option is added, and the groups
// of options config::Parse adds. Parse (config.cpp) adds the groups in the order --help lists
// them, which is also the order CLI11 runs their callbacks in (so which bad value is reported
// first). The groups, one concern a file:
//   config_server.cpp    where plauditd listens, its Redis and SQL, and what it may hold;
//   config_accounts.cpp  sessions, password hashing, and sign-in (the sites, SSO, OIDC, GitHub);
//   config_comments.cpp  what a comment must pass: moderation, spam signals, rate limits;
//   config_notify.cpp    notifications: mail and webhooks;
//   config_http.cpp      the web in front: /metrics readers, proxies, the cookie, caches.
#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

#include "config/config.hpp"

namespace plaudit::config::detail {

// Adds an option whose text `parse` turns into `out`. CLI11 runs the callback for a flag, a
// --config key and a PLAUDIT_* variable alike; a value `parse` rejects fails app.parse() with
// a message that names the flag.
template <class T, class Parser>
CLI::Option* AddParsed(CLI::App& app, const std::string& flag, T& out, Parser parse,
                       const std::string& help) {
  return app.add_option_function<std::string>(
      flag,
      [&out, flag, parse](const std::string& text) {
        auto value = parse(text);
        if (!value) {
          throw CLI::ValidationError(flag, value.error().message);
        }
        out = *std::move(value);
      },
      help);
}

// Adds a repeatable option whose every item `parse` turns into one element of `out`, as
// AddParsed does for one value.
template <class T, class Parser>
CLI::Option* AddRepeatable(CLI::App& app, const std::string& flag, std::vector<T>& out,
                           Parser parse, const std::string& help) {
  return app.add_option_function<std::vector<std::string>>(
      flag,
      [&out, flag, parse](const std::vector<std::string>& items) {
        for (const auto& item : items) {
          auto value = parse(item);
          if (!value) {
            throw CLI::ValidationError(flag, value.error().message);
          }
          out.push_back(*std::move(value));
        }
      },
      help);
}

// The groups, in Parse's order.
void AddServerOptions(CLI::App& app, Config& c);     // config_server.cpp
void AddAccountOptions(CLI::App& app, Config& c);    // config_accounts.cpp
void AddCommentOptions(CLI::App& app, Config& c);    // config_comments.cpp
void AddRateLimitOptions(CLI::App& app, Config& c);  // config_comments.cpp
void AddMetricsOptions(CLI::App& app, Config& c);    // config_http.cpp
void AddSignInOptions(CLI::App& app, Config& c);     // config_accounts.cpp
void AddNotifyOptions(CLI::App& app, Config& c);     // config_notify.cpp
void AddProxyOptions(CLI::App& app, Config& c);      // config_http.cpp
void AddCacheOptions(CLI::App& app, Config& c);      // config_http.cpp

}  // namespace plaudit::config::detail
