// SentinelClient's calls (the design is in sentinel_client.hpp): each goes to the primary when
// it is usable and fails at once with kUnavailable otherwise, never waiting for the Sentinels;
// a READONLY reply (the primary was demoted under us) fails the call and puts it in doubt.
#include "redis/client/sentinel_client.hpp"

namespace plaudit::redis {
namespace {

bool IsReadOnly(const Reply& r) { return r.is_error() && r.str.starts_with("READONLY"); }
bool IsReadOnly(const std::vector<Reply>& rs) {
  for (const auto& r : rs) {
    if (IsReadOnly(r)) {
      return true;
    }
  }
  return false;
}

template <class T>
Awaitable<T> Unavailable(std::string why) {
  co_return Fail(ErrorCode::kUnavailable, std::move(why));
}

}  // namespace

template <class T>
Awaitable<T> SentinelClient::Watched(std::weak_ptr<SentinelClient> weak, Awaitable<T> call) {
  T r = co_await std::move(call);
  if (r && IsReadOnly(*r)) {
    if (auto self = weak.lock()) {
      self->Doubt("READONLY");
    }
    co_return Fail(ErrorCode::kUnavailable, "redis: the primary became a replica");
  }
  if (!r) {
    if (auto self = weak.lock(); self && !self->connected()) {
      self->WantResolve();
    }
  }
  co_return r;
}

Awaitable<Result<Reply>> SentinelClient::Command(std::vector<std::string> argv) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<Reply>>("redis unavailable: no primary (Sentinel)");
  }
  return Watched(weak_self_, primary->Command(std::move(argv)));
}

Awaitable<Result<std::vector<Reply>>> SentinelClient::Pipeline(
    std::vector<std::vector<std::string>> commands) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<std::vector<Reply>>>("redis unavailable: no primary (Sentinel)");
  }
  return Watched(weak_self_, primary->Pipeline(std::move(commands)));
}

Awaitable<Result<std::vector<Reply>>> SentinelClient::PipelineFramed(FramedCommands commands) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<std::vector<Reply>>>("redis unavailable: no primary (Sentinel)");
  }
  return Watched(weak_self_, primary->PipelineFramed(std::move(commands)));
}

Awaitable<Result<Reply>> SentinelClient::Eval(const Script& script, std::vector<std::string> keys,
                                              std::vector<std::string> args) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<Reply>>("redis unavailable: no primary (Sentinel)");
  }
  return Watched(weak_self_, primary->Eval(script, std::move(keys), std::move(args)));
}

Awaitable<Result<int64_t>> SentinelClient::WaitReplicas(std::string_view key, int replicas,
                                                        std::chrono::milliseconds timeout) {
  auto primary = Usable();
  if (!primary) {
    return Unavailable<Result<int64_t>>("redis unavailable: no primary (Sentinel)");
  }
  return primary->WaitReplicas(key, replicas, timeout);
}

}  // namespace plaudit::redis
