#include "domain/social_sign_in.hpp"

#include <sodium.h>
#include <spdlog/spdlog.h>

#include <array>
#include <boost/json.hpp>
#include <boost/url.hpp>

#include "common/time.hpp"

namespace plaudit::domain {
namespace {

using namespace std::chrono_literals;
constexpr auto kPendingTtl = 10min;
constexpr auto kDiscoveryTtl = 1h;
constexpr auto kKeysTtl = 10min;
constexpr auto kKeysRefetchGap = 10s;  // an unknown kid fetches the JWKS again at most this often
constexpr auto kRetryGap = 5s;         // after a failed discovery

Error Refused(const std::string& why) {
  return Error{ErrorCode::kUnauthenticated, "sign-in: " + why, 0};
}

std::string Base64Url(const unsigned char* data, size_t size) {
  std::string out(sodium_base64_ENCODED_LEN(size, sodium_base64_VARIANT_URLSAFE_NO_PADDING), '\0');
  sodium_bin2base64(out.data(), out.size(), data, size, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
  out.resize(out.find('\0'));
  return out;
}

std::string RandomToken() {
  std::array<unsigned char, 32> raw{};
  randombytes_buf(raw.data(), raw.size());
  return Base64Url(raw.data(), raw.size());
}

// PKCE S256 (RFC 7636 4.2): base64url(SHA-256(verifier)).
std::string Challenge(std::string_view verifier) {
  std::array<unsigned char, crypto_hash_sha256_BYTES> digest{};
  crypto_hash_sha256(digest.data(), reinterpret_cast<const unsigned char*>(verifier.data()),
                     verifier.size());
  return Base64Url(digest.data(), digest.size());
}

std::string Hash(std::string_view text) {
  std::array<unsigned char, 32> digest{};
  crypto_generichash(digest.data(), digest.size(),
                     reinterpret_cast<const unsigned char*>(text.data()), text.size(), nullptr, 0);
  std::array<char, 65> hex{};
  sodium_bin2hex(hex.data(), hex.size(), digest.data(), digest.size());
  return std::string(hex.data(), 64);
}

std::string StringOf(const boost::json::object& o, std::string_view name) {
  auto it = o.find(name);
  if (it == o.end() || !it->value().is_string()) {
    return {};
  }
  return std::string(it->value().get_string());
}

std::optional<boost::json::object> JsonObject(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) {
    return std::nullopt;
  }
  return std::move(v.as_object());
}

std::string BasicAuth(const SocialProvider& p) {
  // RFC 6749 2.3.1: each part form-encoded, then base64.
  const std::string pair =
      fetch::FormEncode(p.client_id) + ":" + fetch::FormEncode(p.client_secret);
  std::string out(sodium_base64_ENCODED_LEN(pair.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(pair.data()),
                    pair.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(out.find('\0'));
  return "Basic " + out;
}

std::string PendingJson(const SocialSignIn::Pending& p) {
  return boost::json::serialize(boost::json::object{{"p", p.provider},
                                                    {"n", p.nonce},
                                                    {"v", p.verifier},
                                                    {"r", p.return_url},
                                                    {"u", p.redirect_uri},
                                                    {"b", p.binder_hash}});
}

std::optional<SocialSignIn::Pending> ParsePending(std::string_view text) {
  auto o = JsonObject(text);
  if (!o) {
    return std::nullopt;
  }
  return SocialSignIn::Pending{StringOf(*o, "p"), StringOf(*o, "n"), StringOf(*o, "v"),
                               StringOf(*o, "r"), StringOf(*o, "u"), StringOf(*o, "b")};
}

// A username prefix from a provider's name: usernames are 3-32 of [A-Za-z0-9_.-].
std::string Prefix(std::string_view name) { return std::string(name.substr(0, 20)); }

}  // namespace

const SocialProvider* SocialSignIn::Find(std::string_view name) const {
  for (const auto& p : providers_) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

Awaitable<Result<SocialSignIn::Started>> SocialSignIn::Start(std::string_view name,
                                                             std::string_view return_url,
                                                             std::string_view own_origin) {
  const SocialProvider* p = Find(name);
  if (p == nullptr) {
    co_return Fail(ErrorCode::kNotFound, "no such sign-in provider");
  }
  // Only back to a page of an allowed site or of plauditd itself: never an open redirect.
  auto page = NormalisePageUrl(return_url);
  if (!page || (!sites_.Allows(page->origin) && page->origin != own_origin)) {
    co_return Fail(ErrorCode::kInvalidArgument,
                   "return must be a page of an allowed site or of this server");
  }
  std::string authorize;
  if (p->kind == SocialProvider::Kind::kOidc) {
    PL_CO_TRY(const Discovery d, co_await Discover(*p));
    authorize = d.authorization_endpoint;
  } else {
    authorize = urls_.github_url + "/login/oauth/authorize";
  }
  Pending pending;
  pending.provider = p->name;
  pending.nonce = RandomToken();
  pending.verifier = RandomToken();
  // As given (its query and fragment too: the page to land on), now that its origin is known.
  pending.return_url = std::string(return_url);
  pending.redirect_uri = std::string(own_origin) + "/api/v1/auth/" + p->name + "/callback";
  Started out;
  out.binder = RandomToken();
  pending.binder_hash = Hash(out.binder);
  const std::string state = RandomToken();
  PL_CO_CHECK(
      co_await states_.Put(state, PendingJson(pending),
                           std::chrono::duration_cast<std::chrono::milliseconds>(kPendingTtl)));
  auto url = boost::urls::parse_uri(authorize);
  if (!url) {
    co_return Fail(ErrorCode::kUnavailable, "the provider's authorization URL is invalid");
  }
  boost::urls::url u(*url);
  u.params().append({"response_type", "code"});
  u.params().append({"client_id", p->client_id});
  u.params().append({"redirect_uri", pending.redirect_uri});
  u.params().append({"state", state});
  u.params().append({"code_challenge", Challenge(pending.verifier)});
  u.params().append({"code_challenge_method", "S256"});
  if (p->kind == SocialProvider::Kind::kOidc) {
    u.params().append({"scope", "openid profile email"});
    u.params().append({"nonce", pending.nonce});
  } else {
    u.params().append({"scope", "read:user"});
  }
  out.location = std::string(u.buffer());
  co_return out;
}

Awaitable<Result<SocialSignIn::Finished>> SocialSignIn::Finish(std::string_view name,
                                                               std::string_view code,
                                                               std::string_view state,
                                                               std::string_view binder) {
  const SocialProvider* p = Find(name);
  if (p == nullptr) {
    co_return Fail(ErrorCode::kNotFound, "no such sign-in provider");
  }
  if (state.empty()) {
    co_return tl::unexpected(Refused("no state"));
  }
  PL_CO_TRY(const std::optional<std::string> raw, co_await states_.Take(state));
  if (!raw) {
    co_return tl::unexpected(Refused("this sign-in expired or was already used; start again"));
  }
  const std::optional<Pending> pending = ParsePending(*raw);
  if (!pending || pending->provider != p->name) {
    co_return tl::unexpected(Refused("this sign-in was started with another provider"));
  }
  // The browser that started it: its binding cookie, compared by hash in constant time.
  const std::string presented = Hash(binder);
  if (binder.empty() || pending->binder_hash.size() != presented.size() ||
      sodium_memcmp(presented.data(), pending->binder_hash.data(), presented.size()) != 0) {
    co_return tl::unexpected(Refused("this sign-in was started in another browser"));
  }
  if (code.empty()) {
    co_return tl::unexpected(Refused("the provider sent no code"));
  }
  Result<ExternalProfile> profile = Fail(ErrorCode::kInternal, "unreachable");
  if (p->kind == SocialProvider::Kind::kOidc) {
    profile = co_await OidcProfile(*p, *pending, code);
  } else {
    profile = co_await GithubProfile(*p, *pending, code);
  }
  PL_CO_CHECK(profile);
  PL_CO_TRY(Session session, co_await users_.SignInExternal(std::move(*profile)));
  co_return Finished{std::move(session), pending->return_url};
}

Awaitable<Result<SocialSignIn::Discovery>> SocialSignIn::Discover(const SocialProvider& p) {
  const auto now = std::chrono::steady_clock::now();
  if (auto it = discovered_.find(p.name);
      it != discovered_.end() && now - it->second.fetched < kDiscoveryTtl) {
    co_return it->second;
  }
  // A provider that just failed is not asked again for a while: each start would otherwise
  // hold a fetch thread for up to its timeout.
  if (auto it = failed_.find(p.name); it != failed_.end() && now - it->second < kRetryGap) {
    co_return Fail(ErrorCode::kUnavailable,
                   "the provider could not be reached a moment ago; retry");
  }
  auto found = co_await Fetch(p);
  if (!found) {
    failed_[p.name] = now;
    co_return tl::unexpected(found.error());
  }
  failed_.erase(p.name);
  co_return found;
}

Awaitable<Result<SocialSignIn::Discovery>> SocialSignIn::Fetch(const SocialProvider& p) {
  const auto now = std::chrono::steady_clock::now();
  fetch::Request req;
  req.url = p.issuer + (p.issuer.ends_with("/") ? "" : "/") + ".well-known/openid-configuration";
  req.headers = {{"Accept", "application/json"}};
  PL_CO_TRY(const fetch::Response r, co_await http_.Fetch(std::move(req)));
  auto doc = r.status == 200 ? JsonObject(r.body) : std::nullopt;
  if (!doc) {
    co_return Fail(
        ErrorCode::kUnavailable,
        "the provider's discovery document could not be read (" + std::to_string(r.status) + ")");
  }
  // OpenID Connect Discovery 4.3: the issuer it names must be the one configured.
  if (StringOf(*doc, "issuer") != p.issuer) {
    co_return Fail(ErrorCode::kUnavailable, "the provider's discovery names another issuer");
  }
  Discovery d;
  d.authorization_endpoint = StringOf(*doc, "authorization_endpoint");
  d.token_endpoint = StringOf(*doc, "token_endpoint");
  d.userinfo_endpoint = StringOf(*doc, "userinfo_endpoint");
  d.jwks_uri = StringOf(*doc, "jwks_uri");
  if (!fetch::FetchableUrl(d.token_endpoint) || !fetch::FetchableUrl(d.jwks_uri) ||
      !fetch::FetchableUrl(d.authorization_endpoint)) {
    co_return Fail(ErrorCode::kUnavailable, "the provider's endpoints are not https URLs");
  }
  d.fetched = now;
  if (auto it = discovered_.find(p.name); it != discovered_.end()) {
    d.keys = it->second.keys;
    d.keys_fetched = it->second.keys_fetched;
  }
  discovered_[p.name] = d;
  co_return d;
}

Awaitable<Result<KeySet>> SocialSignIn::Keys(const SocialProvider& p, bool refetch) {
  PL_CO_TRY(const Discovery d, co_await Discover(p));
  const auto now = std::chrono::steady_clock::now();
  const bool fresh = d.keys && now - d.keys_fetched < kKeysTtl;
  const bool may_refetch = now - d.keys_fetched >= kKeysRefetchGap;
  if (fresh && !(refetch && may_refetch)) {
    co_return *d.keys;
  }
  fetch::Request req;
  req.url = d.jwks_uri;
  req.headers = {{"Accept", "application/json"}};
  PL_CO_TRY(const fetch::Response r, co_await http_.Fetch(std::move(req)));
  if (r.status != 200) {
    co_return Fail(ErrorCode::kUnavailable, "the provider's keys could not be read");
  }
  PL_CO_TRY(KeySet keys, KeySet::Parse(r.body));
  Discovery& kept = discovered_[p.name];
  kept.keys = keys;
  kept.keys_fetched = now;
  co_return keys;
}

Awaitable<Result<ExternalProfile>> SocialSignIn::OidcProfile(const SocialProvider& p,
                                                             const Pending& pending,
                                                             std::string_view code) {
  PL_CO_TRY(const Discovery d, co_await Discover(p));
  fetch::Request req;
  req.method = "POST";
  req.url = d.token_endpoint;
  req.headers = {{"Accept", "application/json"},
                 {"Content-Type", "application/x-www-form-urlencoded"},
                 {"Authorization", BasicAuth(p)}};
  req.body = fetch::FormBody({{"grant_type", "authorization_code"},
                              {"code", std::string(code)},
                              {"redirect_uri", pending.redirect_uri},
                              {"code_verifier", pending.verifier}});
  PL_CO_TRY(const fetch::Response r, co_await http_.Fetch(std::move(req)));
  auto tokens = JsonObject(r.body);
  if (r.status != 200 || !tokens) {
    const std::string why = tokens ? StringOf(*tokens, "error") : std::string();
    co_return tl::unexpected(
        Refused("the provider refused the code" + (why.empty() ? "" : " (" + why + ")")));
  }
  const std::string id_token = StringOf(*tokens, "id_token");
  if (id_token.empty()) {
    co_return tl::unexpected(Refused("the provider sent no ID token"));
  }
  const IdTokenCheck check{p.issuer, p.client_id, pending.nonce, NowMs() / 1000};
  PL_CO_TRY(KeySet keys, co_await Keys(p, false));
  auto claims = VerifyIdToken(id_token, keys, check);
  if (!claims && claims.error().code == ErrorCode::kNotFound) {
    // A key the provider rotated in since the keys were read: read them once more.
    PL_CO_TRY(keys, co_await Keys(p, true));
    claims = VerifyIdToken(id_token, keys, check);
  }
  if (!claims) {
    co_return tl::unexpected(Refused(claims.error().code == ErrorCode::kNotFound
                                         ? "id token: signed by a key the provider does not list"
                                         : claims.error().message));
  }
  ExternalProfile out;
  out.provider = "oidc:" + p.name;
  out.subject = claims->sub;
  out.name = !claims->name.empty() ? claims->name : claims->preferred_username;
  out.email = claims->email;
  // A provider that keeps profile claims out of the ID token (OpenID Connect Core 5.4 allows
  // it) gives them at its userinfo endpoint, for the same subject only.
  const std::string access = StringOf(*tokens, "access_token");
  if (out.name.empty() && !access.empty() && fetch::FetchableUrl(d.userinfo_endpoint)) {
    fetch::Request info;
    info.url = d.userinfo_endpoint;
    info.headers = {{"Accept", "application/json"}, {"Authorization", "Bearer " + access}};
    auto got = co_await http_.Fetch(std::move(info));
    auto doc = got && got->status == 200 ? JsonObject(got->body) : std::nullopt;
    if (doc && StringOf(*doc, "sub") == out.subject) {
      out.name = StringOf(*doc, "name");
      if (out.name.empty()) {
        out.name = StringOf(*doc, "preferred_username");
      }
      if (out.email.empty()) {
        out.email = StringOf(*doc, "email");
      }
    }
  }
  out.username_prefix = Prefix(p.name);
  co_return out;
}

Awaitable<Result<ExternalProfile>> SocialSignIn::GithubProfile(const SocialProvider& p,
                                                               const Pending& pending,
                                                               std::string_view code) {
  fetch::Request req;
  req.method = "POST";
  req.url = urls_.github_url + "/login/oauth/access_token";
  req.headers = {{"Accept", "application/json"},
                 {"Content-Type", "application/x-www-form-urlencoded"}};
  req.body = fetch::FormBody({{"client_id", p.client_id},
                              {"client_secret", p.client_secret},
                              {"code", std::string(code)},
                              {"redirect_uri", pending.redirect_uri},
                              {"code_verifier", pending.verifier}});
  PL_CO_TRY(const fetch::Response r, co_await http_.Fetch(std::move(req)));
  auto tokens = JsonObject(r.body);
  const std::string access = tokens ? StringOf(*tokens, "access_token") : std::string();
  if (r.status != 200 || access.empty()) {
    const std::string why = tokens ? StringOf(*tokens, "error") : std::string();
    co_return tl::unexpected(
        Refused("GitHub refused the code" + (why.empty() ? "" : " (" + why + ")")));
  }
  fetch::Request user;
  user.url = urls_.github_api_url + "/user";
  user.headers = {{"Accept", "application/vnd.github+json"},
                  {"Authorization", "Bearer " + access},
                  {"X-GitHub-Api-Version", "2022-11-28"}};
  PL_CO_TRY(const fetch::Response u, co_await http_.Fetch(std::move(user)));
  auto doc = u.status == 200 ? JsonObject(u.body) : std::nullopt;
  if (!doc) {
    co_return tl::unexpected(Refused("GitHub did not say who signed in"));
  }
  // The numeric id is the account's for good; the login can be renamed and reused.
  const auto id = doc->find("id");
  if (id == doc->end() || !(id->value().is_int64() || id->value().is_uint64())) {
    co_return tl::unexpected(Refused("GitHub did not say who signed in"));
  }
  ExternalProfile out;
  out.provider = "github";
  out.subject = id->value().is_int64() ? std::to_string(id->value().as_int64())
                                       : std::to_string(id->value().as_uint64());
  out.name = StringOf(*doc, "name");
  if (out.name.empty()) {
    out.name = StringOf(*doc, "login");
  }
  out.email = StringOf(*doc, "email");
  out.username_prefix = "github";
  co_return out;
}

}  // namespace plaudit::domain
