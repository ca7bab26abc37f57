// Accounts and sign-in: sessions, password hashing, and the sign-in that other sites (--sso,
// among --sites) and providers (--oidc, --github) give.
#include "config/config_detail.hpp"

namespace plaudit::config::detail {
namespace {

// --sso ORIGIN=SECRET: a secret of at least 32 bytes (an HS256 key shorter than its hash is
// weaker than the signature it makes, RFC 7518 3.2).
Result<Config::SsoSite> ParseSsoSite(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "expected ORIGIN=SECRET");
  }
  auto origin = NormaliseOrigin(text.substr(0, eq));
  if (!origin) {
    return Fail(ErrorCode::kInvalidArgument, "ORIGIN: " + origin.error().message);
  }
  Config::SsoSite site{std::move(*origin), std::string(text.substr(eq + 1))};
  if (site.secret.size() < 32) {
    return Fail(ErrorCode::kInvalidArgument, "SECRET must be at least 32 bytes");
  }
  return site;
}

bool ProviderName(std::string_view name) {
  if (name.empty() || name.size() > 32) {
    return false;
  }
  for (char ch : name) {
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-')) {
      return false;
    }
  }
  return true;
}

// CLIENT_ID,CLIENT_SECRET: both non-empty, the id without commas.
Status ParseClient(std::string_view text, Config::OidcProvider& p) {
  const size_t comma = text.find(',');
  if (comma == std::string_view::npos || comma == 0 || comma + 1 == text.size()) {
    return Fail(ErrorCode::kInvalidArgument, "expected CLIENT_ID,CLIENT_SECRET");
  }
  p.client_id = std::string(text.substr(0, comma));
  p.client_secret = std::string(text.substr(comma + 1));
  return {};
}

// --oidc NAME=ISSUER_URL,CLIENT_ID,CLIENT_SECRET
Result<Config::OidcProvider> ParseOidc(std::string_view text) {
  const size_t eq = text.find('=');
  Config::OidcProvider p;
  if (eq == std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "expected NAME=ISSUER_URL,CLIENT_ID,CLIENT_SECRET");
  }
  p.name = std::string(text.substr(0, eq));
  if (!ProviderName(p.name) || p.name == "github" || p.name == "sso") {
    return Fail(ErrorCode::kInvalidArgument,
                "NAME must be 1-32 of a-z, 0-9 and '-' (not github or sso)");
  }
  const std::string_view rest = text.substr(eq + 1);
  const size_t comma = rest.find(',');
  if (comma == std::string_view::npos) {
    return Fail(ErrorCode::kInvalidArgument, "expected NAME=ISSUER_URL,CLIENT_ID,CLIENT_SECRET");
  }
  p.issuer = std::string(rest.substr(0, comma));
  if (!(p.issuer.starts_with("https://") || p.issuer.starts_with("http://127.0.0.1") ||
        p.issuer.starts_with("http://localhost"))) {
    return Fail(ErrorCode::kInvalidArgument, "ISSUER_URL must be https (http only on loopback)");
  }
  PL_CHECK(ParseClient(rest.substr(comma + 1), p));
  return p;
}

}  // namespace

void AddAccountOptions(CLI::App& app, Config& c) {
  app.add_option("--session-ttl-s", c.session_ttl_s, "session lifetime, sliding, in seconds")
      ->envname("PLAUDIT_SESSION_TTL_S")
      ->check(CLI::Range(int64_t{1}, int64_t{366} * 24 * 3600))
      ->capture_default_str();
  app.add_option("--session-cache-ms", c.session_cache_ms,
                 "how long a process may reuse a session it read from Redis; 0 = never "
                 "(logout and role changes reach every process at once either way)")
      ->envname("PLAUDIT_SESSION_CACHE_MS")
      ->check(CLI::Range(0, 60'000))
      ->capture_default_str();
  AddParsed(app, "--password-hash", c.password_hash, ParsePasswordCost,
            "Argon2id cost: interactive (64 MiB, ~0.1 s) or minimal (tests only)")
      ->envname("PLAUDIT_PASSWORD_HASH")
      ->default_str(std::string(PasswordCostName(c.password_hash)));
  app.add_option("--password-hash-threads", c.password_hash_threads, "concurrent password hashes")
      ->envname("PLAUDIT_PASSWORD_HASH_THREADS")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  app.add_option("--password-hash-queue", c.password_hash_queue,
                 "password hashes waiting or running before logins get 429")
      ->envname("PLAUDIT_PASSWORD_HASH_QUEUE")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
}

void AddSignInOptions(CLI::App& app, Config& c) {
  AddParsed(app, "--sites", c.sites, SiteList::Parse,
            "origins that may embed Plaudit, comma-separated (https://blog.example,...): "
            "CORS and page threads")
      ->envname("PLAUDIT_SITES");
  AddRepeatable(app, "--sso", c.sso, ParseSsoSite,
                "site sign-in: ORIGIN=SECRET (repeatable; ORIGIN one of --sites, SECRET its HS256 "
                "key of 32 bytes or more)")
      ->envname("PLAUDIT_SSO");
  AddRepeatable(app, "--oidc", c.oidc, ParseOidc,
                "OpenID Connect sign-in: NAME=ISSUER_URL,CLIENT_ID,CLIENT_SECRET (repeatable); "
                "register <plauditd origin>/api/v1/auth/NAME/callback as its redirect URI")
      ->envname("PLAUDIT_OIDC");
  app.add_option_function<std::string>(
         "--github",
         [&c](const std::string& text) {
           Config::OidcProvider p;
           p.name = "github";
           if (auto st = ParseClient(text, p); !st) {
             throw CLI::ValidationError("--github", st.error().message);
           }
           c.github = std::move(p);
         },
         "GitHub sign-in: CLIENT_ID,CLIENT_SECRET of an OAuth app whose callback URL is "
         "<plauditd origin>/api/v1/auth/github/callback")
      ->envname("PLAUDIT_GITHUB");
  app.add_option("--github-url", c.github_url, "GitHub's web origin (GitHub Enterprise: yours)")
      ->envname("PLAUDIT_GITHUB_URL")
      ->capture_default_str();
  app.add_option("--github-api-url", c.github_api_url, "GitHub's API origin")
      ->envname("PLAUDIT_GITHUB_API_URL")
      ->capture_default_str();
}

}  // namespace plaudit::config::detail
