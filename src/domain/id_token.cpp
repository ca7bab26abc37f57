#include "domain/id_token.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <sodium.h>

#include <boost/json.hpp>

#include "domain/jwt.hpp"

namespace plaudit::domain {
namespace {

Error Refused(const std::string& why) {
  return Error{ErrorCode::kUnauthenticated, "id token: " + why, 0};
}

// An RSA public key from a JWK's n and e (OpenSSL 3 key construction from parameters).
std::shared_ptr<EVP_PKEY> RsaKey(const std::string& n, const std::string& e) {
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn_n(
      BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), static_cast<int>(n.size()),
                nullptr),
      BN_free);
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn_e(
      BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), static_cast<int>(e.size()),
                nullptr),
      BN_free);
  if (!bn_n || !bn_e || BN_num_bits(bn_n.get()) < 2048) {
    return nullptr;
  }
  std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)> bld(OSSL_PARAM_BLD_new(),
                                                                      OSSL_PARAM_BLD_free);
  if (!bld || !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) ||
      !OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get())) {
    return nullptr;
  }
  std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)> params(OSSL_PARAM_BLD_to_param(bld.get()),
                                                                 OSSL_PARAM_free);
  std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
      EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr), EVP_PKEY_CTX_free);
  EVP_PKEY* pkey = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) <= 0 ||
      EVP_PKEY_fromdata(ctx.get(), &pkey, EVP_PKEY_PUBLIC_KEY, params.get()) <= 0) {
    return nullptr;
  }
  return std::shared_ptr<EVP_PKEY>(pkey, EVP_PKEY_free);
}

bool Rs256Holds(EVP_PKEY* key, std::string_view signed_part, std::string_view signature) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!md || EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key) != 1) {
    return false;
  }
  return EVP_DigestVerify(
             md.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
             reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1;
}

}  // namespace

Result<KeySet> KeySet::Parse(std::string_view jwks_json) {
  boost::system::error_code ec;
  const boost::json::value doc = boost::json::parse(jwks_json, ec);
  if (ec || !doc.is_object() || !doc.as_object().contains("keys") ||
      !doc.as_object().at("keys").is_array()) {
    return Fail(ErrorCode::kInvalidArgument, "not a JWKS document");
  }
  KeySet set;
  for (const auto& k : doc.as_object().at("keys").as_array()) {
    if (!k.is_object()) {
      continue;
    }
    const auto& o = k.as_object();
    if (StringClaim(o, "kty") != "RSA") {
      continue;
    }
    const std::string use = StringClaim(o, "use");
    const std::string alg = StringClaim(o, "alg");
    if ((!use.empty() && use != "sig") || (!alg.empty() && alg != "RS256")) {
      continue;
    }
    auto n = Base64UrlDecode(StringClaim(o, "n"));
    auto e = Base64UrlDecode(StringClaim(o, "e"));
    if (!n || !e || n->empty() || e->empty()) {
      continue;
    }
    auto pkey = RsaKey(*n, *e);
    if (!pkey) {
      continue;
    }
    set.keys_.push_back(Key{StringClaim(o, "kid"), std::move(pkey)});
  }
  return set;
}

EVP_PKEY* KeySet::Find(std::string_view kid) const {
  if (kid.empty()) {
    return keys_.size() == 1 ? keys_.front().pkey.get() : nullptr;
  }
  for (const Key& k : keys_) {
    if (k.kid == kid) {
      return k.pkey.get();
    }
  }
  return nullptr;
}

Result<IdTokenClaims> VerifyIdToken(std::string_view token, const KeySet& keys,
                                    const IdTokenCheck& check) {
  PL_TRY(auto split, SplitJwt(token, 16384, "id token"));
  const JwtParts& jwt = split;
  if (StringClaim(jwt.header, "alg") != "RS256") {
    return tl::unexpected(Refused("alg must be RS256"));
  }
  if (jwt.header.contains("crit")) {
    return tl::unexpected(Refused("crit is not understood"));
  }
  EVP_PKEY* key = keys.Find(StringClaim(jwt.header, "kid"));
  if (key == nullptr) {
    return Fail(ErrorCode::kNotFound, "id token: no key of the provider has its kid");
  }
  if (!Rs256Holds(key, jwt.signed_part, jwt.signature)) {
    return tl::unexpected(Refused("bad signature"));
  }
  const auto& c = jwt.claims;
  if (StringClaim(c, "iss") != check.issuer) {
    return tl::unexpected(Refused("wrong issuer"));
  }
  // aud: the client's id, alone or among others; with others, azp must name this client.
  bool audience = false;
  size_t audiences = 0;
  if (auto it = c.find("aud"); it != c.end()) {
    if (it->value().is_string()) {
      audiences = 1;
      audience = it->value().get_string() == check.client_id;
    } else if (it->value().is_array()) {
      for (const auto& a : it->value().get_array()) {
        ++audiences;
        if (a.is_string() && a.get_string() == check.client_id) {
          audience = true;
        }
      }
    }
  }
  if (!audience) {
    return tl::unexpected(Refused("not for this client (aud)"));
  }
  if (audiences > 1 && StringClaim(c, "azp") != check.client_id) {
    return tl::unexpected(Refused("not for this client (azp)"));
  }
  auto exp = NumericDate(c, "exp");
  if (!exp || *exp <= check.now_s - kIdTokenLeewayS) {
    return tl::unexpected(Refused("expired"));
  }
  auto iat = NumericDate(c, "iat");
  if (!iat || *iat > check.now_s + kIdTokenLeewayS) {
    return tl::unexpected(Refused("iat is missing or in the future"));
  }
  const std::string nonce = StringClaim(c, "nonce");
  if (check.nonce.empty() || nonce.size() != check.nonce.size() ||
      sodium_memcmp(nonce.data(), check.nonce.data(), nonce.size()) != 0) {
    return tl::unexpected(Refused("nonce does not match this sign-in"));
  }
  IdTokenClaims out;
  out.sub = StringClaim(c, "sub");
  if (out.sub.empty() || out.sub.size() > 255) {
    return tl::unexpected(Refused("sub is missing"));
  }
  out.name = StringClaim(c, "name");
  out.preferred_username = StringClaim(c, "preferred_username");
  out.email = StringClaim(c, "email");
  return out;
}

}  // namespace plaudit::domain
