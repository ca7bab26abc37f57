#pragma once
// Sign-ins with an OpenID provider or GitHub under way (domain/social_sign_in.hpp): what the
// start of one must hand to its callback (provider, nonce, PKCE verifier, return URL, the
// browser's binding), kept in Redis under the BLAKE2b of its `state` for 10 minutes, so the
// callback may reach any instance. Taken with GETDEL: a state works once, and an attacker who
// replays a callback URL finds nothing. Keys `pl:signin:<digest>` (docs/architecture.md).
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.hpp"
#include "redis/client/client.hpp"

namespace plaudit::redis {

class SignInStates {
 public:
  explicit SignInStates(Client& client) : client_(client) {}

  Awaitable<Status> Put(std::string_view state, std::string value, std::chrono::milliseconds ttl);
  // The value of `state`, removed; nullopt when there is none (expired, used, never made).
  Awaitable<Result<std::optional<std::string>>> Take(std::string_view state);

 private:
  Client& client_;
};

}  // namespace plaudit::redis
