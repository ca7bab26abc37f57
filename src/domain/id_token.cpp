#include "domain/id_token.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <sodium.h>

#include <boost/json.hpp>

namespace plaudit::domain {
namespace {

Error Refused(std::string why) { return Error{ErrorCode::kUnauthenticated, "id token: " + why, 0}; }

std::optional<std::string> Base64Url(std::string_view text) {
  std::string out(text.size() * 3 / 4 + 3, '\0');
  size_t len = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(out.data()), out.size(), text.data(),
                        text.size(), nullptr, &len, &end,
                        sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
      end != text.data() + text.size()) {
    return std::nullopt;
  }
  out.resize(len);
  return out;
}

std::string StringOf(const boost::json::object& o, std::string_view name) {
  auto it = o.find(name);
  if (it == o.end() || !it->value().is_string()) return {};
  return std::string(it->value().get_string());
}

std::optional<int64_t> TimeOf(const boost::json::object& o, std::string_view name) {
  auto it = o.find(name);
  if (it == o.end()) return std::nullopt;
  if (it->value().is_int64()) return it->value().as_int64();
  if (it->value().is_uint64() && it->value().as_uint64() < (uint64_t{1} << 62)) {
    return static_cast<int64_t>(it->value().as_uint64());
  }
  if (it->value().is_double() && it->value().as_double() < 1e15 &&
      it->value().as_double() > -1e15) {
    return static_cast<int64_t>(it->value().as_double());
  }
  return std::nullopt;
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
  if (!bn_n || !bn_e || BN_num_bits(bn_n.get()) < 2048) return nullptr;
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
  if (!md || EVP_DigestVerifyInit(md.get(), nullptr, EVP_sha256(), nullptr, key) != 1) return false;
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
    if (!k.is_object()) continue;
    const auto& o = k.as_object();
    if (StringOf(o, "kty") != "RSA") continue;
    const std::string use = StringOf(o, "use");
    const std::string alg = StringOf(o, "alg");
    if ((!use.empty() && use != "sig") || (!alg.empty() && alg != "RS256")) continue;
    auto n = Base64Url(StringOf(o, "n"));
    auto e = Base64Url(StringOf(o, "e"));
    if (!n || !e || n->empty() || e->empty()) continue;
    auto pkey = RsaKey(*n, *e);
    if (!pkey) continue;
    set.keys_.push_back(Key{StringOf(o, "kid"), std::move(pkey)});
  }
  return set;
}

EVP_PKEY* KeySet::Find(std::string_view kid) const {
  if (kid.empty()) return keys_.size() == 1 ? keys_.front().pkey.get() : nullptr;
  for (const Key& k : keys_) {
    if (k.kid == kid) return k.pkey.get();
  }
  return nullptr;
}

Result<IdTokenClaims> VerifyIdToken(std::string_view token, const KeySet& keys,
                                    const IdTokenCheck& check) {
  if (token.size() > 16384) return tl::unexpected(Refused("too long"));
  const size_t dot1 = token.find('.');
  const size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return tl::unexpected(Refused("not a JWT"));
  }
  auto header_text = Base64Url(token.substr(0, dot1));
  auto payload_text = Base64Url(token.substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = Base64Url(token.substr(dot2 + 1));
  if (!header_text || !payload_text || !signature) return tl::unexpected(Refused("not base64url"));
  boost::system::error_code ec;
  const boost::json::value header = boost::json::parse(*header_text, ec);
  if (ec || !header.is_object()) return tl::unexpected(Refused("header is not a JSON object"));
  if (StringOf(header.as_object(), "alg") != "RS256") {
    return tl::unexpected(Refused("alg must be RS256"));
  }
  if (header.as_object().contains("crit")) return tl::unexpected(Refused("crit is not understood"));
  EVP_PKEY* key = keys.Find(StringOf(header.as_object(), "kid"));
  if (key == nullptr)
    return Fail(ErrorCode::kNotFound, "id token: no key of the provider has its kid");
  if (!Rs256Holds(key, token.substr(0, dot2), *signature)) {
    return tl::unexpected(Refused("bad signature"));
  }
  const boost::json::value payload = boost::json::parse(*payload_text, ec);
  if (ec || !payload.is_object()) return tl::unexpected(Refused("claims are not a JSON object"));
  const auto& c = payload.as_object();
  if (StringOf(c, "iss") != check.issuer) return tl::unexpected(Refused("wrong issuer"));
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
        if (a.is_string() && a.get_string() == check.client_id) audience = true;
      }
    }
  }
  if (!audience) return tl::unexpected(Refused("not for this client (aud)"));
  if (audiences > 1 && StringOf(c, "azp") != check.client_id) {
    return tl::unexpected(Refused("not for this client (azp)"));
  }
  auto exp = TimeOf(c, "exp");
  if (!exp || *exp <= check.now_s - kIdTokenLeewayS) return tl::unexpected(Refused("expired"));
  auto iat = TimeOf(c, "iat");
  if (!iat || *iat > check.now_s + kIdTokenLeewayS) {
    return tl::unexpected(Refused("iat is missing or in the future"));
  }
  const std::string nonce = StringOf(c, "nonce");
  if (check.nonce.empty() || nonce.size() != check.nonce.size() ||
      sodium_memcmp(nonce.data(), check.nonce.data(), nonce.size()) != 0) {
    return tl::unexpected(Refused("nonce does not match this sign-in"));
  }
  IdTokenClaims out;
  out.sub = StringOf(c, "sub");
  if (out.sub.empty() || out.sub.size() > 255) return tl::unexpected(Refused("sub is missing"));
  out.name = StringOf(c, "name");
  out.preferred_username = StringOf(c, "preferred_username");
  out.email = StringOf(c, "email");
  return out;
}

}  // namespace plaudit::domain
