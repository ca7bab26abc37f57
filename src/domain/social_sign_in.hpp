#pragma once
// Sign-in with an OpenID Connect provider or GitHub (API.md "Guests and sign-in from
// elsewhere"): the authorization code flow with PKCE, ending in the session a password gives.
//
// Start: the return URL must be a page of one of --sites or of plauditd's own origin (no
// open redirect). A fresh `state`, `nonce` and PKCE verifier (32 random bytes each) and a
// browser binding (32 more, sent back as an HttpOnly cookie) are kept in Redis under the
// state's hash for 10 minutes (redis/sign_in_states.hpp); the browser goes to the provider.
// Finish (the callback): the state is taken once (GETDEL); it must name this provider and
// come back to the browser that started it (the binding cookie's hash, compared in constant
// time), so a callback URL carried to another browser, replayed, or forged (login CSRF) signs
// nobody in. The code is exchanged with the PKCE verifier and the client's secret; an OpenID
// provider's ID token is checked against its JWKS (domain/id_token.hpp: RS256 signature,
// issuer, audience, expiry, the nonce of this sign-in); GitHub's user comes from its API with
// the access token. The account is the one of (provider, subject) — an e-mail never finds or
// merges one (UserService::SignInExternal).
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/web_origin.hpp"
#include "domain/id_token.hpp"
#include "domain/users.hpp"
#include "fetch/https_client.hpp"
#include "redis/sign_in_states.hpp"

namespace plaudit::domain {

struct SocialProvider {
  enum class Kind { kOidc, kGithub };
  std::string name;  // the path segment: /api/v1/auth/{name}/...
  Kind kind = Kind::kOidc;
  std::string issuer;  // OpenID: as its discovery document says
  std::string client_id;
  std::string client_secret;
};

struct SocialUrls {
  std::string github_url = "https://github.com";
  std::string github_api_url = "https://api.github.com";
};

class SocialSignIn {
 public:
  SocialSignIn(UserService& users, redis::SignInStates& states, fetch::HttpsClient& http,
               std::vector<SocialProvider> providers, SiteList sites, SocialUrls urls)
      : users_(users),
        states_(states),
        http_(http),
        providers_(std::move(providers)),
        sites_(std::move(sites)),
        urls_(std::move(urls)) {}

  const std::vector<SocialProvider>& Providers() const { return providers_; }

  struct Started {
    std::string location;  // the provider's authorization URL
    std::string binder;    // for the browser's binding cookie
  };
  // kNotFound for no such provider; kInvalidArgument for a return URL that is not a page of an
  // allowed site or of `own_origin` (plauditd's, as this request reached it).
  Awaitable<Result<Started>> Start(std::string_view name, std::string_view return_url,
                                   std::string_view own_origin);

  struct Finished {
    Session session;
    std::string return_url;
  };
  // kUnauthenticated with the reason for anything refused (state unknown or used, another
  // browser, another provider, the provider's error, a bad ID token); kUnavailable when the
  // provider cannot be reached.
  Awaitable<Result<Finished>> Finish(std::string_view name, std::string_view code,
                                     std::string_view state, std::string_view binder);

  // What sits in Redis between the two (JSON), exposed for tests.
  struct Pending {
    std::string provider, nonce, verifier, return_url, redirect_uri, binder_hash;
  };

 private:
  struct Discovery {
    std::string authorization_endpoint;
    std::string token_endpoint;
    std::string userinfo_endpoint;
    std::string jwks_uri;
    std::optional<KeySet> keys;
    std::chrono::steady_clock::time_point fetched{};
    std::chrono::steady_clock::time_point keys_fetched{};
  };
  const SocialProvider* Find(std::string_view name) const;
  Awaitable<Result<Discovery>> Discover(const SocialProvider& p);
  Awaitable<Result<Discovery>> Fetch(const SocialProvider& p);  // Discover's fetch
  Awaitable<Result<KeySet>> Keys(const SocialProvider& p, bool refetch);
  Awaitable<Result<ExternalProfile>> OidcProfile(const SocialProvider& p, const Pending& pending,
                                                 std::string_view code);
  Awaitable<Result<ExternalProfile>> GithubProfile(const SocialProvider& p, const Pending& pending,
                                                   std::string_view code);

  UserService& users_;
  redis::SignInStates& states_;
  fetch::HttpsClient& http_;
  std::vector<SocialProvider> providers_;
  SiteList sites_;
  SocialUrls urls_;
  std::map<std::string, Discovery> discovered_;  // by provider name; on the I/O thread only
  std::map<std::string, std::chrono::steady_clock::time_point> failed_;  // last failed discovery
};

}  // namespace plaudit::domain
