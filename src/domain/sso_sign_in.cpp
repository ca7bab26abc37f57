#include "domain/sso_sign_in.hpp"

#include "common/time.hpp"
#include "domain/sso_token.hpp"

namespace plaudit::domain {

std::vector<std::string> SsoSignIn::Sites() const {
  std::vector<std::string> out;
  out.reserve(secrets_.size());
  for (const auto& [origin, secret] : secrets_) {
    out.push_back(origin);
  }
  return out;
}

Awaitable<Result<Session>> SsoSignIn::SignIn(std::string_view token) {
  const int64_t now_ms = NowMs();
  const SsoSecretOf secret_of = [this](std::string_view iss) -> std::optional<std::string> {
    auto it = secrets_.find(std::string(iss));
    if (it == secrets_.end()) {
      return std::nullopt;
    }
    return it->second;
  };
  PL_CO_TRY(SsoClaims claims, VerifySsoToken(token, secret_of, now_ms / 1000));
  // Remembered until the token could no longer be accepted anyway (its exp, with the leeway).
  const int64_t ttl_ms = (claims.exp_s + kSsoLeewayS) * 1000 - now_ms;
  const std::string once = claims.iss + '\n' + claims.jti;
  PL_CO_TRY(const bool first, co_await once_.Claim("sso", once, std::chrono::milliseconds(ttl_ms)));
  if (!first) {
    co_return Fail(ErrorCode::kUnauthenticated, "sso token: already used (jti)");
  }
  ExternalProfile profile;
  profile.provider = "sso:" + claims.iss;
  profile.subject = std::move(claims.sub);
  profile.name = std::move(claims.name);
  profile.email = std::move(claims.email);
  profile.username_prefix = "sso";
  co_return co_await users_.SignInExternal(std::move(profile));
}

}  // namespace plaudit::domain
